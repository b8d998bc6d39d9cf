"""Random-playout driver with the invariants of issue 2 ("Random playouts"), shared by the fuzz tests,
the soak run and the benchmarks."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from games.engine import (
    Event,
    apply,
    card_id,
    current_options,
    dice_in_use,
    from_dict,
    legal_actions,
    new_game,
    pending,
    replay,
    state_hash,
    to_dict,
    view_for,
)
from games.engine.actions import Action
from games.engine.bot import choose
from games.engine.rng import Rng
from games.engine.state import GameState

from .event_shape import event_misfit

#: Playouts longer than this many turns are cut and counted (documented in docs/rules-coverage.md).
TURN_LIMIT = 300

_CARD_RE = re.compile(r"s\dc\d\d")

OPTION_COMBOS: list[dict[str, Any]] = [
    {},
    {"mayhem": True},
    {"cut_throat": True},
    {"skirmish": True},
    {"castle_siege": True},
    {"castle_siege": True, "mayhem": True, "cut_throat": True, "skirmish": True},
    {"mayhem": True, "cut_throat": True},
    {"fracture_prompts": "holders"},
    {"fracture_windows": "in_turn"},  # the rulebook's lap (issue 14)
    {"fracture_windows": "in_turn", "fracture_mask": [60, 600], "fracture_prompts": "holders"},
    {"rules_edition": 1},  # the reading of games stored before issue 14
    {"rules_edition": 1, "castle_siege": True, "mayhem": True},
]
ALLEGIANCE_COMBOS: list[tuple[int, dict[str, Any]]] = [
    (4, {"allegiance": "pairs"}),
    (6, {"allegiance": "pairs", "mayhem": True}),
    (6, {"allegiance": "triples", "cut_throat": True, "skirmish": True}),
    (4, {"allegiance": "pairs", "mayhem": True, "cut_throat": True, "skirmish": True}),
]


@dataclass
class PlayoutResult:
    """Outcome of one checked playout."""

    state: GameState
    history: list[tuple[int, Action]] = field(default_factory=list)
    finished: bool = False


def total_knights(state: GameState, seat: int) -> int:
    """Knights of ``seat`` on the map: castle + territories + attacking knights in a battle."""
    total = state.players[seat].castle + sum(
        k for o, k in zip(state.owner, state.knights, strict=True) if o == seat
    )
    if state.battle is not None and state.battle.attacker == seat:
        total += state.battle.att_knights
    return total


def check_invariants(before: GameState, after: GameState, events: list[Event]) -> None:
    """Assert the per-action invariants of issue 2, and that every event has the declared
    :class:`games.engine.Event` shape (issue 31 §1)."""
    for ev in events:
        assert event_misfit(ev) is None, event_misfit(ev)
    content = after.content
    n_cards = len(content.cards)
    for p in after.players:
        # Every player's 18 cards are accounted for: deck + hand + discard + in play (R2).
        table = [c for s, c in (after.battle.table if after.battle else []) if s == p.seat]
        cards = sorted(p.deck + p.hand + p.discard + table)
        assert cards == list(range(n_cards)), f"seat {p.seat} cards {cards}"
        assert len(p.discard) == len(p.discard_turns)
        # Knights conserved: the change equals gains minus losses reported in events (R15–R17).
        delta = 0
        for ev in events:
            if ev.get("seat") != p.seat:
                continue
            if ev["type"] == "knights_gained":
                delta += ev["knights"]
            elif ev["type"] in ("knights_lost", "cut_throat"):
                delta -= ev["knights"]
        assert total_knights(after, p.seat) == total_knights(before, p.seat) + delta, (p.seat, events)
        # Dice budget (R16).
        assert dice_in_use(after, p.seat) <= content.n("dice_per_player")
    disputed = after.battle.pos if after.battle is not None else -1
    for i, kind in enumerate(after.board.kinds):
        if kind != "territory":
            assert after.owner[i] == -1 and after.knights[i] == 0
            continue
        # Control is exclusive (R13): an owner iff knights, one owner per territory.
        assert (after.owner[i] >= 0) == (after.knights[i] > 0) or (i == disputed), (i, after.owner[i])
        assert after.knights[i] <= content.territory_types[after.tiles[i]].capacity
    if after.battle is not None:
        assert after.battle.att_knights <= max(
            content.territory_types[after.tiles[disputed]].capacity if not after.battle.castle else 0,
            content.n("siege_max_advance"),
        )


def check_views(state: GameState) -> None:
    """``view_for`` holds no card of another seat's hand or deck, nor anything of the RNG (R95)."""
    viewers: list[int | None] = [*range(state.num_players), None]
    for viewer in viewers:
        text = json.dumps(view_for(state, viewer))
        assert "seed" not in text and "rng" not in text
        seen = set(_CARD_RE.findall(text))
        for p in state.players:
            if p.seat == viewer:
                continue
            secret = {card_id(p.seat, c) for c in p.hand + p.deck}
            if state.battle is not None and not state.battle.revealed:
                secret |= {card_id(s, c) for s, c in state.battle.table if s == p.seat}
            ch = state.choice
            if ch is not None and ch.kind == "prosperity" and ch.seat == viewer and ch.target == p.seat:
                secret -= {card_id(p.seat, c) for c in ch.cards}  # the looker's own look (R97)
            leaked = seen & secret
            assert not leaked, f"viewer {viewer} sees {leaked} of seat {p.seat}"


def playout(
    setup: dict[str, Any],
    bot_seed: int,
    *,
    check: bool = True,
    roundtrip_every: int = 1,
    views_every: int = 25,
    turn_limit: int = TURN_LIMIT,
) -> PlayoutResult:
    """Play one seeded random game driven by ``legal_actions``, checking invariants after every action
    (newest rules unless ``setup``'s options say otherwise)."""
    setup = {**setup, "options": {**current_options(), **(setup.get("options") or {})}}
    state = new_game(setup)
    rng = Rng(bot_seed)
    result = PlayoutResult(state)
    step = 0
    while state.turn <= turn_limit:
        prompts = pending(state)
        if not prompts:
            result.finished = True
            break
        seat = prompts[rng.below(len(prompts))].seat
        if check:
            assert legal_actions(state, seat), f"seat {seat} prompted without legal actions"
            for other in range(state.num_players):
                if other not in {p.seat for p in prompts}:
                    assert not legal_actions(state, other)
        action = choose(state, seat, rng)
        assert action is not None
        transition = apply(state, seat, action)
        if check:
            check_invariants(state, transition.state, transition.events)
            if step % roundtrip_every == 0:
                assert from_dict(to_dict(transition.state)) == transition.state
                json.dumps(to_dict(transition.state))
            if step % views_every == 0:
                check_views(transition.state)
                for prompt in pending(transition.state):  # every timeout action is legal when it fires
                    apply(transition.state, prompt.seat, prompt.timeout_action)
        state = transition.state
        result.history.append((seat, action))
        step += 1
    result.state = state
    if check:
        replayed = replay(setup, result.history)
        assert state_hash(replayed) == state_hash(state)
        assert replayed == state
    return result
