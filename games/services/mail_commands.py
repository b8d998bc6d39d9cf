"""Commands in a reply to a game email (issue 30, "Commands, as the email judges had them"): a line may be
a command instead of a move, in any of the site's four languages, whatever its case and accents.

========================  ====================================================================================
``help``                  the commands, and the answer carries the position and the moves legal now
``status`` / ``map``      the position, the text map and the player's hand (their own view only)
``history [n]``           the last ``n`` lines of the log, as the seat may read it (default 10, at most 40)
``orders`` / ``clear``    the pending and standing orders for this game / remove this game's
``undo [n]``              take back the seat's own last ``n`` steps (default 1), as the page's undo
``resign``                asks for a confirmation; ``resign`` (or ``yes``) in a reply to that question resigns
``away until <date>``     an away period from now until the date (the profile's vacation); ``back`` ends it
``say <text>``            a message to the table chat; ``say @Name <text>``: a private message to them
========================  ====================================================================================

Each command goes through the service the page uses (:func:`games.services.undo.action_undo`,
:func:`games.services.resign.seat_resign`, :func:`games.services.chat.chat_post` with its own rules and
limits, :func:`games.services.projection.vacation_apply`, :func:`games.services.play.seat_return`,
:func:`games.services.orders.standing_order_delete`; ``status`` and ``history`` are read when the answer is
sent, from the per-viewer :func:`games.selectors.game_view`), so a reply can do nothing the page would not
let the player do. Its words (:data:`COMMANDS`) are never a move's word in any language (a test checks
:func:`games.engine.names_a_move`).

:func:`mail_commands_run` reads a reply whose lines hold a command (:func:`has_command`): lines run in
order, runs of move lines through :mod:`games.services.inbox`'s own batch, and the one answer says what each
command did (``Notification.data["commands"]``: facts, worded when the answer is sent, in the reader's
language and from their own view, by :mod:`games.notify.commands`).
Replies to chat emails are not read for commands: their text is posted as it is (issue 19).
"""

from __future__ import annotations

import re
import unicodedata
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Protocol, TypedDict

from django.db import transaction
from django.utils import translation

from accounts.models import User, away_period_errors
from games import engine
from games.models import Game, InboundMail, Notification, Seat, StandingOrder
from games.services import chat, pending
from games.services.errors import NotFound, ServiceError
from games.services.orders import standing_order_delete
from games.services.play import seat_return
from games.services.projection import vacation_apply
from games.services.resign import seat_resign
from games.services.undo import action_undo

if TYPE_CHECKING:
    from games.services.lines import Batch, LineError
    from mastery.mail_reading import Reply

#: Each command's words, by language (the first is the one ``help`` shows in that language). Phrases of two
#: words ("ge upp") are matched as such; the longest phrase that fits wins ("away until" before "away").
COMMANDS: dict[str, dict[str, tuple[str, ...]]] = {
    "help": {"en": ("help", "?"), "sv": ("hjälp",), "pl": ("pomoc",), "ko": ("도움말", "도움")},
    "status": {"en": ("status",), "sv": ("läge", "status"), "pl": ("stan", "status"), "ko": ("상태", "현황")},
    "map": {"en": ("map",), "sv": ("karta",), "pl": ("mapa",), "ko": ("지도",)},
    "history": {"en": ("history", "log"), "sv": ("historik", "logg"), "pl": ("historia",), "ko": ("기록",)},
    "orders": {"en": ("orders",), "sv": ("ordrar",), "pl": ("rozkazy",), "ko": ("명령",)},
    "clear": {"en": ("clear",), "sv": ("rensa",), "pl": ("wyczyść",), "ko": ("지우기",)},
    "undo": {"en": ("undo",), "sv": ("ångra",), "pl": ("cofnij",), "ko": ("되돌리기", "취소")},
    "resign": {"en": ("resign",), "sv": ("ge upp",), "pl": ("poddaję się", "poddaj się"), "ko": ("기권",)},
    "away": {
        "en": ("away until", "away"),
        "sv": ("borta till", "borta"),
        "pl": ("nieobecny do", "nieobecna do", "nieobecny", "nieobecna"),
        "ko": ("부재",),
    },
    "back": {"en": ("back",), "sv": ("tillbaka",), "pl": ("wracam",), "ko": ("복귀",)},
    "say": {"en": ("say",), "sv": ("säg",), "pl": ("powiedz",), "ko": ("말하기",)},
}
#: The words that confirm a resignation, only in a reply to the email that asked (with the resign word).
YES: dict[str, tuple[str, ...]] = {"en": ("yes",), "sv": ("ja",), "pl": ("tak",), "ko": ("예", "네")}
#: Commands that take nothing after their word (a line "back on Monday" is no command).
_BARE = frozenset({"help", "status", "map", "orders", "clear", "resign", "back"})
#: Commands whose optional argument is a count.
_COUNTED = frozenset({"history", "undo"})
#: ``history`` without a count shows this many lines, and at most this many (the log a page reads).
HISTORY_DEFAULT, HISTORY_MOST = 10, 40
#: ``Notification.data`` keys of an answer: the command outputs, whether the answer shows the position and
#: the moves whatever the player's email settings, and whether it asks to confirm a resignation.
COMMANDS_KEY, FULL_KEY, RESIGN_ASKED = "commands", "full", "resign_asked"
#: The Korean particle "until" written after a date ("2026-12-24까지").
_KO_UNTIL = "까지"


