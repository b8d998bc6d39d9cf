"""Sending the outbox (architecture §3 "games/notifications.py"): per-recipient email built from the
recipient's own view of the game (:func:`games.selectors.game_view`, i.e. ``engine.view_for``), never from
raw state; localized (the recipient's language and time zone), text + HTML, with ``List-Unsubscribe`` and
a stable ``Message-ID`` derived from the dedupe key; signed single-use links for the simple answers.

Delivery (:func:`outbox_flush`) takes one pending row at a time under ``SELECT … FOR UPDATE SKIP LOCKED``,
sends it, and marks it sent in the same transaction. If the process dies after the SMTP server accepted the
message but before that commit, the row is still pending and is sent again: the only duplicate possible,
which mail clients drop because the ``Message-ID`` is the same (docs/operations.md "Email delivery").
"""

from __future__ import annotations

import hashlib
import logging
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games import services
from games.log import artefact_name
from games.models import Game, Notification, Prompt
from games.selectors import game_get, game_view
from games.services.outbox import DECISION_KINDS

log = logging.getLogger(__name__)

LINK_SALT = "mastery.email-link"
UNSUBSCRIBE_SALT = "mastery.unsubscribe"
#: Actions a signed email link may take: name -> (payload, prompt kinds it answers).
LINK_ACTIONS: dict[str, tuple[dict[str, Any], frozenset[str]]] = {
    "pass": ({"type": "respond", "fracture": []}, frozenset({"response"})),
    "end_turn": ({"type": "end_turn"}, frozenset({"turn"})),
    "pass_support": ({"type": "pass_support"}, frozenset({"support"})),
}


# --------------------------------------------------------------------------------------------------------
# Signed links
# --------------------------------------------------------------------------------------------------------


class LinkError(Exception):
    """A signed link that cannot be used: ``reason`` is ``invalid``, ``expired`` or ``used``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def link_token(notification: Notification, action: str) -> str:
    """A signed, timestamped token naming one notification and one action (``LINK_ACTIONS`` or ``back``)."""
    return signing.dumps({"n": notification.pk, "a": action}, salt=LINK_SALT, compress=True)


def link_load(token: str) -> tuple[Notification, str]:
    """Check a link token and return its notification and action name.

    Raises:
        LinkError: ``invalid`` (bad signature or unknown notification), ``expired`` (older than
        ``EMAIL_LINK_MAX_AGE`` seconds) or ``used`` (already acted on once).
    """
    try:
        data = signing.loads(token, salt=LINK_SALT, max_age=settings.EMAIL_LINK_MAX_AGE)
    except signing.SignatureExpired as exc:
        raise LinkError("expired") from exc
    except signing.BadSignature as exc:
        raise LinkError("invalid") from exc
    if not isinstance(data, dict) or not isinstance(data.get("n"), int) or not isinstance(data.get("a"), str):
        raise LinkError("invalid")
    action = data["a"]
    if action not in LINK_ACTIONS and action != "back":
        raise LinkError("invalid")
    n = Notification.objects.select_related("game", "recipient").filter(pk=data["n"]).first()
    if n is None or n.game is None:
        raise LinkError("invalid")
    if n.link_used_at is not None:
        raise LinkError("used")
    return n, action


def unsubscribe_token(user: User, kind: str) -> str:
    """A signed token that turns off ``kind`` notifications for ``user`` (no expiry: RFC 8058)."""
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT)


def unsubscribe_load(token: str) -> tuple[User, str]:
    """Check an unsubscribe token; returns the user and kind. Raises ``LinkError("invalid")``."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature as exc:
        raise LinkError("invalid") from exc
    kinds = {k.value for k in Notification.Kind}
    if not isinstance(data, dict) or data.get("k") not in kinds:
        raise LinkError("invalid")
    user_id = data.get("u")
    user = User.objects.filter(pk=user_id).first() if isinstance(user_id, int) else None
    if user is None:
        raise LinkError("invalid")
    return user, str(data["k"])


def _absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def message_id(dedupe_key: str) -> str:
    """The stable ``Message-ID`` of a notification: the same dedupe key always gives the same id, so a mail
    client drops a copy sent twice."""
    digest = hashlib.sha256(dedupe_key.encode()).hexdigest()[:32]
    domain = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"<n.{digest}@{domain}>"


