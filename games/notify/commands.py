"""The words of a reply's commands in its answer (issue 30): what each command of
:mod:`games.services.mail_commands` did, from the facts it stored, in the reader's language (call inside
``translation.override``) and from the reader's own view (``status``, ``history``: never another player's
hand, the log redacted for their seat as on the page). The position, the map and the moves legal now are
the answer's own (:func:`games.notify.content.content_for`, shown to every player when a command asks:
``data["full"]``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.components import artefact_name
from games.messages import service_message
from games.models import StandingOrder
from games.selectors import GameView
from games.services.mail_commands import COMMANDS, YES, user_zone


class _Refusal(Exception):
    """Stands in for a stored service error when wording it (``message``, ``code`` and ``params``)."""

    def __init__(self, message: str, code: str, params: dict[str, Any]) -> None:
        super().__init__(message)
        self.message, self.code, self.params = message, code, params


def word(name: str) -> str:
    """The first word of command ``name`` in the active language (English when it has none)."""
    lang = (translation.get_language() or "en")[:2]
    return COMMANDS[name].get(lang, COMMANDS[name]["en"])[0]


def command_lines(entry: dict[str, Any], gv: GameView, user: User, title: str) -> list[str]:
    """The sentences that say what one command did.

    Args:
        entry: one item of the answer's ``data["commands"]``: ``{"line", "command", "ok", "result",
            "error"}`` (:func:`games.services.mail_commands.mail_commands_run`).
        gv: the reader's view of the game now (with its log).
        user: the reader (their time zone for dates).
        title: the game's title.

    Returns:
        The sentences, in the active language; a refusal is the service's own sentence, as the page says it.
    """
    error = entry.get("error")
    if error:
        refusal = _Refusal(
            str(error.get("message", "")), str(error.get("code", "")), error.get("params") or {}
        )
        return [service_message(refusal)]
    result: dict[str, Any] = entry.get("result") or {}
    name = str(entry.get("command", ""))
    if name == "help":
        return _help()
    if name in ("status", "map"):
        return _status(gv)
    if name == "history":
        return _history(gv, int(result.get("n", 10)))
    if name == "orders":
        return _pending(result.get("pending", [])) + _orders(result.get("orders", []))
    if name == "clear":
        gone = int(result.get("pending_removed", 0))
        lines = [
            ngettext(
                "%(n)s pending order of this game removed.",
                "%(n)s pending orders of this game removed.",
                gone,
            )
            % {"n": gone},
            ngettext(
                "%(n)s standing order of this game removed.",
                "%(n)s standing orders of this game removed.",
                int(result.get("removed", 0)),
            )
            % {"n": result.get("removed", 0)},
        ]
        if result.get("kept"):
            lines.append(_("Your standing orders for all your games stay; change them on the site."))
        return lines
    if name == "undo":
        n = int(result.get("steps", 0))
        return [ngettext("%(n)s step taken back.", "%(n)s steps taken back.", n) % {"n": n}]
    if name == "resign":
        return _resign(result, title)
    if name == "away":
        return _away(result, user)
    if name == "back":
        return _back(result)
    if name == "say":
        if result.get("to"):
            return [_("Sent to %(name)s: %(text)s") % {"name": result["to"], "text": result.get("text", "")}]
        return [_("Posted to the table chat: %(text)s") % {"text": result.get("text", "")}]
    return []


def _help() -> list[str]:
    """The commands with examples, in the reader's language (the moves legal now follow in the answer)."""
    until = (timezone.now() + timedelta(days=7)).date().isoformat()
    return [
        _("Besides moves, you can write these commands, each on a line of its own:"),
        _("%(word)s: this list, with the moves you can make now") % {"word": word("help")},
        _("%(status)s or %(map)s: the position, the map and your hand")
        % {"status": word("status"), "map": word("map")},
        _("%(word)s 10: the last 10 lines of the game's log") % {"word": word("history")},
        _("%(orders)s: your pending and standing orders; %(clear)s: remove this game's")
        % {"orders": word("orders"), "clear": word("clear")},
        _("%(word)s: take back your last step, as the page's undo (%(word)s 2: two steps)")
        % {"word": word("undo")},
        _("%(word)s: leave the game for good (you are asked to confirm first)") % {"word": word("resign")},
        _("%(away)s %(date)s: away until that date; %(back)s: back again")
        % {"away": word("away"), "date": until, "back": word("back")},
        _("%(word)s Good luck!: to the table chat; %(word)s @Name …: to that player only")
        % {"word": word("say")},
    ]