def fold(text: str) -> str:
    """``text`` compared loosely: NFKC, case-folded, Latin accents removed (``ångra`` -> ``angra``, ``ł`` ->
    ``l``), runs of white space as one space, trailing ``.`` and ``!`` dropped. Hangul syllables are kept
    whole (NFD would split them into jamo)."""
    out = []
    for ch in unicodedata.normalize("NFKC", text).casefold():
        if "\uac00" <= ch <= "\ud7a3":
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
        out.append({"ł": "l", "ø": "o", "đ": "d"}.get(base, base))
    return " ".join("".join(out).split()).rstrip(".!").strip()


def _phrases() -> list[tuple[str, str]]:
    """``(folded phrase, command)`` for every word of every language, longest phrase first."""
    pairs = {
        (fold(word), name) for name, langs in COMMANDS.items() for words in langs.values() for word in words
    }
    return sorted(pairs, key=lambda pair: (-len(pair[0]), pair[0]))


_PHRASES = _phrases()
_YES = frozenset(fold(word) for words in YES.values() for word in words)


@dataclass(frozen=True)
class Command:
    """One command line: ``name`` (a key of :data:`COMMANDS`, or ``"yes"``), ``arg`` (what follows the
    command's words, as written: a count, a date or a chat message; ``""`` when none) and ``line``."""

    name: str
    arg: str
    line: str


def read_command(line: str, confirming: bool = False) -> Command | None:
    """The command ``line`` is, or ``None`` (a move, a signature or anything else).

    Args:
        line: one line of a reply, as the player wrote it.
        confirming: the reply answers an email that asked to confirm a resignation, so a bare "yes" (in
            any of the four languages) is a command too.

    Returns:
        The command, with its argument as written (case and accents kept). A command that takes nothing
        (:data:`_BARE`) with something after it, a count that is not a number, or ``away`` without a date
        :func:`read_until` reads, is no command.
    """
    folded = fold(line)
    if confirming and folded in _YES:
        return Command("yes", "", line)
    for phrase, name in _PHRASES:
        if folded != phrase and not folded.startswith(phrase + " "):
            continue
        words = len(phrase.split())
        parts = line.strip().split(None, words)
        arg = parts[words].strip() if len(parts) > words else ""
        if name in _BARE and fold(arg):
            return None
        if name in _COUNTED and arg and not arg.rstrip(".").isdigit():
            return None
        if name == "say" and not arg:
            return None
        if name == "away" and read_until(arg, zoneinfo.ZoneInfo("UTC")) is None:
            return None  # "Away until Monday", an auto-responder's words, is no command (issue 30: no loop)
        return Command(name, arg, line)
    return None


def has_command(lines: list[str], origin: Notification) -> bool:
    """Whether any of a reply's ``lines`` is a command (:func:`read_command`; a "yes" counts in a reply to
    an email that asked to confirm a resignation)."""
    confirming = bool(isinstance(origin.data, dict) and origin.data.get(RESIGN_ASKED))
    return any(read_command(line, confirming) is not None for line in lines)


def is_command(line: str) -> bool:
    """Whether ``line`` is a command (for :func:`games.services.inbox.holds_move`: a mail of commands holds
    something, so the hourly limit on answers to mails without a move does not apply to it)."""
    return read_command(line) is not None


