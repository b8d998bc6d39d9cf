"""The log names a place as the map and the forms do (issue 31 leftover, issue 16: "Forest (north-west)"
when two territories share a name, never a bare "Forest" that could be either)."""

from __future__ import annotations

from collections import Counter

import pytest
from django.utils import translation

from games import engine, services
from games.components import localized_view, place_labels
from games.selectors import game_get, game_view

from .conftest import create_started_game, seat_users, state_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("lang", ["en", "sv"])
def test_an_advance_into_one_of_two_same_named_territories_is_logged_with_the_maps_label(lang: str) -> None:
    """R52: an advance into a territory whose name another territory shares is logged with the label the
    map and the decision form give it, in the reader's language."""
    for seed in range(1, 40):
        game = create_started_game(humans=2, seed=seed)
        state = state_of(game)
        seat = state.active
        view = engine.view_for(state, seat)
        names = Counter(t["name"] for t in view["map"] if t["kind"] == "territory")
        twins = {t["id"] for t in view["map"] if t["kind"] == "territory" and names[t["name"]] > 1}
        advance = next(
            (a for a in engine.legal_actions(state, seat) if isinstance(a, engine.Advance) and a.to in twins),
            None,
        )
        if advance is not None:
            break
    else:
        raise AssertionError("no seed of 1-39 offers an advance into a same-named territory")
    user = seat_users(game)[seat]
    services.action_submit(game_id=game.pk, user=user, action=advance, expected_seq=game.seq)
    fresh = game_get(game.pk)
    assert fresh is not None
    with translation.override(lang):
        named = localized_view(engine.view_for(state_of(fresh), seat), state.content)
        label = place_labels(named)[advance.to][0]
        lines = game_view(fresh, user).log[0]["lines"]
    assert "(" in label  # a direction tells the two apart
    assert any(label in line for line in lines), (label, lines)
