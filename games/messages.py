"""Translated wording of the engine's and the services' refusals (architecture §2: human wording lives
outside the engine, keyed by the stable :class:`games.engine.ErrorCode`).

The engine raises ``IllegalAction(code, rule=..., ...)``; the service turns it into
``games.services.Illegal`` whose ``params`` carry ``engine_code`` and the engine's parameters. Pages show
:func:`illegal_message`, which names the rule that stopped the move ("… — R46", ui.md "Errors teach").

The services raise their other errors with a stable English message (the JSON API returns it as is);
pages show :func:`service_message`, its translation. Setup errors of the engine (``ContentError``) that a
form can provoke are translated by :func:`content_message`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import SupportsIndex, SupportsInt

from django.utils import timezone
from django.utils.functional import Promise
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine import Barrier

#: Engine error code -> (sentence, the rule cited when the engine gives none).
ENGINE_MESSAGES: dict[str, tuple[Promise, str]] = {
    "game_over": (gettext_lazy("The game is over; no more moves can be made."), "R103"),
    "not_your_decision": (gettext_lazy("It is not your decision to make right now."), "R27"),
    "wrong_phase": (gettext_lazy("That move is not possible at this point of the turn."), "R27"),
    "already_answered": (gettext_lazy("You have already answered this decision."), "R37"),
    "card_not_in_hand": (gettext_lazy("That card is not in your hand."), "R95"),
    "card_wrong_kind": (gettext_lazy("That card cannot be played here: wrong kind of card."), "R67"),
    "no_fracture_in_hand": (
        gettext_lazy("You need a Fracture card in your hand to fracture an artefact."),
        "R36",
    ),
    "invalid_fracture_target": (
        gettext_lazy("Fracture can only target another player's face-up artefact that may be fractured now."),
        "R36",
    ),
    "crown_unavailable": (gettext_lazy("You have no face-up crown to use."), "R39"),
    "crown_already_used": (gettext_lazy("A crown can be used only once per turn."), "R39"),
    "crown_bad_choice": (gettext_lazy("That is not a valid choice for your crown."), "R41"),
    "no_manoeuvre_left": (
        gettext_lazy("You have no manoeuvre left this turn (play Tactical Advance for another)."),
        "R28",
    ),
    "unknown_location": (gettext_lazy("There is no such place on the map."), "R9"),
    "not_your_location": (
        gettext_lazy("Knights can only be redistributed among your castle and the territories you control."),
        "R43",
    ),
    "location_unsupplied": (
        gettext_lazy("Territories without a line of supply cannot be reinforced or emptied."),
        "R46",
    ),
    "territory_abandoned": (
        gettext_lazy("A redistribution must leave at least one knight in every territory you control."),
        "R45",
    ),
    "over_capacity": (gettext_lazy("That many knights do not fit in the territory (its capacity)."), "R12"),
    "not_enough_knights": (gettext_lazy("You do not have that many knights there."), "R55"),
    "dice_budget": (
        gettext_lazy("That would need %(dice)s dice, more than the %(budget)s you have."),
        "R16",
    ),
    "bad_knight_count": (gettext_lazy("Move at least one knight."), "Q33"),
    "target_not_reachable": (
        gettext_lazy(
            "You can only advance into a territory next to your castle or to a supplied territory you "
            "control (or across a lake from one)."
        ),
        "R53",
    ),
    "target_next_to_unsupplied": (
        gettext_lazy(
            "You cannot advance next to a territory of yours that has no line of supply, unless the target "
            "also touches a supplied territory you control."
        ),
        "R53",
    ),
    "target_not_enterable": (gettext_lazy("Lakes and castles cannot be advanced into."), "R54"),
    "target_own": (gettext_lazy("You cannot advance into a place you already control."), "R52"),
    "target_teammate": (gettext_lazy("You cannot advance into a territory your teammate controls."), "R108"),
    "must_play_conflict": (gettext_lazy("You must play a conflict card if you hold one."), "Q9"),
    "support_forbidden": (gettext_lazy("No support cards may be played in this battle."), "R71"),
    "bad_order": (gettext_lazy("Put back exactly the cards you looked at, each once."), "R41"),
    "bad_choice": (gettext_lazy("That choice is not allowed here."), "R30"),
    # the reasons engine.blocked gives for a move that is not available at all (issue 31 §2)
    "no_advance_target": (
        gettext_lazy("No territory is within reach of your castle or your supplied territories."),
        "R53",
    ),
    "no_territory": (gettext_lazy("You control no territory yet, so your knights can only advance."), "R43"),
    "no_crown_target": (gettext_lazy("Your crown has no other face-up artefact to act on."), "R41"),
    "no_fracture_target": (gettext_lazy("No other player has a face-up artefact to fracture."), "R36"),
    "no_conflict_card": (
        gettext_lazy("You have no conflict card in your hand: you count as having played a 0."),
        "R68",
    ),
}


def illegal_rule(params: Mapping[str, object]) -> str:
    """The rule an illegal move's refusal cites: the engine's ``rule`` parameter, else the code's usual
    rule (``"R46"``); ``""`` for an unknown code without one."""
    entry = ENGINE_MESSAGES.get(str(params.get("engine_code") or ""))
    return str(params.get("rule") or (entry[1] if entry else ""))


#: The sentence of an error whose numbers are missing (a stored error from before they came with it).
WITHOUT_NUMBERS: dict[str, Promise] = {
    "dice_budget": gettext_lazy("That would need more dice than you have."),
}


def illegal_message(params: Mapping[str, object], fallback: str = "") -> str:
    """Return the sentence for an illegal move, citing its rule.

    Args:
        params: ``ServiceError.params`` of a ``games.services.Illegal`` (``engine_code`` plus the engine's
            parameters such as ``rule``).
        fallback: the text used for an unknown code (the service's own message).

    Returns:
        E.g. "Territories without a line of supply cannot be reinforced or emptied. — R46".
    """
    code = str(params.get("engine_code") or "")
    entry = ENGINE_MESSAGES.get(code)
    if entry is None:
        return fallback or _("That move is not allowed.")
    rule = illegal_rule(params)
    sentence = str(entry[0])
    if "%(" in sentence:  # numbers the engine gives with the error (from the content set, never literals)
        try:
            sentence = sentence % dict(params)
        except (KeyError, TypeError, ValueError):  # a stored error from before the numbers came with it
            sentence = str(WITHOUT_NUMBERS.get(code, _("That move is not allowed.")))
    return f"{sentence} — {rule}" if rule else sentence


#: English message of a ``games.services.ServiceError`` -> its translation for pages.
SERVICE_MESSAGES: dict[str, Promise] = {
    "the game has not started": gettext_lazy("The game has not started yet."),
    "unknown time control": gettext_lazy("Choose one of the time controls."),
    "deadlines must be between one minute and 30 days": gettext_lazy(
        "Deadlines must be between one minute and 30 days."
    ),
    "no such game": gettext_lazy("There is no such game."),
    "this game has already started": gettext_lazy("This game has already started."),
    "you already have a seat here": gettext_lazy("You already have a seat at this table."),
    "this table is full": gettext_lazy("This table is full."),
    "only the creator can invite": gettext_lazy("Only the creator of the table can invite players."),
    "this table has sent all its invitations": gettext_lazy(
        "This table has sent all the invitations it may."
    ),
    "that is not an email address": gettext_lazy("That is not an email address."),
    "no player has that name": gettext_lazy("No player has that display name."),
    "several players have that name: invite them by email address": gettext_lazy(
        "Several players have that display name: invite them by email address."
    ),
    "you have sent too many invitations for now": gettext_lazy(
        "You have sent too many invitations for now: wait until players join your open tables, or until "
        "tomorrow."
    ),
    "you cannot leave a game that has started": gettext_lazy("You cannot leave a game that has started."),
    "the creator cannot leave; cancel the game instead": gettext_lazy(
        "The creator cannot leave the table; cancel the game instead."
    ),
    "you have no seat here": gettext_lazy("You have no seat at this table."),
    "only the creator can cancel this game": gettext_lazy("Only the creator can cancel this game."),
    "a started game cannot be cancelled": gettext_lazy("A game that has started cannot be cancelled."),
    "only the creator can add bots": gettext_lazy("Only the creator can add bots."),
    "only the creator can start the game": gettext_lazy("Only the creator can start the game."),
    "every seat must be filled (invite players or add bots)": gettext_lazy(
        "Every seat must be taken first: invite players or add bots."
    ),
    "this game is not in progress": gettext_lazy("This game is not in progress."),
    "you have no seat in this game": gettext_lazy("You have no seat in this game."),
    "you have resigned from this game": gettext_lazy(
        "You have resigned from this game: a bot plays your seat to the end."
    ),
    "you have played since this email was sent": gettext_lazy(
        "You have played since this email was sent, so its moves were written for an earlier position."
    ),
    "no such player at this table": gettext_lazy("There is no such player at this table."),
    "the game has moved on; reload and try again": gettext_lazy(
        "The game has moved on. Reload the page and try again."
    ),
    "this decision has already been made": gettext_lazy("This decision has already been made."),
    "unknown standing order": gettext_lazy("There is no such standing order."),
    "this order names an artefact": gettext_lazy("This order must name an artefact."),
    "no such standing order": gettext_lazy("There is no such standing order."),
    # issue 30: the rest of a turn written on the orders page
    "orders for later are written during your own turn": gettext_lazy(
        "Orders for later can be written only during your own turn: they are the rest of it."
    ),
    "write at least one move, one per line": gettext_lazy("Write at least one move, one per line."),
    "orders cannot contain NUL characters": gettext_lazy("Orders cannot contain NUL characters."),
    "not a game record: it needs a setup and actions": gettext_lazy(
        "This is not a game record: it needs a setup and actions."
    ),
    "this is not a medieval-mastery game record": gettext_lazy(
        "This is not a game record of this site (its format must be medieval-mastery/2, or "
        "medieval-mastery/1 for older records)."
    ),
    "an action needs a seat": gettext_lazy("Every action in the record needs a seat."),
    "a record cannot contain NUL characters": gettext_lazy("A game record cannot contain NUL characters."),
    "only finished games can be imported (this record has no winner)": gettext_lazy(
        "Only finished games can be imported (this record has no winner)."
    ),
    # issue 19: table talk
    "a message needs some text": gettext_lazy("Write something first: the message is empty."),
    "a message is at most 2,000 characters": gettext_lazy("A message can be at most 2,000 characters long."),
    "a message cannot contain NUL characters": gettext_lazy("A message cannot contain NUL characters."),
    "a reason cannot contain NUL characters": gettext_lazy(
        "A report's reason cannot contain NUL characters."
    ),
    "the chat opens when the game starts": gettext_lazy("The chat opens when the game starts."),
    "no such chat channel": gettext_lazy("You cannot write in that chat channel."),
    "only seated players can chat": gettext_lazy("Only the players seated at this table can chat."),
    "only seated players can mute": gettext_lazy("Only the players seated at this table can mute someone."),
    "your chat is suspended": gettext_lazy("The staff have suspended your chat for a while."),
    "too many chat messages": gettext_lazy("You have sent too many chat messages."),
    "you cannot mute yourself": gettext_lazy("You cannot mute yourself."),
    "no such message": gettext_lazy("There is no such message."),
    "no such user": gettext_lazy("There is no such player."),
}

#: English message of an engine ``ContentError`` a form can provoke -> its translation.
CONTENT_MESSAGES: dict[str, Promise] = {
    "Allegiance needs 4 or 6 players (R105)": gettext_lazy("Allegiance needs 4 or 6 players. — R105"),
    "teams of three need 6 players (R105)": gettext_lazy("Teams of three need 6 players. — R105"),
    "Allegiance cannot be combined with Castle Siege (R105, Q28)": gettext_lazy(
        "Allegiance cannot be combined with Castle Siege. — R105, Q28"
    ),
}


def content_message(message: str) -> str:
    """The translation of an engine setup error (``str(ContentError)``), else the engine's own text."""
    text = CONTENT_MESSAGES.get(message)
    return str(text) if text is not None else message


#: Why nothing (more) can be undone, by barrier: the words and the rule (issue 16, BGA's undo policy).
BARRIER_TEXTS: dict[str, tuple[Promise, str]] = {
    Barrier.CARD_DRAWN: (gettext_lazy("a card has been drawn since your last step"), "R96"),
    Barrier.DICE_ROLLED: (
        gettext_lazy("dice have been rolled or a card picked at random since your last step"),
        "R85",
    ),
    Barrier.CARD_REVEALED: (gettext_lazy("a card has been revealed since your last step"), "R32"),
    Barrier.WINDOW_OPENED: (
        gettext_lazy("a response window or a battle has begun since your last step"),
        "R37",
    ),
    Barrier.TURN_OVER: (gettext_lazy("your turn has only just begun"), "R26"),
    Barrier.ANSWER: (gettext_lazy("a decision has been answered since your last step"), "R37"),
}


def barrier_text(barrier: str) -> tuple[Promise, str]:
    """The words and rule for a barrier value (:data:`BARRIER_TEXTS`; "nothing to undo yet" otherwise)."""
    return BARRIER_TEXTS.get(barrier, (gettext_lazy("there is nothing to undo yet"), ""))


def _as_int(value: object) -> int:
    """``int(value)`` for a parameter of a service error (a number, or its digits in a string); a value
    ``int`` cannot read raises as ``int`` would.

    Raises:
        TypeError: not a number, a string or bytes. ValueError: a string that is not a number.
    """
    if isinstance(value, str | bytes | bytearray | SupportsInt | SupportsIndex):
        return int(value)
    raise TypeError(
        f"int() argument must be a string, a bytes-like object or a number, not {type(value).__name__!r}"
    )


def undo_refusal(params: Mapping[str, object]) -> str:
    """The message of a refused undo (``services.UndoRefused``'s ``params``: ``barrier``, ``steps``)."""
    steps = _as_int(params.get("steps", 0))
    if steps:
        return ngettext(
            "Only %(n)d step can be taken back now.", "Only %(n)d steps can be taken back now.", steps
        ) % {"n": steps}
    reason, rule = BARRIER_TEXTS.get(
        str(params.get("barrier", "")), (gettext_lazy("there is nothing to undo yet"), "")
    )
    text = _("Nothing to undo: %(reason)s.") % {"reason": reason}
    return f"{text} ({rule})" if rule else text


def rate_limit_message(params: Mapping[str, object]) -> str:
    """The message of a refused chat post (``RateLimited``'s ``params``: ``wait``, the seconds until the
    next message may be sent): how long to wait, in words of the active language."""
    wait = max(1, _as_int(params.get("wait", 1)))
    if wait < 60:
        left = ngettext("%(n)d second", "%(n)d seconds", wait) % {"n": wait}
    else:
        now = timezone.now()
        left = timeuntil(now + timedelta(minutes=-(-wait // 60)), now=now, depth=2)  # whole minutes, up
    return _("You have sent too many chat messages. Try again in %(wait)s.") % {"wait": left}


def service_message(exc: object) -> str:
    """The translated sentence for a ``games.services.ServiceError`` shown on a page.

    Illegal moves are worded by :func:`illegal_message`; other errors by :data:`SERVICE_MESSAGES` or
    :data:`CONTENT_MESSAGES`; an unknown message (e.g. a detailed import error) is shown as raised.
    """
    message = str(getattr(exc, "message", exc))
    params = getattr(exc, "params", None) or {}
    if params.get("engine_code"):
        return illegal_message(params, message)
    if getattr(exc, "code", "") == "undo_refused":
        return undo_refusal(params)
    if getattr(exc, "code", "") == "rate_limited":
        return rate_limit_message(params)
    text = SERVICE_MESSAGES.get(message)
    return str(text) if text is not None else content_message(message)
