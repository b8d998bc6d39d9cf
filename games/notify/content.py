"""The content of one notification email (architecture §3 ``games/notify/``): built per recipient from their
own view of the game (:func:`games.selectors.game_view`, i.e. ``engine.view_for``), never from raw state;
localized (the recipient's language and time zone), text and HTML, with ``List-Unsubscribe`` and a
``Message-ID`` of its own, kept in the outbox row once it is claimed."""

from __future__ import annotations

import logging
import secrets
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts.models import User
from games import engine
from games.actions_ui import EMAIL_LINKS, link_for_prompt, timeout_text
from games.components import artefact_name, card_name, place_name
from games.engine import PromptKind
from games.models import Notification, Prompt
from games.notify.chat_mail import chat_email, chat_key, chat_line, chat_message_for
from games.notify.links import BACK, absolute_url, link_token, unsubscribe_token
from games.notify.position import Position, combat_scores, counted, position_for
from games.notify.replies import reply_result
from games.selectors import GameView, game_get, game_view, visible_to
from games.services.inbox import SHOWN_SEQ, reply_address
from games.services.outbox import DECISION_KINDS
from games.store import game_state
from games.web.presenters.recent import since_model
from mastery.text import single_line

log = logging.getLogger(__name__)


def user_zone(user: User) -> zoneinfo.ZoneInfo:
    """The user's time zone (``User.time_zone``, an IANA name); UTC when it is unknown or invalid."""
    try:
        return zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def message_id() -> str:
    """A new ``Message-ID`` for one email: ``<n.<128 random bits in hex>@<SITE_URL's host>>``, unique to
    that email as RFC 5322 §3.6.4 requires ("a globally unique identifier for a message").

    It is made once per outbox row, when the row is first claimed (:func:`build_email` of a row without
    one), and stored in ``Notification.message_id``; a copy of the row sent again (after a lost commit or
    a mail-server failure) is built with the stored one, so mail clients fold the two (issue 28). It no
    longer derives from the dedupe key (issue 30: a key renamed to make room for a turn's return gave two
    different emails one id, and Gmail hid the second), and, random, it tells nothing of the site's
    keys."""
    domain = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"<n.{secrets.token_hex(16)}@{domain}>"


@dataclass
class EmailContent:
    """What one notification says: ``subject``, ``headline``, ``details`` (sentences), ``links``
    (``(label, absolute url)``, the first is the main one), ``deadline`` text, recent ``log`` lines."""

    subject: str
    headline: str
    details: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    deadline: str = ""
    log: list[str] = field(default_factory=list)
    #: Full play by email (issue 18): the position, the numbered moves and the forms of the large families.
    position: Position | None = None
    moves: list[str] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    #: Whether a reply to this email plays (it has its own Reply-To address).
    replyable: bool = False
    #: A chat email (issue 19): a reply posts to the conversation (no move instructions).
    conversation: bool = False
    #: "Since your last move" (issue 30): the newest items of :func:`since_section`, each the log's lines,
    #: oldest first, and the sentence that counts the items left out (``""``: none).
    since: list[list[str]] = field(default_factory=list)
    since_more: str = ""


def _when(user: User, at: datetime, now: datetime) -> str:
    local = at.astimezone(user_zone(user))
    text = date_format(local, "DATETIME_FORMAT") + f" ({user.time_zone})"
    if at > now:
        return _("%(when)s — %(left)s left") % {"when": text, "left": timeuntil(at, now)}
    return _("%(when)s — overdue") % {"when": text}


def _place(view: engine.View, pos: str) -> str:
    """The name of position ``pos`` on the recipient's map in the email's language (its id when it has
    none)."""
    for tile in view["map"]:
        if tile["id"] == pos:
            return place_name(str(tile.get("name") or pos))
    return pos