def _status(gv: GameView) -> list[str]:
    """The turn and who is to decide; the position from the reader's own view follows in the answer."""
    lines = []
    if gv.view is not None:
        lines.append(_("Turn %(turn)s.") % {"turn": gv.view["turn"]})
    if gv.waiting_for:
        lines.append(_("Waiting for: %(names)s") % {"names": ", ".join(gv.waiting_for)})
    lines.append(_("The position as you see it is below."))
    return lines


def _history(gv: GameView, n: int) -> list[str]:
    """The last ``n`` lines of the reader's log (redacted for their seat), oldest first."""
    newest = [line for entry in gv.log for line in reversed(entry["lines"])][:n]
    if not newest:
        return [_("Nothing has happened in this game yet.")]
    head = ngettext("The last line of the log:", "The last %(n)s lines of the log:", len(newest)) % {
        "n": len(newest)
    }
    return [head, *(f"- {line}" for line in reversed(newest))]


def _pending(lines: list[str]) -> list[str]:
    """The reader's own pending orders in the game (issue 30), in the order they will be played."""
    if not lines:
        return [_("No pending orders.")]
    return [_("Your pending orders, played as soon as they can be:"), *(f"- {line}" for line in lines)]


def _orders(orders: list[dict[str, Any]]) -> list[str]:
    """The standing orders that apply in the game, one line each."""
    if not orders:
        return [_("No standing orders: you answer every response window yourself.")]
    lines = [_("Your standing orders:")]
    for order in orders:
        rule = str(order.get("rule", ""))
        text = str(StandingOrder.Rule(rule).label) if rule in StandingOrder.Rule.values else rule
        if order.get("artefact"):
            text += f": {artefact_name(str(order['artefact']))}"
        if order.get("all"):
            text += " " + _("(all your games)")
        lines.append(f"- {text}")
    return lines


def _resign(result: dict[str, Any], title: str) -> list[str]:
    """The question (with the words that confirm, in the reader's language), or that it is done."""
    if result.get("resigned"):
        return [
            _("You have resigned. A bot plays your seat to the end, and the ratings will place you last.")
        ]
    lang = (translation.get_language() or "en")[:2]
    return [
        _(
            "Do you really want to resign from “%(title)s”? A bot will play your seat to the end, and the "
            "ratings will place you last. To confirm, reply to this email with “%(word)s” or “%(yes)s”."
        )
        % {"title": title, "word": word("resign"), "yes": YES.get(lang, YES["en"])[0]}
    ]


def _away(result: dict[str, Any], user: User) -> list[str]:
    """Until when the reader is away, in their time zone; or why the period was not stored."""
    if "until" not in result:
        return [str(e) for e in result.get("errors", [])] or [_("Write the date as 2026-12-24.")]
    until = datetime.fromisoformat(str(result["until"])).astimezone(user_zone(user))
    return [_("You are away until %(when)s.") % {"when": formats.date_format(until, "DATETIME_FORMAT")}]


def _back(result: dict[str, Any]) -> list[str]:
    """That the away period is over and the seat is the reader's again."""
    lines = []
    if result.get("away_over"):
        lines.append(_("Your away period is over."))
    if result.get("seat_back"):
        lines.append(_("Welcome back: your seat is yours again."))
    return lines or [_("You were not away.")]