class CommandError(TypedDict):
    """A command the service refused (:attr:`Outcome.error`): the service error's English ``message``, its
    stable ``code`` and its JSON-safe ``params``."""

    message: str
    code: str
    params: dict[str, object]


@dataclass
class Outcome:
    """What one command did, as data (worded when the answer is sent, in the reader's language and from
    their own view: :mod:`games.notify.commands`): ``result`` (the command's facts, JSON), ``ok`` (it did
    what was asked), ``error`` (a refusal: ``{"message", "code", "params"}`` of the service's error, or
    ``None``) and ``flags`` (keys set on the answer: :data:`FULL_KEY`, :data:`RESIGN_ASKED`)."""

    result: dict[str, object] = field(default_factory=dict)
    ok: bool = True
    error: CommandError | None = None
    flags: dict[str, bool] = field(default_factory=dict)


@dataclass
class Context:
    """Who a command acts for: ``game_id``, ``user`` (the address's verified owner), ``origin`` (the email
    replied to) and ``now``."""

    game_id: int
    user: User
    origin: Notification
    now: datetime


def run_command(command: Command, ctx: Context) -> Outcome:
    """Run one command for ``ctx.user`` through the service the page uses.

    Returns:
        Its :class:`Outcome`. A refusal of the service (a :class:`~games.services.errors.ServiceError`) is
        an outcome with ``ok`` false and the error's message, code and JSON-safe parameters (worded later by
        :func:`games.messages.service_message`, as on the page): nothing is raised, nothing of it is kept.
    """
    handler = _HANDLERS["resign" if command.name == "yes" else command.name]
    try:
        with transaction.atomic():  # a savepoint: a refused command leaves nothing behind
            return handler(command, ctx)
    except ServiceError as exc:
        params: dict[str, object] = {
            k: v for k, v in exc.params.items() if isinstance(v, str | int | float | bool | type(None))
        }
        return Outcome(ok=False, error={"message": exc.message, "code": exc.code, "params": params})


def _help(command: Command, ctx: Context) -> Outcome:
    """The commands with examples; the answer adds the position and the moves legal now."""
    return Outcome(flags={FULL_KEY: True})


def _status(command: Command, ctx: Context) -> Outcome:
    """The answer shows the position from the player's own view (never another player's hand)."""
    return Outcome(flags={FULL_KEY: True})


def _history(command: Command, ctx: Context) -> Outcome:
    """The last ``n`` lines of the log (read when the answer is sent, redacted for the seat as on the
    page)."""
    return Outcome({"n": min(max(int(command.arg.rstrip(".") or HISTORY_DEFAULT), 1), HISTORY_MOST)})


def _my_orders(ctx: Context) -> list[StandingOrder]:
    rows = StandingOrder.objects.filter(user=ctx.user)
    return [o for o in rows if o.game_id in (None, ctx.game_id)]


def _orders(command: Command, ctx: Context) -> Outcome:
    """The player's pending orders in this game (issue 30: their own only) and their standing orders for
    response windows that apply in it: ``{"pending": [move lines in order], "orders": [{"rule", "artefact",
    "all"}]}`` (``all``: for all their games)."""
    orders = [{"rule": o.rule, "artefact": o.artefact, "all": o.game_id is None} for o in _my_orders(ctx)]
    kept = [o.text for o in pending.pending_list(user=ctx.user, game_id=ctx.game_id)]
    return Outcome({"pending": kept, "orders": orders})


def _clear(command: Command, ctx: Context) -> Outcome:
    """Remove the player's pending orders and standing orders for this game (standing orders for all games
    stay: they are not this game's to clear): ``{"removed": standing orders removed, "pending_removed": n,
    "kept": the orders for all games}``."""
    orders = _my_orders(ctx)
    mine = [o for o in orders if o.game_id == ctx.game_id]
    for order in mine:
        standing_order_delete(user=ctx.user, order_id=order.pk)
    gone = pending.pending_clear(user=ctx.user, game_id=ctx.game_id)
    return Outcome({"removed": len(mine), "pending_removed": gone, "kept": len(orders) - len(mine)})