def content_for(n: Notification, user: User, now: datetime, prompt: Prompt | None) -> EmailContent:
    """Build the email content of one notification from the recipient's own view of the game (call inside
    ``translation.override(user.language)``).

    Args:
        n: a notification about a game (``n.game_id`` is set).
        user: its recipient (time zone for the deadline).
        now: the current time (the deadline says how long is left).
        prompt: the open prompt a decision notification is about (``None``: no deadline and no link).
    """
    game = game_get(n.game_id) if n.game_id is not None else None
    assert game is not None
    gv = game_view(game, user)
    if n.kind in CHAT_KINDS:
        return _chat(n, gv, user, game.title)
    c = _body(n, gv, game.title)
    game_url = absolute_url(reverse("games:detail", args=[game.pk]) + "#decision")
    if n.kind == Notification.Kind.REPLY:
        c = EmailContent(*reply_result(n, gv, game.title))
        if gv.seat is not None and prompt is not None and gv.view is not None:
            c.details += _decision_details(prompt.kind, gv.view, gv.names, gv.seat)
            c.subject = decision_subject(prompt.kind, gv.view, game.title, gv.seat)
    # A reply refused as not theirs may come from someone outside a private game: they are told so, and
    # read nothing of the game (no link, no log).
    visible = visible_to(game, user)
    if n.kind != Notification.Kind.FINISHED and visible:  # the game-over email links result and replay
        c.links.insert(0, (_("Open the game"), game_url))
    if (n.kind in DECISION_KINDS or n.kind == Notification.Kind.REPLY) and prompt is not None:
        c.deadline = _when(user, prompt.deadline_at, now)
        link = link_for_prompt(prompt.kind)
        if link is not None:
            c.links.append((str(link.label), _link_url(n, link.name)))
        _full_play(c, n, gv, user)
    elif n.kind == Notification.Kind.REPLY:
        _full_play(c, n, gv, user, moves=False)  # the new position, though nothing waits for them now
        # issue 30: an answer to commands can be answered with more (a resignation's confirmation, say …)
        c.replyable = c.replyable or (bool(n.data.get("commands")) and gv.seat is not None)
    if n.kind in SINCE_KINDS and visible:
        since_section(c, gv)
    told = {line for item in c.since for line in item}  # said once, in "Since your last move"
    for entry in reversed(gv.log[:4] if visible else []):
        c.log.extend(line for line in entry["lines"] if line not in told)
    c.log = c.log[-8:]
    return c


#: The emails that tell their recipient what touched them since their own last move (issue 30): the
#: decision emails and their reminders, the deadline passed and the game over (and so a digest's entries
#: of these kinds).
SINCE_KINDS = DECISION_KINDS | {
    Notification.Kind.REMINDER,
    Notification.Kind.TIMEOUT,
    Notification.Kind.FINISHED,
}

#: How many items of "Since your last move" an email lists at most (the newest); the page has the rest.
SINCE_MOST = 5


def since_section(c: EmailContent, gv: GameView) -> None:
    """Add "Since your last move" to ``c`` (issue 30): the page's block (:func:`since_model`, from the
    recipient's own redacted log, so it says nothing their log panel could not), its newest
    :data:`SINCE_MOST` items and how many more the page shows. Nothing for a spectator, or when nothing
    touched the recipient since their last move."""
    found = since_model(gv, gv.names)
    items = found["items"]
    kept = items[-SINCE_MOST:]
    c.since = [list(item["lines"]) for item in kept]
    more = int(found["more"]) + len(items) - len(kept)
    if not more:
        c.since_more = ""
        return
    text = ngettext("…and %(n)s more on the game page.", "…and %(n)s more on the game page.", more)
    if text == "…and %(n)s more on the game page." and (translation.get_language() or "en")[:2] != "en":
        # until the language's catalog has it: the page's own words for the items left out
        text = ngettext(
            "%(n)s earlier event: see the game log", "%(n)s earlier events: see the game log", more
        )
    c.since_more = text % {"n": more}


def _full_play(c: EmailContent, n: Notification, gv: GameView, user: User, *, moves: bool = True) -> None:
    """Make a decision email answerable by reply (issue 18): its own Reply-To address and, for players who
    chose full play by email, the position from their own view and their legal moves in the notation,
    numbered. The numbered moves are kept in ``n.data["moves"]`` (a reply's number means that line), the
    seq of the position shown in ``n.data[SHOWN_SEQ]``. Without ``moves`` (a reply's result when nothing
    waits for them) only the position is added."""
    if gv.seat is None or gv.view is None:
        return
    c.replyable = moves
    # The position the email shows: a reply is refused if its player has played since (from the site, the
    # API or another reply), so its moves are never applied on top of the same moves made elsewhere.
    n.data = {**n.data, SHOWN_SEQ: gv.game.seq}
    if not user.email_play and not n.data.get("full"):  # issue 30: "help" and "status" show it to everyone
        return
    state = game_state(gv.game)
    lang = translation.get_language() or "en"
    c.position = position_for(gv.view, gv.names, gv.seat, engine.place_names(state, lang))
    c.details = [line for line in c.details if line not in c.position.battle]  # said once, in the position
    if not moves:
        return
    c.moves, c.forms = engine.move_menu(state, gv.seat, lang)
    n.data = {**n.data, "moves": c.moves}