# --------------------------------------------------------------------------------------------------------
# Timing: quiet hours and away periods
# --------------------------------------------------------------------------------------------------------


def _zone(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def quiet_until(user: User, now: datetime) -> datetime | None:
    """The end of the user's quiet hours if ``now`` falls inside them (local wall-clock times in the user's
    time zone; a period may wrap past midnight), else ``None``."""
    start, end = user.quiet_start, user.quiet_end
    if start is None or end is None or start == end:
        return None
    local = now.astimezone(_zone(user))
    t = local.time().replace(tzinfo=None)
    inside = start <= t < end if start < end else (t >= start or t < end)
    if not inside:
        return None
    day = local.date() if t < end else local.date() + timedelta(days=1)
    return datetime.combine(day, end, tzinfo=_zone(user))


def delay_until(user: User, now: datetime) -> datetime | None:
    """When mail to ``user`` may go out if it is not urgent: the end of quiet hours or of an away period
    that covers ``now``, whichever is later; ``None`` if it may go now."""
    ends = []
    quiet = quiet_until(user, now)
    if quiet is not None:
        ends.append(quiet)
    if user.away_from and user.away_until and user.away_from <= now < user.away_until:
        ends.append(user.away_until)
    return max(ends) if ends else None


# --------------------------------------------------------------------------------------------------------
# Content
# --------------------------------------------------------------------------------------------------------


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


def _when(user: User, at: datetime, now: datetime) -> str:
    local = at.astimezone(_zone(user))
    text = date_format(local, "DATETIME_FORMAT") + f" ({user.time_zone})"
    if at > now:
        return _("%(when)s — %(left)s left") % {"when": text, "left": timeuntil(at, now)}
    return _("%(when)s — overdue") % {"when": text}


def _place(view: dict[str, Any], pos: str) -> str:
    for tile in view["map"]:
        if tile["id"] == pos:
            return str(tile.get("name") or pos)
    return pos


def content_for(n: Notification, user: User, now: datetime, prompt: Prompt | None) -> EmailContent:
    """Build the email content of one notification from the recipient's own view of the game (call inside
    ``translation.override(user.language)``)."""

    game = game_get(n.game_id) if n.game_id is not None else None
    assert game is not None
    gv = game_view(game, user)
    view = gv.view or {}
    names = gv.names
    title = game.title
    game_url = _absolute(reverse("games:detail", args=[game.pk]) + "#decision")
    kind = n.kind
    prompt_kind = str(n.data.get("prompt_kind", ""))
    if kind == Notification.Kind.REMINDER:
        c = EmailContent(
            _("Reminder: your move in “%(title)s”") % {"title": title},
            _("Time is running out for your decision in “%(title)s”.") % {"title": title},
        )
        c.details += _decision_details(prompt_kind, view, names, gv.seat)
    elif kind in DECISION_KINDS:
        c = _decision(kind, prompt_kind, title, view, names, gv.seat)
    elif kind == Notification.Kind.TIMEOUT:
        c = EmailContent(
            _("Deadline passed in “%(title)s”") % {"title": title},
            _("Your deadline in “%(title)s” passed, so the game went on without you: %(what)s")
            % {"title": title, "what": _timeout_text(n.data.get("action", {}))},
        )
        if n.data.get("absent"):
            c.details.append(
                _("You have missed three turns in a row: a bot plays your seat until you come back.")
            )
            c.links.append((_("I'm back — take my seat again"), _link_url(n, "back")))
    elif kind == Notification.Kind.STARTED:
        me = view["players"][gv.seat] if gv.seat is not None else None
        first = int(view.get("active", 0))
        count = len(view.get("players", []))
        order = ", ".join(names.get((first + k) % count, "?") for k in range(count))
        c = EmailContent(
            _("“%(title)s” has started") % {"title": title},
            _("“%(title)s” has started.") % {"title": title},
        )
        if me is not None:
            c.details.append(_("You hold %(castle)s.") % {"castle": me["castle"]})
        c.details.append(_("Turn order: %(order)s.") % {"order": order})
        c.details.append(_("%(who)s goes first.") % {"who": names.get(view.get("active", 0), "?")})
    elif kind == Notification.Kind.FINISHED:
        winners = ", ".join(names.get(w, "?") for w in view.get("winners", []))
        c = EmailContent(
            _("“%(title)s” is over") % {"title": title},
            _("“%(title)s” is over. Winner: %(winners)s.") % {"title": title, "winners": winners},
        )
        mine = next((s for s in gv.seats if s.number == gv.seat), None)
        if mine is not None and mine.final_rank is not None:
            c.details.append(
                _("You finished in place %(rank)s with %(vp)s VP.")
                % {"rank": mine.final_rank, "vp": mine.final_vp}
            )
    else:
        c = EmailContent(title, title)
    c.links.insert(0, (_("Open the game"), game_url))
    if kind in DECISION_KINDS and prompt is not None:
        c.deadline = _when(user, prompt.deadline_at, now)
        action = _link_action(prompt.kind)
        if action is not None:
            c.links.append((link_label(action), _link_url(n, action)))
    for entry in reversed(gv.log[:4]):
        c.log.extend(entry["lines"])
    c.log = c.log[-8:]
    return c


def _decision(
    kind: str, prompt_kind: str, title: str, view: dict[str, Any], names: dict[int, str], seat: int | None
) -> EmailContent:
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


def _decision_details(
    prompt_kind: str, view: dict[str, Any], names: dict[int, str], seat: int | None
) -> list[str]:
    """Sentences that say what the decision is about, from the recipient's view only."""
    out: list[str] = []
    battle = view.get("battle")
    window = view.get("window")
    if prompt_kind == "response" and window is not None:
        arts = ", ".join(artefact_name(t) for t in window["targets"])
        out.append(
            _("%(who)s uses %(artefacts)s. Do you play Fracture on it? Answer on the game page, or pass.")
            % {"who": names.get(window["opener"], "?"), "artefacts": arts}
        )
        # with the option fracture_prompts="holders" only the holders of Fracture are asked
        if view.get("options", {}).get("fracture_prompts") != "holders":
            out.append(_("Every seated player is asked, whatever their hand."))
    elif battle is not None and prompt_kind in ("conflict", "support"):
        att, dfd = battle["attacker"], battle["defender"]
        place = _place(view, battle["pos"])
        out.append(
            _("%(att)s attacks %(dfd)s at %(place)s.")
            % {"att": names.get(att["seat"], "?"), "dfd": names.get(dfd["seat"], "?"), "place": place}
        )
        out.append(
            _("Combat scores so far: %(att)s %(a)s, %(dfd)s %(d)s.")
            % {
                "att": names.get(att["seat"], "?"),
                "a": att["score"],
                "dfd": names.get(dfd["seat"], "?"),
                "d": dfd["score"],
            }
        )
        if prompt_kind == "conflict":
            out.append(_("Choose your conflict card face down."))
        else:
            out.append(_("Play support cards or pass."))
    elif prompt_kind in ("turn", "manoeuvre", "vitality") and seat is not None and view.get("players"):
        me = view["players"][seat]
        leader = max(view["players"], key=lambda p: p["vp"])
        out.append(
            _("You have %(vp)s VP and %(knights)s knights in your castle; %(leader)s leads with %(lvp)s VP.")
            % {
                "vp": me["vp"],
                "knights": me["castle_knights"],
                "leader": names.get(leader["seat"], "?"),
                "lvp": leader["vp"],
            }
        )
    elif prompt_kind:
        choices = {
            "may_discard": _("You may discard one card of your hand."),
            "insight_order": _("Put the cards you looked at back in the order you choose."),
            "prosperity": _("Decide whether the card you looked at stays on top of the deck."),
            "fear": _("Decide whether to use your Fear or Vigour now."),
        }
        out.append(str(choices.get(prompt_kind, _("The game waits for your choice."))))
    return out


def _timeout_text(action: dict[str, Any]) -> str:
    texts = {
        "respond": _("you passed the response window."),
        "choose_conflict": _("your lowest conflict card was placed."),
        "pass_support": _("you passed your support move."),
        "end_turn": _("your turn was ended."),
        "decline_advance": _("your advance was skipped."),
        "finish_redistribution": _("your redistribution was finished as it stood."),
    }
    return texts.get(str(action.get("type")), _("the default choice was made for you."))


def _link_action(prompt_kind: str) -> str | None:
    for name, (_payload, kinds) in LINK_ACTIONS.items():
        if prompt_kind in kinds:
            return name
    return None


def link_label(action: str) -> str:
    """The button text of a link action (``LINK_ACTIONS`` or ``back``)."""
    return {
        "pass": _("Pass this response window"),
        "end_turn": _("End my turn"),
        "pass_support": _("Pass my support move"),
        "back": _("I'm back — take my seat again"),
    }[action]


def _link_url(n: Notification, action: str) -> str:
    return _absolute(reverse("email_link", args=[link_token(n, action)]))


def _unsubscribe_url(user: User, kind: str) -> str:
    return _absolute(reverse("unsubscribe", args=[unsubscribe_token(user, kind)]))


def build_email(
    n: Notification, user: User, now: datetime, prompt: Prompt | None, items: list[EmailContent] | None = None
) -> EmailMultiAlternatives:
    """The localized text + HTML message of notification ``n`` (a digest when ``items`` is given), with a
    stable ``Message-ID``, ``List-Unsubscribe`` (RFC 2369 / RFC 8058) and per-game threading headers."""
    with translation.override(user.language), timezone.override(_zone(user)):
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
            "preferences_url": _absolute(reverse("accounts:profile") + "#notifications"),
            "site_url": settings.SITE_URL,
        }
        text = render_to_string("email/notification.txt", context)
        html = render_to_string("email/notification.html", context)
    domain = urlsplit(settings.SITE_URL).hostname or "localhost"
    headers = {
        "Message-ID": message_id(n.dedupe_key),
        "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Auto-Submitted": "auto-generated",
        "X-Auto-Response-Suppress": "All",
    }
    if n.game_id is not None:
        headers["References"] = f"<game.{n.game_id}@{domain}>"
    msg = EmailMultiAlternatives(
        subject=f"[Medieval Mastery] {subject}", body=text, to=[user.email], headers=headers
    )
    msg.attach_alternative(html, "text/html")
    return msg


