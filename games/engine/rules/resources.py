"""Cards and knights (R32–R35, R98–R102, R16): drawing, Authority, discarding, reshuffling, gaining
knights; and the action families of the resource cards Call to Arms and Tactical Advance and of the
optional discard (``may_discard`` choice). Fracture lives with the response windows (:mod:`.windows`)."""

from __future__ import annotations

from .. import actions as A
from ..errors import ErrorCode, IllegalAction
from ..kinds import EventType, Phase, PromptKind
from ..state import GameState
from .core import Tx, choice_for, hand_card, require_turn, resume
from .quantities import castle_room


def reshuffle(tx: Tx, seat: int) -> None:
    """R99: the whole discard pile becomes the new deck, shuffled; discard turns are cleared (R101)."""
    p = tx.p(seat)
    cards = p.discard
    p.discard, p.discard_turns = [], []
    tx.rng.shuffle(cards)
    p.deck = cards + p.deck
    tx.emit(EventType.RESHUFFLE, seat=seat, cards=len(cards))


def _draw_one(tx: Tx, seat: int) -> int | None:
    p = tx.p(seat)
    if not p.deck:
        if not p.discard:
            return None
        reshuffle(tx, seat)
    card = p.deck.pop()
    p.hand.append(card)
    return card


def draw(tx: Tx, seat: int, count: int, target: int | None = None) -> None:
    """Draw ``count`` cards (or up to ``target`` cards in hand, R100), then play Authority if it came in
    (R33, Q30): Authority is revealed, 2 more cards are drawn, then it is discarded. Stops early when the
    deck and discard pile are both empty."""
    drawn: list[int] = []
    if target is not None:
        while len(tx.s.players[seat].hand) < target:
            card = _draw_one(tx, seat)
            if card is None:
                break
            drawn.append(card)
    else:
        for _ in range(count):
            card = _draw_one(tx, seat)
            if card is None:
                break
            drawn.append(card)
    if drawn:
        tx.emit(
            EventType.DRAW,
            seat=seat,
            count=len(drawn),
            private={seat: {"cards": [A.card_id(seat, c) for c in drawn]}},
        )
    authority = tx.c.effect_index["authority"]
    if authority in drawn:
        p = tx.p(seat)
        p.hand.remove(authority)
        tx.emit(
            EventType.CARD_PLAYED, seat=seat, card=A.card_id(seat, authority), name=tx.c.cards[authority].name
        )
        draw(tx, seat, tx.c.n("authority_draw"))
        discard(tx, seat, authority)


def discard(tx: Tx, seat: int, card: int) -> None:
    """Put ``card`` (deck index) on its owner's discard pile with the current turn (R98, R101)."""
    p = tx.p(seat)
    p.discard.append(card)
    p.discard_turns.append(tx.s.turn)


def discard_from_hand(tx: Tx, seat: int, card: int, reason: str) -> None:
    """Discard ``card`` from ``seat``'s hand and announce it (R98, R102)."""
    tx.p(seat).hand.remove(card)
    discard(tx, seat, card)
    tx.emit(
        EventType.DISCARD, seat=seat, card=A.card_id(seat, card), name=tx.c.cards[card].name, reason=reason
    )


def random_discard(tx: Tx, seat: int, reason: str) -> None:
    """R102: discard one card chosen uniformly at random (nothing if the hand is empty, Q32)."""
    hand = tx.s.players[seat].hand
    if hand:
        discard_from_hand(tx, seat, hand[tx.rng.below(len(hand))], reason)


def gain(tx: Tx, seat: int, count: int, reason: str) -> None:
    """Add ``count`` knights to the castle one by one; a knight needing an 11th die is lost (R16, R10)."""
    gained = min(count, castle_room(tx.s, seat))
    tx.p(seat).castle += gained
    tx.emit(EventType.KNIGHTS_GAINED, seat=seat, knights=gained, lost=count - gained, reason=reason)


# -- Call to Arms and Tactical Advance (R32, R34, R35) ------------------------------------------------


def _reveal_resource(tx: Tx, actor: int, effect: str) -> int:
    """R32, R34, R35: check that the active player may play resource card ``effect`` now (own free window)
    and holds it, then take it from the hand and reveal it. The caller resolves it, then discards it."""
    require_turn(tx.s, actor, Phase.WINDOW)
    card = tx.c.effect_index[effect]
    if card not in tx.s.players[actor].hand:
        raise IllegalAction(ErrorCode.CARD_NOT_IN_HAND, card=A.card_id(actor, card))
    tx.p(actor).hand.remove(card)
    tx.emit(EventType.CARD_PLAYED, seat=actor, card=A.card_id(actor, card), name=tx.c.cards[card].name)
    return card


def h_call_to_arms(tx: Tx, actor: int, action: A.Action) -> None:
    """Play Call to Arms: +2 knights in the castle within the dice budget (R34, R16).

    Raises:
        IllegalAction: not the actor's free window, or the card is not in hand.
    """
    card = _reveal_resource(tx, actor, "call_to_arms")
    gain(tx, actor, tx.c.n("call_to_arms_knights"), "call_to_arms")
    discard(tx, actor, card)


def h_tactical_advance(tx: Tx, actor: int, action: A.Action) -> None:
    """Play Tactical Advance: one more manoeuvre this turn (R35, Q24).

    Raises:
        IllegalAction: not the actor's free window, or the card is not in hand.
    """
    card = _reveal_resource(tx, actor, "tactical_advance")
    tx.s.manoeuvres_left += 1
    discard(tx, actor, card)


def resource_options(state: GameState, seat: int) -> list[A.Action]:
    """Resource cards ``seat`` may play in its free window (R34, R35); the caller checks the phase."""
    effects = state.content.effect_index
    hand = state.players[seat].hand
    out: list[A.Action] = []
    if effects["call_to_arms"] in hand:
        out.append(A.CallToArms())
    if effects["tactical_advance"] in hand:
        out.append(A.TacticalAdvance())
    return out


# -- "May discard any 1 card" (R102; Fury, Ruins/Abbey/Fortress, Preparation, Cleansing) ---------------


def h_discard_choice(tx: Tx, actor: int, action: A.Action) -> None:
    """Answer a ``may_discard`` choice: discard one card of the hand, or keep all (``card=None``) (R102).

    Raises:
        IllegalAction: no such choice for ``actor`` (``WRONG_PHASE`` / ``NOT_YOUR_DECISION``), or the card
            is not in the hand.
    """
    assert isinstance(action, A.DiscardChoice)
    ch = choice_for(tx.s, actor, PromptKind.MAY_DISCARD)
    card = None if action.card is None else hand_card(tx.s, actor, action.card)
    resume(tx, ch)
    if card is None:
        tx.emit(EventType.DISCARD_DECLINED, seat=actor, reason=ch.source)
    else:
        discard_from_hand(tx, actor, card, ch.source)


def discard_options(state: GameState, seat: int) -> list[A.Action]:
    """Answers to a ``may_discard`` choice of ``seat``: keep, or each distinct card in hand (R102)."""
    keep: list[A.Action] = [A.DiscardChoice(None)]
    return keep + [A.DiscardChoice(A.card_id(seat, c)) for c in sorted(set(state.players[seat].hand))]