#: The chat's notification kinds (issue 19).
CHAT_KINDS = frozenset({Notification.Kind.CHAT, Notification.Kind.MESSAGE})


def _chat(n: Notification, gv: GameView, user: User, title: str) -> EmailContent:
    """The email about one chat message (its reader may still read it: checked when it is sent)."""
    message = chat_message_for(n, user)
    if message is None:  # hidden or muted since: the sender skips such rows; a digest shows nothing
        return EmailContent(title, _("This message is no longer shown."))
    c = EmailContent(*chat_email(n, message, gv.names, gv.seat, title))
    url = absolute_url(reverse("games:detail", args=[gv.game.pk]) + f"?chat={chat_key(message, user)}#chat")
    c.links.append((_("Open the chat"), url))
    c.replyable = c.conversation = gv.seat is not None
    return c


def chat_digest(items: list[Notification], user: User) -> EmailContent | None:
    """A day's chat messages of one game gathered into one digest entry (issue 19), oldest first, each as
    ``Anna (table): text``; ``None`` when none of them may still be read."""
    game = game_get(items[0].game_id) if items[0].game_id is not None else None
    if game is None:
        return None
    gv = game_view(game, user, with_log=False)
    messages = [m for m in (chat_message_for(n, user) for n in items) if m is not None]
    if not messages:
        return None
    subject = ngettext(
        "Table talk in “%(title)s”: %(n)s message", "Table talk in “%(title)s”: %(n)s messages", len(messages)
    ) % {"title": game.title, "n": len(messages)}
    c = EmailContent(subject, _("The day's messages:"), [chat_line(m, gv.names, gv.seat) for m in messages])
    c.links.append((_("Open the chat"), absolute_url(reverse("games:detail", args=[game.pk]) + "#chat")))
    return c


def _lobby(n: Notification, title: str) -> EmailContent:
    """The creator's emails about their table filling (issue 16): someone joined; the table is full."""
    data = n.data
    if n.kind == Notification.Kind.JOINED:
        c = EmailContent(
            _("%(who)s joined “%(title)s”") % {"who": data.get("who", "?"), "title": title},
            _("%(who)s took a seat at your table “%(title)s”.")
            % {"who": data.get("who", "?"), "title": title},
        )
        c.details.append(
            _("%(taken)s of %(players)s seats are taken.")
            % {"taken": data.get("taken", "?"), "players": data.get("players", "?")}
        )
        return c
    c = EmailContent(
        _("“%(title)s” is full") % {"title": title},
        _("Every seat at your table “%(title)s” is taken.") % {"title": title},
    )
    c.details.append(
        _("The game has started by itself.") if data.get("auto") else _("Start the game when you are ready.")
    )
    return c


def _body(n: Notification, gv: GameView, title: str) -> EmailContent:
    """Subject, headline and details of ``n`` by its kind, from the recipient's view ``gv``."""
    if n.kind in (Notification.Kind.JOINED, Notification.Kind.FULL):
        return _lobby(n, title)
    view = gv.view
    if view is None:  # games are only mailed about once they have started
        return EmailContent(title, title)
    prompt_kind = str(n.data.get("prompt_kind", ""))
    if n.kind == Notification.Kind.REMINDER:
        c = EmailContent(
            _("Reminder: your move in “%(title)s”") % {"title": title},
            _("Time is running out for your decision in “%(title)s”.") % {"title": title},
        )
        c.details += _decision_details(prompt_kind, view, gv.names, gv.seat)
        return c
    if n.kind in DECISION_KINDS:
        return _decision(n.kind, prompt_kind, title, view, gv.names, gv.seat)
    if n.kind == Notification.Kind.TIMEOUT:
        return _timed_out(n, title)
    if n.kind == Notification.Kind.STARTED:
        return _started(gv, view, title)
    if n.kind == Notification.Kind.FINISHED:
        return _finished(gv, view, title)
    return EmailContent(title, title)