# --------------------------------------------------------------------------------------------------------
# Delivery
# --------------------------------------------------------------------------------------------------------


def _skip(n: Notification, reason: str) -> None:
    n.status = Notification.Status.SKIPPED
    n.skip_reason = reason
    n.save(update_fields=["status", "skip_reason"])


def _open_prompt(n: Notification) -> Prompt | None:
    if n.game_id is None or n.seat is None:
        return None
    return Prompt.objects.filter(game_id=n.game_id, seat=n.seat, key=n.prompt_key).first()


def _deliver(n: Notification, now: datetime, connection: BaseEmailBackend) -> bool:
    """Send one locked pending row, or move it on (skip, digest, postpone). Returns whether mail went out."""
    user = n.recipient
    if not user.is_active or not user.email:
        _skip(n, "no address")
        return False
    mode = user.notify_mode(n.kind)
    if mode == "off":
        _skip(n, "off")
        return False
    prompt = None
    if n.kind in DECISION_KINDS:
        prompt = _open_prompt(n)
        if prompt is None:
            _skip(n, "decided")  # the decision was made (or timed out) before the mail went out
            return False
    if mode == "digest":
        n.status = Notification.Status.DIGEST
        n.save(update_fields=["status"])
        return False
    later = delay_until(user, now)
    if later is not None and not (prompt is not None and prompt.deadline_at <= later):
        n.send_after = later  # quiet hours or away: non-urgent mail waits
        n.save(update_fields=["send_after"])
        return False
    connection.send_messages([build_email(n, user, now, prompt)])
    n.status = Notification.Status.SENT
    n.sent_at = timezone.now()
    n.save(update_fields=["status", "sent_at"])
    return True


