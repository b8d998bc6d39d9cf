"""Who must decide now (:func:`pending`) and what they may do (:func:`legal_actions`).

Timeout policy (issue 2, documented in ``docs/game-record.md``): every prompt names the action applied if
its deadline passes — response window: pass; conflict choice: the lowest-value conflict card held (an
Ambush counts as its mean, 3.5); support alternation: pass; optional steps (decline an advance, finish the
Vitality redistribution, may-discard: keep, Insight: keep the order, Prosperity: leave the card, Fear /
Vigour: do not use); the turn itself: end it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

from . import actions as A
from .rules import (
    _crown_of,
    _face_up,
    _order_candidates,
    advance_targets,
    ceil_div,
    current_phase,
    dice_in_use,
    supplied,
)
from .state import UNCHOSEN, GameState


@dataclass(frozen=True, slots=True)
class Prompt:
    """A decision the game waits for.

    Attributes:
        seat: who decides (0..n-1).
        kind: ``turn``, ``manoeuvre``, ``vitality``, ``response`` (Fracture window), ``conflict``,
            ``support``, or a choice: ``may_discard``, ``insight_order``, ``prosperity``, ``fear``.
        deadline: ``turn`` for the active player's own decisions, ``response`` for everyone else's.
        timeout_action: the action applied when the deadline passes.
        key: stable id of this decision while it stays open, e.g. ``"12:response:3"``; every turn-level
            prompt of one turn shares ``"t<turn>:turn:<seat>"`` so the turn runs on one clock.
        detail: JSON-safe extra facts for forms and emails (e.g. window kind and targets).
    """

    seat: int
    kind: str
    deadline: str
    timeout_action: A.Action
    key: str
    detail: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "seat": self.seat,
            "kind": self.kind,
            "deadline": self.deadline,
            "timeout_action": self.timeout_action.to_dict(),
            "key": self.key,
            "detail": dict(self.detail),
        }


def _conflict_timeout(state: GameState, seat: int) -> A.Action:
    cards = state.content.cards
    hand = [c for c in state.players[seat].hand if cards[c].kind == "conflict"]
    best = min(hand, key=lambda c: (7 if cards[c].ambush else 2 * int(cards[c].value or 0), c))
    return A.ChooseConflict(A.card_id(seat, best))


def pending(state: GameState) -> list[Prompt]:
    """Return every decision the game is waiting for (several at once for windows and conflict cards).

    Returns:
        Prompts sorted by seat; empty when the game is over.
    """
    if state.winners:
        return []
    w = state.window
    if w is not None:
        return [
            Prompt(
                seat,
                "response",
                "response",
                A.Respond(()),
                f"{w.serial}:response:{seat}",
                {"window": w.kind, "opener": w.opener, "targets": list(w.targets)},
            )
            for seat, answer in zip(w.asked, w.answers, strict=True)
            if answer is None
        ]
    ch = state.choice
    if ch is not None:
        timeout: A.Action
        if ch.kind == "may_discard":
            timeout = A.DiscardChoice(None)
        elif ch.kind == "insight_order":
            timeout = A.InsightOrder(tuple(A.card_id(ch.seat, c) for c in ch.cards))
        elif ch.kind == "prosperity":
            timeout = A.ProsperityChoice(False)
        else:
            timeout = A.FearChoice(False)
        deadline = "turn" if ch.seat == state.active else "response"
        return [
            Prompt(
                ch.seat, ch.kind, deadline, timeout, f"{ch.serial}:{ch.kind}:{ch.seat}", {"source": ch.source}
            )
        ]
    b = state.battle
    if b is not None:
        if b.stage == "conflict":
            return [
                Prompt(
                    seat,
                    "conflict",
                    "turn" if seat == state.active else "response",
                    _conflict_timeout(state, seat),
                    f"{b.serial}:conflict:{seat}",
                    {},
                )
                for side, seat in sorted(enumerate((b.attacker, b.defender)), key=lambda x: x[1])
                if b.conflict[side] == UNCHOSEN
            ]
        if b.stage == "support":
            seat = b.support_order[b.support_turn]
            return [
                Prompt(
                    seat,
                    "support",
                    "turn" if seat == state.active else "response",
                    A.PassSupport(),
                    f"{b.serial}:support:{seat}:{b.support_passes}:{len(b.table)}",
                    {},
                )
            ]
        return []
    # One key per turn for every turn-level prompt, so a turn has one clock however many steps it takes
    # (the timeout action follows the current step: decline the advance, finish Vitality, end the turn).
    seat = state.active
    key = f"t{state.turn}:turn:{seat}"
    if state.phase == "manoeuvre":
        return [Prompt(seat, "manoeuvre", "turn", A.DeclineAdvance(), key, {})]
    if state.phase == "vitality":
        return [Prompt(seat, "vitality", "turn", A.FinishRedistribution(), key, {})]
    return [Prompt(seat, "turn", "turn", A.EndTurn(), key, {})]


def _redistribution_moves(state: GameState, seat: int) -> list[A.Action]:
    """Single-knight moves that keep the redistribution legal (R43–R46, R16); any legal outcome is reached
    by a sequence of them (the atomic multi-move form stays available to clients)."""
    sup = sorted(supplied(state, seat))
    castle = state.players[seat].castle
    kpd = state.content.n("knights_per_die")
    budget = state.content.n("dice_per_player")
    dice = dice_in_use(state, seat)
    types = state.content.territory_types
    counts = {-1: castle, **{t: state.knights[t] for t in sup}}
    out: list[A.Action] = []
    for src, have in counts.items():
        if have < (1 if src == -1 else 2):
            continue
        for dst, there in counts.items():
            if dst == src:
                continue
            if dst != -1 and there + 1 > types[state.tiles[dst]].capacity:
                continue
            delta = (
                ceil_div(have - 1, kpd)
                - ceil_div(have, kpd)
                + ceil_div(there + 1, kpd)
                - ceil_div(there, kpd)
            )
            if dice + delta > budget:
                continue
            out.append(A.Redistribute((A.Move(_loc(state, src), _loc(state, dst), 1),)))
    return out


def _loc(state: GameState, pos: int) -> str:
    return "castle" if pos == -1 else state.board.pos_id(pos)


def _advances(state: GameState, seat: int) -> list[A.Action]:
    """Every legal advance (R52–R55, R112, R16), computed without re-running the supply search."""
    out: list[A.Action] = []
    castle = state.players[seat].castle
    if castle < 1:
        return out
    c = state.content
    kpd = c.n("knights_per_die")
    budget = c.n("dice_per_player")
    other = dice_in_use(state, seat) - ceil_div(castle, kpd)
    for pos in advance_targets(state, seat):
        pid = state.board.pos_id(pos)
        if state.board.kinds[pos] == "castle":
            limit = c.n("siege_max_advance")
        else:
            limit = c.territory_types[state.tiles[pos]].capacity
        for n in range(1, min(castle, limit) + 1):
            if other + ceil_div(castle - n, kpd) + ceil_div(n, kpd) <= budget:
                out.append(A.Advance(pid, n))
    return out


def _crown_uses(state: GameState, seat: int) -> list[A.Action]:
    crown = _crown_of(state, seat)
    if crown is None or not crown.face_up or state.crown_used:
        return []
    ability = state.content.artefacts[crown.id].ability
    if ability == "corruption":
        return [
            A.UseCrown(player=p.seat, artefact=a.id)
            for p in state.players
            for a in p.artefacts
            if a.face_up and a.id != crown.id
        ]
    if ability == "prosperity":
        return [A.UseCrown(player=p.seat) for p in state.players]
    if ability == "order":
        cands = sorted(set(_order_candidates(state, seat)))
        return [A.UseCrown(card=A.card_id(seat, c)) for c in cands] or [A.UseCrown()]
    return [A.UseCrown()]


def _support_sets(state: GameState, seat: int) -> list[A.Action]:
    """Every distinct multiset of support values one may play at once (plus passing)."""
    cards = state.content.cards
    by_value: dict[int, list[int]] = {}
    for c in state.players[seat].hand:
        if cards[c].kind == "support":
            by_value.setdefault(int(cards[c].value or 0), []).append(c)
    combos: list[list[int]] = [[]]
    for _value, group in sorted(by_value.items()):
        combos = [combo + group[:k] for combo in combos for k in range(len(group) + 1)]
    out: list[A.Action] = [A.PassSupport()]
    out.extend(A.PlaySupport(tuple(A.card_id(seat, c) for c in combo)) for combo in combos if combo)
    return out


def legal_actions(state: GameState, seat: int) -> list[A.Action]:
    """Return a finite list of complete actions ``seat`` may take now, enough to reach every legal outcome.

    Redistribution is offered as single-knight moves (repeatable before the advance); Fracture answers as
    single targets or a pass; support plays as every distinct multiset of values.

    Returns:
        ``[]`` when the seat has no decision to make.
    """
    if state.winners:
        return []
    cards = state.content.cards
    fracture = state.content.effect_index["fracture"]
    hand = state.players[seat].hand
    w = state.window
    if w is not None:
        if seat not in w.asked or w.answers[w.asked.index(seat)] is not None:
            return []
        out: list[A.Action] = [A.Respond(())]
        if fracture in hand:
            out.extend(A.Respond((t,)) for t in w.targets if _owner(state, t) != seat and _face_up(state, t))
        return out
    ch = state.choice
    if ch is not None:
        if ch.seat != seat:
            return []
        if ch.kind == "may_discard":
            keep: list[A.Action] = [A.DiscardChoice(None)]
            return keep + [A.DiscardChoice(A.card_id(seat, c)) for c in sorted(set(hand))]
        if ch.kind == "insight_order":
            return [
                A.InsightOrder(tuple(A.card_id(seat, c) for c in perm)) for perm in permutations(ch.cards)
            ]
        if ch.kind == "prosperity":
            return [A.ProsperityChoice(False), A.ProsperityChoice(True)]
        return [A.FearChoice(False), A.FearChoice(True)]
    b = state.battle
    if b is not None:
        if b.stage == "conflict":
            side = b.side(seat)
            if side < 0 or b.conflict[side] != UNCHOSEN:
                return []
            return [
                A.ChooseConflict(A.card_id(seat, c)) for c in sorted(set(hand)) if cards[c].kind == "conflict"
            ]
        if b.stage == "support" and b.support_order[b.support_turn] == seat:
            return _support_sets(state, seat)
        return []
    if seat != state.active:
        return []
    phase = current_phase(state)
    if phase == "vitality":
        return [A.FinishRedistribution(), *_redistribution_moves(state, seat)]
    if phase == "manoeuvre":
        return [A.DeclineAdvance(), *_advances(state, seat), *_redistribution_moves(state, seat)]
    out = [A.EndTurn()]
    effects = state.content.effect_index
    if effects["call_to_arms"] in hand:
        out.append(A.CallToArms())
    if effects["tactical_advance"] in hand:
        out.append(A.TacticalAdvance())
    if fracture in hand:
        out.extend(
            A.Fracture(a.id) for p in state.players if p.seat != seat for a in p.artefacts if a.face_up
        )
    out.extend(_crown_uses(state, seat))
    if state.manoeuvres_left > 0:
        out.extend(_advances(state, seat))
        out.extend(_redistribution_moves(state, seat))
    return out


def _owner(state: GameState, art_id: str) -> int:
    for p in state.players:
        if p.artefact(art_id) is not None:
            return p.seat
    return -1