def _undo(command: Command, ctx: Context) -> Outcome:
    """Take back the seat's own last steps through the page's undo (same rule: only back to new
    information): ``{"steps": n}``."""
    steps = int(command.arg.rstrip(".") or 1)
    seq = Game.objects.values_list("seq", flat=True).get(pk=ctx.game_id)
    result = action_undo(game_id=ctx.game_id, user=ctx.user, expected_seq=seq, steps=steps)
    return Outcome({"steps": len(result.undone)}, flags={FULL_KEY: True})


def _resign(command: Command, ctx: Context) -> Outcome:
    """Ask to confirm (``{"asked": true}``), or, in a reply to the email that asked, resign
    (:func:`seat_resign`, ``{"resigned": true}``)."""
    asked = isinstance(ctx.origin.data, dict) and ctx.origin.data.get(RESIGN_ASKED)
    if asked:
        seat_resign(game_id=ctx.game_id, user=ctx.user, now=ctx.now)
        return Outcome({"resigned": True})
    return Outcome({"asked": True}, flags={RESIGN_ASKED: True})


#: Date forms ``away until`` reads: ISO (``2026-12-24``, with a time ``2026-12-24 18:00``), and the dotted
#: and slashed forms with the year first (Korean, ``2026.12.24``) or last (Swedish, Polish: ``24.12.2026``).
_DATE_FORMS = (
    (re.compile(r"^(\d{4})[-./](\d{1,2})[-./](\d{1,2})\.?(?:[ T](\d{1,2}):(\d{2}))?$"), ("y", "m", "d")),
    (re.compile(r"^(\d{1,2})[./](\d{1,2})[./](\d{4})(?: (\d{1,2}):(\d{2}))?$"), ("d", "m", "y")),
)


def read_until(text: str, zone: zoneinfo.ZoneInfo) -> datetime | None:
    """The end of an away period written as ``text``: a date (the start of that day, when the player is
    back) or a date and time, in the player's time zone ``zone``; ``None`` when it is no such date. A Korean
    ``까지`` ("until") after it is allowed."""
    text = " ".join(text.replace(_KO_UNTIL, " ").split()).rstrip(".").strip()
    for pattern, order in _DATE_FORMS:
        match = pattern.match(text)
        if match is None:
            continue
        parts = dict(zip(order, (int(g) for g in match.groups()[:3]), strict=True))
        hour, minute = (int(match.group(4)), int(match.group(5))) if match.group(4) else (0, 0)
        try:
            return datetime.combine(date(parts["y"], parts["m"], parts["d"]), time(hour, minute), tzinfo=zone)
        except ValueError:
            return None
    return None


def user_zone(user: User) -> zoneinfo.ZoneInfo:
    """The user's time zone (``User.time_zone``); UTC when it is unknown or invalid."""
    try:
        return zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def _away(command: Command, ctx: Context) -> Outcome:
    """An away period from now until the date, checked and stored as the profile stores it (and the open
    clocks re-timed, :func:`vacation_apply`): ``{"until": ISO datetime}``; refused: ``{"errors": the
    reasons of :func:`accounts.models.away_period_errors`, in the player's language}``."""
    until = read_until(command.arg, user_zone(ctx.user))
    if until is None:  # read_command lets no such line through; kept for a direct call
        return Outcome({"errors": []}, ok=False)
    user = User.objects.select_for_update().get(pk=ctx.user.pk)
    start = user.away_from if user.away_at(ctx.now) and user.away_from is not None else ctx.now
    with translation.override(user.language or "en"):
        errors = [str(e) for e in away_period_errors(start, until, ctx.now)]
    if errors:
        return Outcome({"errors": errors}, ok=False)
    user.away_from, user.away_until = start, until
    user.save(update_fields=["away_from", "away_until"])
    vacation_apply(user=user)
    return Outcome({"until": until.isoformat()})


def _back(command: Command, ctx: Context) -> Outcome:
    """End the away period (as the profile does) and, when a bot stands in for the seat after missed
    turns, take the seat back (the page's "I'm back", :func:`seat_return`): ``{"away_over": bool,
    "seat_back": bool}``."""
    user = User.objects.select_for_update().get(pk=ctx.user.pk)
    result: dict[str, object] = {"away_over": False, "seat_back": False}
    if user.away_from is not None or user.away_until is not None:
        user.away_from = user.away_until = None
        user.save(update_fields=["away_from", "away_until"])
        vacation_apply(user=user)
        result["away_over"] = True
    seat = Seat.objects.filter(game_id=ctx.game_id, user=user).first()
    if seat is not None and seat.missed_deadlines and seat.resigned_at is None:
        seat_return(game_id=ctx.game_id, user=user)
        result["seat_back"] = True
    return Outcome(result)