def outbox_flush(*, game_id: int | None = None, now: datetime | None = None, limit: int = 500) -> int:
    """Send every due pending notification (of one game, or all), one row per transaction, each row locked
    with ``SKIP LOCKED`` so concurrent workers never send the same row. Running it twice sends nothing
    the second time.

    Returns:
        How many emails were sent.
    """
    now = now or timezone.now()
    sent = 0
    connection = get_connection()
    try:
        for _ in range(limit):
            with transaction.atomic():
                rows = Notification.objects.select_for_update(skip_locked=True, of=("self",)).filter(
                    status=Notification.Status.PENDING, send_after__lte=now
                )
                if game_id is not None:
                    rows = rows.filter(game_id=game_id)
                n = rows.select_related("recipient").order_by("send_after", "pk").first()
                if n is None:
                    break
                sent += _deliver(n, now, connection)
    finally:
        connection.close()
    return sent


def digests_send(*, now: datetime | None = None) -> int:
    """Send each user's daily digest once per local day, after ``DIGEST_HOUR`` in their time zone: every
    notification they chose to receive as a digest that still makes sense (decisions not yet made). A user
    who turned the digest itself off (its ``List-Unsubscribe`` link) gets none: the waiting items are
    skipped (reason ``off``).

    Returns:
        How many digests were sent (a second run the same day sends none).
    """
    now = now or timezone.now()
    sent = 0
    user_ids = (
        Notification.objects.filter(status=Notification.Status.DIGEST)
        .values_list("recipient_id", flat=True)
        .distinct()
    )
    connection = get_connection()
    try:
        for user in User.objects.filter(pk__in=list(user_ids)):
            local = now.astimezone(_zone(user))
            if local.time() < time(settings.DIGEST_HOUR):
                continue
            key = f"{user.pk}:-:digest:{local.date().isoformat()}"
            with transaction.atomic():
                if Notification.objects.filter(dedupe_key=key).exists():
                    continue
                items = list(
                    Notification.objects.select_for_update(skip_locked=True, of=("self",))
                    .filter(recipient=user, status=Notification.Status.DIGEST)
                    .order_by("created_at", "pk")
                )
                keep: list[tuple[Notification, Prompt | None]] = []
                for item in items:
                    prompt = _open_prompt(item) if item.kind in DECISION_KINDS else None
                    if user.notify_mode(Notification.Kind.DIGEST) == "off":
                        _skip(item, "off")  # the digest's own List-Unsubscribe turned digests off
                    elif item.kind in DECISION_KINDS and prompt is None:
                        _skip(item, "decided")
                    else:
                        keep.append((item, prompt))
                if not keep:
                    continue
                digest = Notification.objects.create(
                    recipient=user,
                    kind=Notification.Kind.DIGEST,
                    dedupe_key=key,
                    created_at=now,
                    send_after=now,
                    data={"items": len(keep)},
                )
                with translation.override(user.language), timezone.override(_zone(user)):
                    contents = [content_for(item, user, now, prompt) for item, prompt in keep]
                connection.send_messages([build_email(digest, user, now, None, items=contents)])
                Notification.objects.filter(pk__in=[item.pk for item, _prompt in keep]).update(
                    status=Notification.Status.SENT, sent_at=now, digest=digest
                )
                digest.status = Notification.Status.SENT
                digest.sent_at = now
                digest.save(update_fields=["status", "sent_at"])
                sent += 1
    finally:
        connection.close()
    return sent


def link_act(token: str) -> tuple[Game, str]:
    """Act on a signed email link (its POST): apply the named answer to the named prompt once, as the
    notification's seat, with source ``email``; ``back`` ends the seat's absence.

    Returns:
        The game and the action name.

    Raises:
        LinkError: invalid, expired or used. :class:`games.services.ServiceError`: the decision was already
        made (409) or the rules refuse the answer now (422); nothing is changed and the link stays unused.
    """
    with transaction.atomic():
        n, action = link_load(token)
        n = (
            Notification.objects.select_for_update(of=("self",))
            .select_related("game", "recipient")
            .get(pk=n.pk)
        )
        if n.link_used_at is not None:
            raise LinkError("used")
        assert n.game is not None
        if action == "back":
            services.seat_return(game_id=n.game.pk, user=n.recipient)
        else:
            payload = LINK_ACTIONS[action][0]
            assert n.seat is not None
            services.prompt_answer(game_id=n.game.pk, seat=n.seat, key=n.prompt_key, payload=payload)
        n.link_used_at = timezone.now()
        n.save(update_fields=["link_used_at"])
        return n.game, action
