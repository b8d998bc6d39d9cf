"""Crowns (R39–R42, R90, R101): announcing a crown use (which opens a response window), applying it
once the window closes, and the choices some crowns leave open (Insight order, Prosperity). Sceptres and
orbs apply during battle (:mod:`.battle`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from typing import Any

from .. import actions as A
from ..errors import ErrorCode, IllegalAction
from ..kinds import EventType, Phase, PromptKind
from ..state import Artefact, Choice, GameState, Window
from .core import Tx, choice_for, destroy_artefact, face_up, require_turn, resume
from .resources import discard, reshuffle
from .windows import open_window


def crown_of(state: GameState, seat: int) -> Artefact | None:
    """The crown artefact ``seat`` holds (R20), face up or not; ``None`` if it holds none."""
    for art in state.players[seat].artefacts:
        if state.content.artefacts[art.id].type == "crown":
            return art
    return None


def crown_unavailable(state: GameState, crown: Artefact | None) -> ErrorCode | None:
    """Why the active seat may not use ``crown`` (its :func:`crown_of`) now, or ``None`` if it may
    (R39: face up, once per turn)."""
    if crown is None or not crown.face_up:
        return ErrorCode.CROWN_UNAVAILABLE
    if state.crown_used:
        return ErrorCode.CROWN_ALREADY_USED
    return None


def order_candidates(state: GameState, seat: int) -> list[int]:
    """Cards (deck indices) of ``seat``'s discard pile discarded on a previous turn (R101, Q11)."""
    p = state.players[seat]
    return [c for c, t in zip(p.discard, p.discard_turns, strict=True) if t < state.turn]


def corruptible(art: Artefact | None, crown_id: str) -> bool:
    """Whether the Crown of Corruption ``crown_id`` may target ``art``: any face-up artefact but
    itself (R41, Q31)."""
    return art is not None and art.face_up and art.id != crown_id


def corruption_targets(state: GameState, crown_id: str) -> list[tuple[int, str]]:
    """``(owner seat, artefact id)`` of every artefact the Corruption crown may target (R41, Q31)."""
    return [(p.seat, a.id) for p in state.players for a in p.artefacts if corruptible(a, crown_id)]


def _check_target(state: GameState, action: A.UseCrown, crown_id: str, ability: str) -> dict[str, Any]:
    """Check the player/artefact fields of a crown use; return them as window arguments (R41, Q31)."""
    bad = IllegalAction(ErrorCode.CROWN_BAD_CHOICE, ability=ability)
    wants_player = ability in ("corruption", "prosperity")
    if wants_player != (action.player is not None):
        raise bad
    if action.player is not None and not 0 <= action.player < state.num_players:
        raise bad
    if (action.artefact is not None) != (ability == "corruption"):
        raise bad
    if ability == "corruption":
        assert action.player is not None and action.artefact is not None
        if not corruptible(state.players[action.player].artefact(action.artefact), crown_id):
            raise bad
        return {"player": action.player, "artefact": action.artefact}
    if ability == "prosperity":
        return {"player": action.player}
    return {}


def _check_card(state: GameState, actor: int, action: A.UseCrown, ability: str) -> dict[str, Any]:
    """Check the card field of a crown use (Order only, R41, R101); return it as window arguments."""
    if ability != "order":
        if action.card is not None:
            raise IllegalAction(ErrorCode.CROWN_BAD_CHOICE, ability=ability)
        return {}
    candidates = order_candidates(state, actor)
    if action.card is None:
        if candidates:
            raise IllegalAction(ErrorCode.CROWN_BAD_CHOICE, ability=ability)
        return {}
    parsed = A.parse_card_id(action.card)
    if parsed is None or parsed[0] != actor or parsed[1] not in candidates:
        raise IllegalAction(ErrorCode.CROWN_BAD_CHOICE, ability=ability, card=action.card, rule="R101")
    return {"card": parsed[1]}