def _say(command: Command, ctx: Context) -> Outcome:
    """Post to the table chat, or privately to the player named after ``@``, through the chat's own
    service (its rules, limits and suspensions): ``{"text", "to": the player's name or ""}``.

    Raises:
        NotFound: no other seated player has the name after ``@`` (and what ``chat_post`` raises).
    """
    text = command.arg
    channel = "table"
    to_name = ""
    if text.startswith("@"):
        game = Game.objects.prefetch_related("seats__user").get(pk=ctx.game_id)
        others = [s for s in game.seats.all() if s.user_id is not None and s.user_id != ctx.user.pk]
        rest = fold(text[1:])
        for seat in sorted(others, key=lambda s: -len(s.name)):
            name = fold(seat.name)
            if name and (rest == name or rest.startswith(name + " ")):
                channel, to_name = f"p{seat.number}", seat.name
                text = _after_name(command.arg, seat.name)
                break
        else:
            raise NotFound("no such player at this table")
    chat.chat_post(game_id=ctx.game_id, user=ctx.user, channel=channel, text=text, now=ctx.now)
    return Outcome({"text": text, "to": to_name})


def _after_name(arg: str, name: str) -> str:
    """The message after ``@Name`` in ``arg`` (the name matched loosely: case, accents and spaces)."""
    words = len(name.split())
    parts = arg[1:].strip().split(None, words)
    return parts[words].strip() if len(parts) > words else ""


_HANDLERS = {
    "help": _help,
    "status": _status,
    "map": _status,
    "history": _history,
    "orders": _orders,
    "clear": _clear,
    "undo": _undo,
    "resign": _resign,
    "away": _away,
    "back": _back,
    "say": _say,
}


class Answer(Protocol):
    """The inbox's one answer to a mail (``games.services.inbox._answer``): queue the ``reply`` email of
    ``mail`` to ``user`` about ``origin`` with ``data`` and ``subject``; ``content`` (the mail held something
    to play) and ``now`` as there."""

    def __call__(
        self,
        mail: InboundMail,
        user: User,
        origin: Notification,
        data: Mapping[str, object],
        subject: str = "",
        *,
        content: bool,
        now: datetime,
    ) -> Notification:
        """Queue the answer; the ``reply`` row."""
        ...


class CommandEntry(TypedDict):
    """One command of a reply as its answer keeps it (:data:`COMMANDS_KEY`): the ``line`` as written, the
    ``command``'s name, whether it was ``ok``, its ``result`` facts and its ``error`` (a refusal or
    ``None``)."""

    line: str
    command: str
    ok: bool
    result: dict[str, object]
    error: CommandError | None


@dataclass(frozen=True)
class InboxHooks:
    """What the inbox lends the commands of a reply (:mod:`games.services.inbox` imports this module, so
    this one cannot import it back): its line limit, its batch of moves, its one answer, the answer's
    subject, and its two checks of a reply's moves.

    Attributes:
        max_lines: the lines of a reply that are read. apply_lines: ``(game_id, user, texts, moves) ->
            Batch``. answer: ``(mail, owner, origin, data, subject, *, content, now) -> None``. subject:
            ``(reply) -> str``. still_open / played_since: ``(origin) -> bool``.
    """

    max_lines: int
    apply_lines: Callable[[int, User, list[str], list[str]], Batch]
    answer: Answer
    subject: Callable[[Reply], str]
    still_open: Callable[[Notification], bool]
    played_since: Callable[[Notification], bool]