def _timed_out(n: Notification, title: str) -> EmailContent:
    c = EmailContent(
        _("Deadline passed in “%(title)s”") % {"title": title},
        _("Your deadline in “%(title)s” passed, so the game went on without you: %(what)s")
        % {"title": title, "what": timeout_text(n.data.get("action", {}).get("type"))},
    )
    if n.data.get("absent"):
        c.details.append(
            _("You have missed three turns in a row: a bot plays your seat until you come back.")
        )
        c.links.append((_("I'm back — take my seat again"), _link_url(n, BACK)))
    return c


def _started(gv: GameView, view: engine.View, title: str) -> EmailContent:
    """The email that a game has started: the recipient's castle, the turn order and who goes first."""
    names = gv.names
    me = view["players"][gv.seat] if gv.seat is not None else None
    first = view["active"]
    count = len(view["players"])
    order = ", ".join(names.get((first + k) % count, "?") for k in range(count))
    c = EmailContent(
        _("“%(title)s” has started") % {"title": title},
        _("“%(title)s” has started.") % {"title": title},
    )
    if me is not None:
        c.details.append(_("You hold %(castle)s.") % {"castle": me["castle"]})
    c.details.append(_("Turn order: %(order)s.") % {"order": order})
    c.details.append(_("%(who)s goes first.") % {"who": names.get(first, "?")})
    return c


def _finished(gv: GameView, view: engine.View, title: str) -> EmailContent:
    """The email that a game is over: the winners, the recipient's place and VP, and links to the result
    and the replay (issue 16)."""
    winners = ", ".join(gv.names.get(w, "?") for w in view["winners"])
    c = EmailContent(
        _("“%(title)s” is over") % {"title": title},
        _("“%(title)s” is over. Winner: %(winners)s.") % {"title": title, "winners": winners},
    )
    game = gv.game
    c.links += [
        (_("See the result"), absolute_url(reverse("games:detail", args=[game.pk]) + "#result")),
        (_("Watch the replay"), absolute_url(reverse("games:replay", args=[game.pk]))),
    ]
    mine = next((s for s in gv.seats if s.number == gv.seat), None)
    if mine is not None and mine.final_rank is not None:
        c.details.append(
            _("You finished in place %(rank)s with %(vp)s VP.")
            % {"rank": mine.final_rank, "vp": mine.final_vp}
        )
    return c


def _decision(
    kind: str, prompt_kind: str, title: str, view: engine.View, names: dict[int, str], seat: int | None
) -> EmailContent:
    """The email asking for a decision: its subject by ``kind`` and what it is about."""
    subjects: dict[str, str] = {
        Notification.Kind.TURN: _("Your turn in “%(title)s”"),
        Notification.Kind.CONFLICT: _("Battle in “%(title)s”: choose your conflict card"),
        Notification.Kind.SUPPORT: _("Your move in the support step in “%(title)s”"),
        Notification.Kind.RESPONSE: _("Response window in “%(title)s”: play Fracture?"),
        Notification.Kind.CHOICE: _("A choice is yours in “%(title)s”"),
    }
    subject = subjects.get(kind, subjects[Notification.Kind.CHOICE]) % {"title": title}
    c = EmailContent(subject, subject if subject.endswith(("?", "!", ".")) else subject + ".")
    if kind == Notification.Kind.TURN:
        c.headline = _("It is your turn in “%(title)s” (turn %(turn)s).") % {
            "title": title,
            "turn": view["turn"],
        }
    c.details += _decision_details(prompt_kind, view, names, seat)
    return c


#: The words of :func:`decision_subject` (issue 30), until each language's catalog has them.
_SUBJECT_WORDS = (
    gettext_noop("Your turn %(turn)s in “%(title)s”"),
    gettext_noop("Turn %(turn)s in “%(title)s”"),
    gettext_noop("play Fracture on %(artefacts)s?"),
    gettext_noop("battle for %(place)s"),
    gettext_noop("a choice is yours"),
    gettext_noop("%(when)s: %(what)s"),
)
#: The decision email's kind of a prompt kind (its subject when :data:`_SUBJECT_WORDS` are not translated).
_DECISION_KIND: dict[str, str] = {
    **{kind: Notification.Kind.TURN for kind in engine.TURN_KINDS},
    PromptKind.CONFLICT: Notification.Kind.CONFLICT,
    PromptKind.SUPPORT: Notification.Kind.SUPPORT,
    PromptKind.RESPONSE: Notification.Kind.RESPONSE,
}