def check_crown_use(state: GameState, actor: int, action: A.UseCrown) -> tuple[Artefact, dict[str, Any]]:
    """Validate a crown use by ``actor`` (R39–R41, R101, Q31).

    Returns:
        ``(the crown, window arguments)``: ``ability`` plus ``player`` / ``artefact`` / ``card`` (deck
        index) as the ability needs.

    Raises:
        IllegalAction: not the actor's free window, crown destroyed or already used (R39), or a choice
            that does not fit the ability (``CROWN_BAD_CHOICE``).
    """
    require_turn(state, actor, Phase.WINDOW)
    crown = crown_of(state, actor)
    problem = crown_unavailable(state, crown)
    if problem is not None:
        raise IllegalAction(problem, rule="R39")
    assert crown is not None
    ability = state.content.artefacts[crown.id].ability
    args: dict[str, Any] = {"ability": ability}
    args.update(_check_target(state, action, crown.id, ability))
    args.update(_check_card(state, actor, action, ability))
    return crown, args


def h_use_crown(tx: Tx, actor: int, action: A.Action) -> None:
    """Announce a crown use; it applies when its response window closes unfractured (R39–R41, R37).

    Raises:
        IllegalAction: see :func:`check_crown_use`.
    """
    assert isinstance(action, A.UseCrown)
    crown, args = check_crown_use(tx.s, actor, action)
    tx.s.crown_used = True
    tx.emit(
        EventType.CROWN_ANNOUNCED,
        seat=actor,
        crown=crown.id,
        ability=args["ability"],
        player=args.get("player"),
        target=args.get("artefact"),
    )
    open_window(tx, "crown", actor, [crown.id], args)


def crown_options(state: GameState, seat: int) -> list[A.Action]:
    """Crown uses open to ``seat`` in its free window (R39–R41); the caller checks the phase."""
    crown = crown_of(state, seat)
    if crown is None or crown_unavailable(state, crown) is not None:
        return []
    ability = state.content.artefacts[crown.id].ability
    if ability == "corruption":
        return [A.UseCrown(player=p, artefact=a) for p, a in corruption_targets(state, crown.id)]
    if ability == "prosperity":
        return [A.UseCrown(player=p.seat) for p in state.players]
    if ability == "order":
        cands = sorted(set(order_candidates(state, seat)))
        return [A.UseCrown(card=A.card_id(seat, c)) for c in cands] or [A.UseCrown()]
    return [A.UseCrown()]


# -- Applying a crown once its window closes (R41) ------------------------------------------------------


def _corruption(tx: Tx, seat: int, args: dict[str, Any]) -> None:
    target = str(args["artefact"])
    if face_up(tx.s, target):
        destroy_artefact(tx, target, seat, "corruption")


def _fury(tx: Tx, seat: int, args: dict[str, Any]) -> None:
    if tx.s.players[seat].hand:
        tx.s.choice = Choice(seat, PromptKind.MAY_DISCARD, "fury", "window", serial=tx.next_serial())


def _insight(tx: Tx, seat: int, args: dict[str, Any]) -> None:
    s = tx.s
    look = tx.c.n("insight_look")
    if len(s.players[seat].deck) < look and s.players[seat].discard:
        p = tx.p(seat)
        under = p.discard
        p.discard, p.discard_turns = [], []
        tx.rng.shuffle(under)
        p.deck = under + p.deck  # R41: shuffled discard goes *under* the remaining deck
        tx.emit(EventType.RESHUFFLE, seat=seat, cards=len(under), under=True)
    deck = s.players[seat].deck
    seen = deck[-look:][::-1]
    if seen:
        s.choice = Choice(
            seat, PromptKind.INSIGHT_ORDER, "insight", "window", cards=seen, serial=tx.next_serial()
        )


def _order(tx: Tx, seat: int, args: dict[str, Any]) -> None:
    card = args.get("card")
    if card is not None:
        p = tx.p(seat)
        idx = p.discard.index(int(card))
        p.discard.pop(idx)
        p.discard_turns.pop(idx)
        p.deck.append(int(card))
        tx.rng.shuffle(p.deck)
        tx.emit(
            EventType.CARD_RETURNED,
            seat=seat,
            card=A.card_id(seat, int(card)),
            name=tx.c.cards[int(card)].name,
        )