def mail_commands_run(
    mail: InboundMail, reply: Reply, origin: Notification, owner: User, now: datetime, inbox: InboxHooks
) -> None:
    """Read a reply that holds a command (:func:`has_command`) for ``owner`` and answer it once (the one
    call site in :func:`games.services.inbox._process`, after the checks of who may act).

    Lines run in order: each command through :func:`run_command`; each run of move lines through the
    batch of lines (:func:`games.services.lines.lines_apply`), refused as a whole reply of moves would be
    when the game is over, the decision has been made or the player has played since the email (checked
    once, before anything of this mail runs). A failing move stops the mail there, as in a reply of moves;
    a refused command does not. Once something has run, a line that is neither a command nor a move ends
    the mail as a signature. ``mail`` gets its status (``applied`` or ``stopped``) and its ``applied``
    count (moves and commands that did what was asked).

    The answer (:func:`games.services.inbox._answer`, kind ``reply``) holds ``applied``, ``error`` and
    ``ignored`` as for moves, plus :data:`COMMANDS_KEY`: ``[{"line": the command as written, "command":
    its name, "ok": bool, "result": its facts, "error": a refusal or None}]`` (worded when the answer is
    sent: :func:`games.notify.commands.command_lines`) and the flags of the commands (:data:`FULL_KEY`,
    :data:`RESIGN_ASKED`).
    """
    assert origin.game_id is not None  # checked by the caller
    lines = reply.lines[: inbox.max_lines]
    mail.lines = lines
    confirming = bool(isinstance(origin.data, dict) and origin.data.get(RESIGN_ASKED))
    commands = [read_command(line, confirming) for line in lines]
    stale = _stale(origin, inbox) if any(c is None for c in commands) else ""
    ctx = Context(origin.game_id, owner, origin, now)
    moves = list(origin.data.get("moves", [])) if isinstance(origin.data, dict) else []
    applied: list[str] = []
    kept: list[str] = []  # lines kept as pending orders (issue 30)
    outputs: list[CommandEntry] = []
    flags: dict[str, bool] = {}
    error: LineError | None = None
    ignored: list[str] = []
    done = 0
    run: list[tuple[int, str]] = []

    def flush() -> LineError | None:
        """Apply the run of move lines gathered so far; the error that stopped it, if one did."""
        nonlocal done
        if not run:
            return None
        first, text = run[0]
        texts = [t for _n, t in run]
        run.clear()
        if stale:
            return {"line": first, "text": text, "message": _STALE[stale], "params": {}}
        batch = inbox.apply_lines(origin.game_id or 0, owner, texts, moves)
        applied.extend(batch.applied)
        kept[:] = list(batch.pending)  # a later run's pending orders replace an earlier run's
        done += len(batch.applied)
        if batch.error is not None:
            return {**batch.error, "line": first + int(batch.error["line"]) - 1}
        return None

    for n, (line, command) in enumerate(zip(lines, commands, strict=True), start=1):
        if command is None:
            if (done or outputs or run) and not _names_a_move(line):
                ignored = lines[n - 1 :]  # a signature
                break
            run.append((n, line))
            continue
        error = flush()
        if error is not None:
            break
        outcome = run_command(command, ctx)
        outputs.append(
            {
                "line": line,
                "command": "resign" if command.name == "yes" else command.name,
                "ok": outcome.ok,
                "result": outcome.result,
                "error": outcome.error,
            }
        )
        flags.update(outcome.flags)
        done += outcome.ok
    if error is None:
        error = flush()
    mail.applied = done
    mail.status = InboundMail.Status.STOPPED if error else InboundMail.Status.APPLIED
    data: dict[str, object] = {
        "applied": applied,
        "error": error,
        "ignored": ignored,
        "pending": kept,
        COMMANDS_KEY: outputs,
    }
    data.update(flags)
    inbox.answer(mail, owner, origin, data, inbox.subject(reply), content=True, now=now)


def _names_a_move(line: str) -> bool:
    """Whether ``line`` is meant as a move: a number from the email's list, or a move's word."""
    return line.rstrip(".").isdigit() or engine.names_a_move(line)


#: A reply's stale reasons (:func:`_stale`) as the service messages a failed line is worded by.
_STALE = {
    "over": "this game is not in progress",
    "moved_on": "this decision has already been made",
    "played_since": "you have played since this email was sent",
}


def _stale(origin: Notification, inbox: InboxHooks) -> str:
    """Why the moves of a reply to ``origin`` may not be applied (``""``: they may), as for a reply of moves
    only: ``over``, ``moved_on`` or ``played_since``."""
    assert origin.game_id is not None
    status = Game.objects.values_list("status", flat=True).get(pk=origin.game_id)
    if status != Game.Status.ACTIVE:
        return "over"
    if not inbox.still_open(origin):
        return "moved_on"
    if inbox.played_since(origin):
        return "played_since"
    return ""