def _subjects_translated() -> bool:
    """Whether the active language has every word of :func:`decision_subject` (English always)."""
    if (translation.get_language() or "en").startswith("en"):
        return True
    return all(_(word) != word for word in _SUBJECT_WORDS)


def decision_subject(prompt_kind: str, view: engine.View, title: str, seat: int | None) -> str:
    """The subject of the answer to a reply when a decision waits (issue 30): it names that decision,
    ``Your turn 7 in “Mail table”: battle for Fort``, ``Turn 7 in “Mail table”: play Fracture on …?``,
    instead of growing ``Re: Re: …``. Until the language's catalog has these words, the subject of the
    decision email of that kind (``Battle in “Mail table”: choose your conflict card``)."""
    if not _subjects_translated():
        return _decision(
            _DECISION_KIND.get(prompt_kind, Notification.Kind.CHOICE), "", title, view, {}, None
        ).subject
    params = {"turn": view["turn"], "title": title}
    if seat is not None and view["active"] == seat:
        when = _("Your turn %(turn)s in “%(title)s”") % params
    else:
        when = _("Turn %(turn)s in “%(title)s”") % params
    battle, window = view["battle"], view["window"]
    if prompt_kind == PromptKind.RESPONSE and window is not None:
        what = _("play Fracture on %(artefacts)s?") % {
            "artefacts": ", ".join(artefact_name(t) for t in window["targets"])
        }
    elif battle is not None and prompt_kind in (PromptKind.CONFLICT, PromptKind.SUPPORT):
        what = _("battle for %(place)s") % {"place": _place(view, battle["pos"])}
    elif prompt_kind in engine.TURN_KINDS:
        return when
    else:
        what = _("a choice is yours")
    return _("%(when)s: %(what)s") % {"when": when, "what": what}


def _window_details(window: engine.WindowView, view: engine.View, names: dict[int, str]) -> list[str]:
    """The response window's sentences: who uses what, the in-turn lap so far, and (on a secret table)
    that the window tells nobody else whether the reader holds Fracture (R37, issue 14)."""
    arts = ", ".join(artefact_name(t) for t in window["targets"])
    out = [
        _("%(who)s uses %(artefacts)s. Do you play Fracture on it? Answer on the game page, or pass.")
        % {"who": names.get(window["opener"], "?"), "artefacts": arts}
    ]
    for answer in window.get("answers", []):  # in turn: the lap so far, as the rulebook shows it
        who = names.get(answer["seat"], "?")
        if answer["fracture"]:
            out.append(
                _("%(who)s played Fracture on %(artefact)s.")
                % {"who": who, "artefact": artefact_name(answer["fracture"])}
            )
        else:
            out.append(_("%(who)s passed.") % {"who": who})
    # unless only the holders of Fracture are asked, the server passes for the others after a delay
    if view["options"].get("fracture_prompts") != "holders":
        out.append(_("Nobody else learns from this window whether you hold Fracture."))
    return out