def _prosperity(tx: Tx, seat: int, args: dict[str, Any]) -> None:
    s = tx.s
    victim = int(args["player"])
    if not s.players[victim].deck and s.players[victim].discard:
        reshuffle(tx, victim)  # Q26
    deck = s.players[victim].deck
    if deck:
        s.choice = Choice(
            seat,
            PromptKind.PROSPERITY,
            "prosperity",
            "window",
            cards=[deck[-1]],
            target=victim,
            serial=tx.next_serial(),
        )


def _vitality(tx: Tx, seat: int, args: dict[str, Any]) -> None:
    tx.s.phase = Phase.VITALITY
    tx.next_serial()


_CROWN_EFFECTS: dict[str, Callable[[Tx, int, dict[str, Any]], None]] = {
    "corruption": _corruption,
    "fury": _fury,
    "insight": _insight,
    "order": _order,
    "prosperity": _prosperity,
    "vitality": _vitality,
}


def crown_window_closed(tx: Tx, window: Window, survivors: list[str]) -> None:
    """Apply the announced crown use of a closed crown window, unless Fracture destroyed the crown
    (R37, R41)."""
    if not survivors:
        tx.emit(EventType.CROWN_NEGATED, seat=window.opener, artefact=window.targets[0])
        return
    args = window.crown
    seat = tx.s.active
    ability = str(args["ability"])
    tx.emit(EventType.CROWN_APPLIED, seat=seat, ability=ability)
    effect = _CROWN_EFFECTS.get(ability)
    if effect is not None:
        effect(tx, seat, args)


# -- Crown choices: Insight order and Prosperity (R41, Q26) ------------------------------------------------


def h_insight_order(tx: Tx, actor: int, action: A.Action) -> None:
    """Put the cards seen with the Crown of Insight back in the given order, top first (R41).

    Raises:
        IllegalAction: no Insight choice for ``actor``, or ``BAD_ORDER`` (not exactly the seen cards).
    """
    assert isinstance(action, A.InsightOrder)
    ch = choice_for(tx.s, actor, PromptKind.INSIGHT_ORDER)
    order: list[int] = []
    for cid in action.order:
        parsed = A.parse_card_id(cid)
        if parsed is None or parsed[0] != actor:
            raise IllegalAction(ErrorCode.BAD_ORDER, card=cid)
        order.append(parsed[1])
    if sorted(order) != sorted(ch.cards):
        raise IllegalAction(ErrorCode.BAD_ORDER, rule="R41")
    resume(tx, ch)
    p = tx.p(actor)
    k = len(order)
    p.deck = p.deck[: len(p.deck) - k] + order[::-1]
    tx.emit(EventType.INSIGHT_DONE, seat=actor, cards=k)


def insight_options(state: GameState, seat: int) -> list[A.Action]:
    """Every order of the cards ``seat`` saw with Insight (R41); the caller checks the choice is its."""
    assert state.choice is not None
    return [
        A.InsightOrder(tuple(A.card_id(seat, c) for c in perm)) for perm in permutations(state.choice.cards)
    ]


def h_prosperity(tx: Tx, actor: int, action: A.Action) -> None:
    """Crown of Prosperity: discard the looked-at top card of the target's deck, or leave it (R41).

    Raises:
        IllegalAction: no Prosperity choice for ``actor``.
    """
    assert isinstance(action, A.ProsperityChoice)
    ch = choice_for(tx.s, actor, PromptKind.PROSPERITY)
    resume(tx, ch)
    if action.discard:
        p = tx.p(ch.target)
        card = p.deck.pop()
        discard(tx, ch.target, card)
        tx.emit(
            EventType.DISCARD,
            seat=ch.target,
            card=A.card_id(ch.target, card),
            name=tx.c.cards[card].name,
            reason="prosperity",
        )
    else:
        tx.emit(EventType.PROSPERITY_KEPT, seat=actor, target=ch.target)


def prosperity_options(state: GameState, seat: int) -> list[A.Action]:
    """Answers to a Prosperity choice: leave the card, or discard it (R41)."""
    return [A.ProsperityChoice(False), A.ProsperityChoice(True)]
