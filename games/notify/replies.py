"""The words of the one email that answers a reply (issue 18): what was applied, the line that failed and
why, or why nothing was applied. The position and the next decision are added by
:mod:`games.notify.content`, from the recipient's own view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.messages import service_message
from games.models import Notification
from games.notify.commands import command_lines, word
from games.selectors import GameView


class _Refusal(Exception):
    """Stands in for a service error when wording a stored failure (``message`` and ``params``)."""

    def __init__(self, message: str, params: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.params = params


def _refused_text(reason: str, data: dict[str, Any], title: str) -> str:
    """Why nothing was applied, by the refusal's reason code (``games.services.inbox``)."""
    days = settings.REPLY_MAX_AGE // 86_400
    texts = {
        "not_yours": _(
            "That reply address belongs to another player's email about “%(title)s”, so nothing was applied. "
            "Reply to the emails sent to you."
        ),
        "forged_from": _(
            "A reply to your email about “%(title)s” came from %(sender)s, which is not your verified "
            "address, so nothing was applied. If it was not you, you need do nothing."
        ),
        "too_large": _("Your reply was over 1 MB, so it was not read. Reply with your moves only."),
        "expired": ngettext(
            "That email is too old to answer (replies are read for %(days)s day), so nothing was applied.",
            "That email is too old to answer (replies are read for %(days)s days), so nothing was applied.",
            days,
        ),
        "moved_on": _("That decision has already been made, so nothing was applied."),
        "played_since": _(
            "You have played since this email was sent (on the site or by another reply), so nothing in "
            "this reply was applied: its moves were written for an earlier position."
        ),
        "over": _("“%(title)s” is over, so nothing was applied."),
        "no_moves": _(
            "We found no moves in your reply. Reply with a number from the list, or with moves in the "
            "notation, one per line."
        ),
        "no_text": _("We found no text in your reply, so nothing was posted."),
    }
    if reason == "chat":  # a chat reply the chat refused (issue 19): its own reason, as the page says it
        refusal = service_message(_Refusal(str(data.get("message", "")), {}))
        return _("Your reply was not posted: %(reason)s") % {"reason": refusal}
    text = texts.get(reason, _("Your reply could not be applied."))
    return text % {"title": title, "sender": data.get("sender", "?"), "days": days}


def reply_result(n: Notification, gv: GameView, title: str) -> tuple[str, str, list[str]]:
    """Subject, headline and sentences of the result email ``n`` (kind ``reply``) for its recipient.

    ``n.data`` holds ``refused`` (a reason code), or ``applied`` (lines), ``error`` (``{"line", "text",
    "message", "params"}`` or ``None``), ``ignored`` (lines read as a signature) and ``commands`` (issue 30:
    ``[{"line", "command", "ok", "result", "error"}]``, what each command of the reply did: worded by
    :func:`games.notify.commands.command_lines`)."""
    data = n.data
    subject = _("Re: %(subject)s") % {"subject": data.get("subject") or title}
    details: list[str] = []
    if data.get("refused"):
        headline = _refused_text(str(data["refused"]), data, title)
    elif data.get("dropped"):  # issue 30: pending orders the position made impossible
        headline = _dropped_text(str(data.get("dropped_reason", "")), title)
        details += [f"✗ {line}" for line in data["dropped"]]
    else:
        applied = list(data.get("applied", []))
        error = data.get("error")
        # issue 30: what the reply's commands did (help, status, say…: games.services.mail_commands)
        commands = list(data.get("commands", []))
        if applied:
            headline = ngettext(
                "Your move in “%(title)s” was applied:",
                "Your %(n)s moves in “%(title)s” were applied:",
                len(applied),
            ) % {"title": title, "n": len(applied)}
            details += [f"✓ {line}" for line in applied]
        elif commands:
            headline = _("Your reply to “%(title)s” was read:") % {"title": title}
        else:
            headline = _("Nothing of your reply to “%(title)s” was applied.") % {"title": title}
        for command in commands:  # each command as written, then what it did, from the reader's view
            details.append(f"{'»' if command.get('ok') else '✗'} {command.get('line', '')}")
            details += command_lines(command, gv, n.recipient, title)
        if error:
            details.append(line_failure(error))
            if error.get("params", {}).get("legal"):
                details.append(_("What you can do now is listed below."))
        kept = list(data.get("pending", []))
        if kept:  # issue 30: lines no decision accepts yet, played as soon as one does
            details.append(
                _(
                    "Kept as your pending orders, played in this order as soon as your next decisions "
                    "accept them (write “%(orders)s” to see them, “%(clear)s” to remove them):"
                )
                % {"orders": word("orders"), "clear": word("clear")}
            )
            details += [f"… {line}" for line in kept]
        unneeded = list(data.get("unneeded", []))
        if unneeded:  # the lines after a move that ended the game
            details.append(
                _("The game ended with your move, so these lines were not needed: %(lines)s")
                % {"lines": " / ".join(unneeded[:5])}
            )
        ignored = list(data.get("ignored", []))
        if ignored:
            details.append(
                _("Not read as moves (a signature?): %(lines)s") % {"lines": " / ".join(ignored[:5])}
            )
    if gv.seat is not None and n.prompt_key:
        details.append(_("It is your decision now. Reply to this email to play on."))
    elif gv.seat is not None and not data.get("refused"):
        details.append(_("Nothing is waiting for you now; we will email you when it is your move."))
    return subject, headline, details


def _dropped_text(reason: str, title: str) -> str:
    """Why pending orders were dropped (issue 30; the reason codes of :mod:`games.services.pending`)."""
    texts = {
        "turn_over": _(
            "Your pending orders in “%(title)s” were dropped: the turn they were written for is over."
        ),
        "battle_over": _(
            "Your pending orders in “%(title)s” were dropped: the battle they were for is over, or your "
            "advance opened none."
        ),
        "impossible": _(
            "Your pending orders in “%(title)s” were dropped: the position no longer allows the first "
            "of them."
        ),
    }
    if reason in texts:
        return texts[reason] % {"title": title}
    why = service_message(_Refusal(reason, {"engine_code": reason}))
    return _("Your pending orders in “%(title)s” were dropped: %(reason)s.") % {
        "title": title,
        "reason": str(why).rstrip("."),
    }


def line_failure(error: Mapping[str, object]) -> str:
    """``Line 3, “advance Swamp 2”, was not applied: <reason>. Nothing after it was applied.``, for the
    ``error`` of a batch of lines (:class:`games.services.lines.Batch`: ``{"line", "text", "message",
    "params"}``), in the active language; also shown by the orders page."""
    raw = error.get("params")
    params: dict[str, object] = dict(raw) if isinstance(raw, dict) and raw else {}
    if error.get("message") == "no_such_number":
        reason = _("there is no move numbered so; the list has %(count)s") % {"count": params.get("count", 0)}
    else:
        params.pop("legal", None)
        reason = service_message(_Refusal(str(error.get("message", "")), params))
    return _("Line %(n)s, “%(text)s”, was not applied: %(reason)s. Nothing after it was applied.") % {
        "n": error.get("line", "?"),
        "text": error.get("text", ""),
        "reason": str(reason).rstrip("."),
    }