def _decision_details(
    prompt_kind: str, view: engine.View, names: dict[int, str], seat: int | None
) -> list[str]:
    """Sentences that say what the decision is about, from the recipient's view only."""
    out: list[str] = []
    battle = view["battle"]
    window = view["window"]
    if prompt_kind == PromptKind.RESPONSE and window is not None:
        out += _window_details(window, view, names)
    elif battle is not None and prompt_kind in (PromptKind.CONFLICT, PromptKind.SUPPORT):
        att, dfd = battle["attacker"], battle["defender"]
        place = _place(view, battle["pos"])
        out.append(
            _("%(att)s attacks %(dfd)s at %(place)s.")
            % {"att": names.get(att["seat"], "?"), "dfd": names.get(dfd["seat"], "?"), "place": place}
        )
        out.append(combat_scores(battle, names))
        if prompt_kind == PromptKind.CONFLICT:
            out.append(_("Choose your conflict card face down."))
        else:
            out.append(_("Play support cards or pass."))
    elif prompt_kind in engine.TURN_KINDS and seat is not None and view["players"]:
        me = view["players"][seat]
        leader = max(view["players"], key=lambda p: p["vp"])
        one = "You have %(vp)s VP and %(knights)s knight in your castle; %(leader)s leads with %(lvp)s VP."
        many = "You have %(vp)s VP and %(knights)s knights in your castle; %(leader)s leads with %(lvp)s VP."
        text = ngettext(
            "You have %(vp)s VP and %(knights)s knight in your castle; %(leader)s leads with %(lvp)s VP.",
            "You have %(vp)s VP and %(knights)s knights in your castle; %(leader)s leads with %(lvp)s VP.",
            int(me["castle_knights"]),
        )
        out.append(
            counted(text, one, many)
            % {
                "vp": me["vp"],
                "knights": me["castle_knights"],
                "leader": names.get(leader["seat"], "?"),
                "lvp": leader["vp"],
            }
        )
    elif prompt_kind:
        choices: dict[str, str] = {
            PromptKind.MAY_DISCARD: _("You may discard one card of your hand."),
            PromptKind.INSIGHT_ORDER: _("Put the cards you looked at back in the order you choose."),
            PromptKind.PROSPERITY: _("Decide whether the card you looked at stays on top of the deck."),
            PromptKind.FEAR: _("Decide whether to use your Fear or Vigour now."),
        }
        out.append(str(choices.get(prompt_kind, _("The game waits for your choice."))))
        choice = view["choice"]
        if choice is not None and choice["seat"] == seat and choice.get("cards"):
            # what the seat looked at (Insight, Prosperity) or may discard: its own view shows it (R95)
            looked = ", ".join(card_name(c["card"]) for c in choice.get("cards", []))
            out.append(_("The cards: %(cards)s.") % {"cards": looked})
    return out


def link_label(action: str) -> str:
    """The button text of a signed link, by its name: an :attr:`games.actions_ui.EmailLink.name` or
    :data:`games.notify.links.BACK`.

    Raises:
        KeyError: an unknown name.
    """
    if action == BACK:
        return _("I'm back — take my seat again")
    return str(EMAIL_LINKS[action].label)


def _link_url(n: Notification, action: str) -> str:
    return absolute_url(reverse("email_link", args=[link_token(n, action)]))


def _unsubscribe_url(user: User, kind: str) -> str:
    return absolute_url(reverse("unsubscribe", args=[unsubscribe_token(user, kind)]))


def build_email(
    n: Notification, user: User, now: datetime, prompt: Prompt | None, items: list[EmailContent] | None = None
) -> EmailMultiAlternatives:
    """The localized text + HTML message of notification ``n`` (a digest when ``items`` is given), with its
    ``Message-ID`` (``n.message_id`` once claimed, else a new one: :func:`message_id`), ``List-Unsubscribe``
    (RFC 2369 / RFC 8058) and per-game threading headers."""
    with translation.override(user.language), timezone.override(user_zone(user)):
        if items is None:
            content = content_for(n, user, now, prompt)
            contents = [content]
            subject = content.subject
        else:
            contents = items
            subject = ngettext(
                "Your daily digest: %(n)s update", "Your daily digest: %(n)s updates", len(items)
            ) % {"n": len(items)}
        kind_label = Notification.Kind(n.kind).label
        context = {
            "user": user,
            "subject": subject,
            "items": contents,
            "digest": items is not None,
            "kind_label": kind_label,
            "unsubscribe_url": _unsubscribe_url(user, n.kind),
            "preferences_url": absolute_url(reverse("accounts:profile") + "#notifications"),
            "site_url": settings.SITE_URL,
        }
        text = render_to_string("email/notification.txt", context)
        html = render_to_string("email/notification.html", context)
    domain = urlsplit(settings.SITE_URL).hostname or "localhost"
    headers = {
        "Message-ID": n.message_id or message_id(),  # a resent copy keeps its own (issue 28)
        "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Auto-Submitted": "auto-generated",
        "X-Auto-Response-Suppress": "All",
    }
    if n.game_id is not None:
        headers["References"] = f"<game.{n.game_id}@{domain}>"
    if items is None and contents[0].replyable:
        headers["Reply-To"] = reply_address(n.pk)
    if n.kind == Notification.Kind.REPLY and n.data.get("in_reply_to"):
        headers["In-Reply-To"] = f"<{n.data['in_reply_to']}>"
        headers["References"] += f" <{n.data['in_reply_to']}>"
    msg = EmailMultiAlternatives(
        subject=single_line(f"[Medieval Mastery] {subject}"), body=text, to=[user.email], headers=headers
    )
    msg.attach_alternative(html, "text/html")
    return msg
