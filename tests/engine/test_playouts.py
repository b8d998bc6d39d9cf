"""Random playouts across 2–6 players and option combinations, checking the invariants of issue 2 after
every action (see tests/engine/harness.py). CI runs a few hundred games; ``make soak`` runs thousands."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import new_game

from .harness import ALLEGIANCE_COMBOS, OPTION_COMBOS, TURN_LIMIT, playout

#: CI's share: 24 games x 56 cases = 1,344 checked games (about a minute on 2 cores); `make soak` plays 3,000.
GAMES_PER_CASE = 24

CASES: list[tuple[int, dict[str, Any]]] = [
    (p, o) for p in range(2, 7) for o in OPTION_COMBOS
] + ALLEGIANCE_COMBOS


def _label(case: tuple[int, dict[str, Any]]) -> str:
    players, options = case
    return f"{players}p-" + ("+".join(f"{k}={v}" for k, v in sorted(options.items())) or "basic")


@pytest.mark.parametrize("case", CASES, ids=[_label(c) for c in CASES])
def test_seeded_playouts_keep_every_invariant(case: tuple[int, dict[str, Any]]) -> None:
    """R13, R15–R17, R2, R95, R99, R103: random legal play keeps knights and cards accounted for, the dice
    budget and capacities respected, control exclusive, views free of others' secrets; replay and the
    canonical round trip reproduce the live state; games end (or hit the documented turn limit)."""
    players, options = case
    finished = 0
    for k in range(GAMES_PER_CASE):
        setup = {"players": players, "seed": 10_000 + 97 * k + players, "options": options}
        result = playout(setup, bot_seed=31 * k + 7, roundtrip_every=4, views_every=9)
        finished += result.finished
        assert result.finished or result.state.turn > TURN_LIMIT
    assert finished >= GAMES_PER_CASE - 1, (
        f"only {finished}/{GAMES_PER_CASE} games ended by turn {TURN_LIMIT}"
    )


def test_abbey_content_set_plays() -> None:
    """R86, Q17: the SV/PL Abbey reading is a selectable content set and plays to the end."""
    setup = {"players": 3, "seed": 5, "content": "abbey"}
    assert new_game(setup).content.territory_types["abbey"].on_conquest == ("place_knight", "may_discard")
    assert playout(setup, bot_seed=5).finished


@pytest.mark.soak
def test_soak_thousands_of_games() -> None:
    """Soak: 3,000 seeded games over every case, invariants checked after every action."""
    cut = 0
    for k in range(3000):
        players, options = CASES[k % len(CASES)]
        result = playout(
            {"players": players, "seed": 500_000 + k, "options": options},
            bot_seed=k,
            roundtrip_every=10,
            views_every=20,
        )
        cut += not result.finished
    assert cut < 30, f"{cut} games hit the turn limit"


def _legal_combinations() -> list[tuple[int, dict[str, Any]]]:
    """Every legal combination of the five optional rules for every player count (R105, Q28)."""
    out: list[tuple[int, dict[str, Any]]] = []
    for players in range(2, 7):
        teams: list[str | None] = [None]
        if players in (4, 6):
            teams.append("pairs")
        if players == 6:
            teams.append("triples")
        for allegiance in teams:
            for bits in range(16):
                siege, cut, skirmish, mayhem = (bool(bits & (1 << i)) for i in range(4))
                if allegiance and siege:
                    continue
                options = {"castle_siege": siege, "cut_throat": cut, "skirmish": skirmish, "mayhem": mayhem}
                out.append((players, {"allegiance": allegiance, **options}))
    return out


def test_every_legal_option_combination_plays_to_the_end() -> None:
    """R105, R112, R116–R118, Q28: all 104 legal combinations of the optional rules (for 2–6 players) set up
    and play to the end with the invariants checked."""
    combos = _legal_combinations()
    assert len(combos) == 104
    for k, (players, options) in enumerate(combos):
        result = playout(
            {"players": players, "seed": 70_000 + k, "options": options}, bot_seed=k, views_every=15
        )
        assert result.finished or result.state.turn > TURN_LIMIT
