"""Issue 30, pending orders set on the page: the orders page's "Write the rest of your turn" form takes the
same lines as an emailed reply (games.services.lines.pending_write). What the seat's decisions accept now
is played at once, the rest is kept as the seat's pending orders and played (source ``web``, the door it
came through) as soon as a decision accepts it; a refused line, a game that is not the player's turn, a
game they have no seat in or NUL change nothing.

The positions are those of tests/web/test_pending_orders.py: seed 21, seat 0 about to open a battle.
"""

from __future__ import annotations

import pytest
from django.core.mail import EmailMultiAlternatives
from django.test import Client

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, PendingOrder

from .conftest import Writes, create_user, state_of
from .test_pending_orders import (
    ATTACKER,
    DEFENDER,
    battle_advances,
    defender_plays,
    submit,
    to_battle,
    whole_turn,
)


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def write(writes: Writes, client: Client, game: Game, text: str) -> tuple[int, str]:
    """POST ``text`` as the rest of the turn in ``game``; the status and the page it ends on."""
    data = {"later-game": game.pk, "later-lines": text}
    response = writes(lambda: client.post("/games/orders/pending/", data, follow=True))
    return response.status_code, response.content.decode()


def after_the_advance(writes: Writes) -> tuple[Game, dict[int, User], str, list[str]]:
    """Seat 0 has advanced on the page into the battle at ``t2``: its turn waits for the conflict cards.
    Returns the game, its users, the conflict line and the rest of the turn (support, end)."""
    game, users = to_battle(writes)
    _advance, conflict, rest = whole_turn(game)
    state = state_of(game)
    submit(writes, game, users[ATTACKER], battle_advances(state, ATTACKER)[-1])
    game.refresh_from_db()
    assert state_of(game).battle is not None
    return game, users, conflict, rest


@pytest.mark.django_db
def test_the_rest_of_a_turn_written_on_the_page_is_played_now_or_kept_and_played_later(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, conflict, rest = after_the_advance(writes)
    seq = game.seq
    mine = client_of(users[ATTACKER])
    detail = mine.get(f"/games/{game.pk}/").content.decode()
    assert "Write the rest of your turn now" in detail  # the game page leads there while the turn waits
    form = mine.get(f"/games/orders/?game={game.pk}").content.decode()
    assert f'<option value="{game.pk}" selected>' in form and 'name="later-lines"' in form
    status, page = write(writes, mine, game, "\n".join([conflict, *rest]))
    assert status == 200
    assert f"Played now: {conflict}." in page and f"Kept as your pending orders: {', '.join(rest)}." in page
    kept = list(PendingOrder.objects.filter(game=game).order_by("position"))
    assert [o.text for o in kept] == rest and {o.source for o in kept} == {"web"}
    assert f"<code>{rest[0]}</code>" in page
    defender_plays(writes, game, users)
    assert not PendingOrder.objects.filter(game=game).exists()
    mine_now = ActionRecord.objects.filter(game=game, seq__gt=seq, seat=ATTACKER).order_by("seq")
    kinds = [(r.payload["type"], r.source) for r in mine_now]
    assert kinds[0] == ("choose_conflict", "web") and kinds[-1] == ("end_turn", "web"), kinds
    # every move of the seat came from the page's lines, but the server's passes in response windows
    assert {source for _kind, source in kinds if source != "server"} == {"web"}
    game.refresh_from_db()
    state = state_of(game)
    assert state.active == DEFENDER or state.winners


@pytest.mark.django_db
def test_a_refused_line_shows_its_reason_and_nothing_after_it_is_applied_or_kept(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, conflict, _rest = after_the_advance(writes)
    seq = game.seq
    status, page = write(writes, client_of(users[ATTACKER]), game, f"advance Atlantis 3\n{conflict}\nend")
    assert status == 422
    assert "Line 1, “advance Atlantis 3”, was not applied" in page and "Nothing after it was applied." in page
    game.refresh_from_db()
    assert game.seq == seq and not PendingOrder.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_orders_for_later_are_refused_outside_the_players_own_turn_and_in_others_games(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, _conflict, rest = after_the_advance(writes)
    seq = game.seq
    status, page = write(writes, client_of(users[DEFENDER]), game, "\n".join(rest))
    assert status == 409 and "only during your own turn" in page
    stranger = client_of(create_user())
    status, page = write(writes, stranger, game, "end")
    assert status == 400  # not one of the stranger's games: the form does not offer it
    status, page = write(writes, client_of(users[ATTACKER]), game, "end\x00")
    assert status == 400
    status, page = write(writes, client_of(users[ATTACKER]), game, "   \n ")
    assert status == 400
    game.refresh_from_db()
    assert game.seq == seq and not PendingOrder.objects.filter(game=game).exists()
    assert state_of(game).battle is not None and engine.pending(state_of(game))
