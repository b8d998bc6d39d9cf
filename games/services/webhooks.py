"""Game webhooks (issue 32): a table's creator adds Discord, Slack or signed JSON hooks; every move write
that opens a new player's turn, or ends the game, queues one :class:`~games.models.WebhookDelivery` per
active hook in its own transaction, and the ``webhooks_send`` task posts them after commit
(:mod:`games.notify.webhooks`, which formats, signs and sends).

What is queued is the JSON form's event, built from the spectator's view only (``engine.view_for(state,
None)``): whose turn it is, the turn number, and at the end the winners and everyone's VP. No card, hand,
face-down conflict card or sealed answer is ever read, so none can leak into a message.

Addresses (SSRF): only ``https://`` URLs, plus ``http(s)://127.0.0.1[:port]`` when
``settings.WEBHOOKS_ALLOW_LOCALHOST`` is true (the embedded default and the tests; false in production).
The host is resolved (``socket.getaddrinfo``) and refused if any address is not a public unicast one
(private, loopback, link-local, multicast, reserved, unspecified, shared, IPv6 ULA…; IPv4-mapped IPv6
addresses are judged as IPv4). The sender resolves and checks again at every post and connects to the
address it checked (DNS rebinding).

Retries: a failed post is tried again after 1, 2, 4 … minutes (capped at an hour), at most
:data:`MAX_ATTEMPTS` times. ``GameWebhook.failures`` counts failed posts in a row of any of the hook's
deliveries; at :data:`PAUSE_AFTER` the hook is paused, its waiting deliveries are given up, and its creator
is emailed through the outbox. A successful post resets the count.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import engine
from games.models import Game, GameWebhook, Seat, WebhookDelivery
from games.services.errors import NUL, BadPayload, Conflict, Forbidden, NotFound
from games.services.outbox import queue_account_mail
from games.services.published import TASKS

log = logging.getLogger(__name__)

#: A delivery is given up after this many failed posts.
MAX_ATTEMPTS = 8
#: A hook is paused after this many failed posts in a row (of any of its deliveries).
PAUSE_AFTER = 8
#: The first retry's delay; each next one doubles, up to :data:`MAX_DELAY`.
FIRST_DELAY = timedelta(minutes=1)
MAX_DELAY = timedelta(hours=1)
#: How many hooks a table may have.
MAX_HOOKS = 5
#: The longest URL accepted (``GameWebhook.url``'s column).
MAX_URL = 500
#: The one host name allowed over plain http, and to a loopback address, when the setting allows it.
LOCALHOST = "127.0.0.1"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressRefused(BadPayload):
    """The URL is not one a webhook may post to (400): not https, a private address, no such host."""

    code = "webhook_refused"


def allow_localhost() -> bool:
    """Whether ``http://127.0.0.1[:port]`` is accepted (``settings.WEBHOOKS_ALLOW_LOCALHOST``; true unless
    ``MASTERY_ENV=production``)."""
    return bool(getattr(settings, "WEBHOOKS_ALLOW_LOCALHOST", not getattr(settings, "PRODUCTION", False)))


def address_refused(ip: IPAddress, *, loopback_ok: bool = False) -> bool:
    """Whether a webhook may not connect to ``ip``: anything but a public unicast address (Python's
    ``ipaddress``: not ``is_global``, or multicast, private, loopback, link-local, reserved, unspecified;
    site-local IPv6 too). An IPv4-mapped IPv6 address (``::ffff:10.0.0.1``) is judged as its IPv4 address.
    ``loopback_ok`` lets ``127.0.0.1`` itself through (the development allowance)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if loopback_ok and ip == ipaddress.IPv4Address(LOCALHOST):
        return False
    return (
        not ip.is_global
        or ip.is_multicast
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_unspecified
        or (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local)
    )


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: ``scheme`` (``"https"`` or ``"http"``), ``host`` (as written, for the Host
    header and TLS), ``port``, ``path`` (with the query) and the ``addresses`` it resolved to, all
    allowed; the sender connects to the first."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def url_check(url: str, *, resolve: bool = True) -> Target:
    """Check a webhook URL and resolve its host (the SSRF rules of this module).

    Args:
        url: the URL as entered (surrounding spaces are removed).
        resolve: resolve the host with ``socket.getaddrinfo`` and check every address (``False`` checks
            the form only, and ``addresses`` is empty).

    Returns:
        The :class:`Target`.

    Raises:
        AddressRefused: not ``https://`` (or ``http://127.0.0.1`` in development), credentials in the URL,
            no host, a host that does not resolve, or an address that is not public.
    """
    url = url.strip()
    if not url or len(url) > MAX_URL or NUL in url or any(c.isspace() for c in url):
        raise AddressRefused(_("Enter a valid URL (at most %(n)d characters).") % {"n": MAX_URL})
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise AddressRefused(_("Enter a valid URL.")) from exc
    host = (parts.hostname or "").rstrip(".").lower()
    local = allow_localhost() and host == LOCALHOST
    if parts.scheme not in ("https", "http") or (parts.scheme == "http" and not local):
        if allow_localhost():
            raise AddressRefused(_("Only https:// addresses are accepted (and http://127.0.0.1 here)."))
        raise AddressRefused(_("Only https:// addresses are accepted."))
    if not host:
        raise AddressRefused(_("Enter a valid URL."))
    if parts.username is not None or parts.password is not None:
        raise AddressRefused(_("A webhook URL may not hold a user name or password."))
    port = port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not resolve:
        return Target(parts.scheme, host, port, path, ())
    return Target(parts.scheme, host, port, path, resolve_host(host, port, loopback_ok=local))


def resolve_host(host: str, port: int, *, loopback_ok: bool = False) -> tuple[str, ...]:
    """The addresses of ``host`` (``socket.getaddrinfo``, TCP), every one of them checked by
    :func:`address_refused`.

    Raises:
        AddressRefused: the host does not resolve, or one of its addresses is not public.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise AddressRefused(_("The address's host could not be found.")) from exc
    addresses: list[str] = []
    for info in infos:
        text = str(info[4][0]).split("%", 1)[0]  # an IPv6 scope id ("fe80::1%eth0")
        try:
            ip = ipaddress.ip_address(text)
        except ValueError as exc:
            raise AddressRefused(_("The address's host could not be found.")) from exc
        if address_refused(ip, loopback_ok=loopback_ok):
            raise AddressRefused(_("Webhooks may not post to private or local network addresses."))
        if text not in addresses:
            addresses.append(text)
    if not addresses:
        raise AddressRefused(_("The address's host could not be found."))
    return tuple(addresses)


def _own_game(game_id: int, user: User) -> Game:
    """The game ``game_id`` if ``user`` created it.

    Raises:
        NotFound: no such game.
        Forbidden: someone else created it.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound("no such game", game_id=game_id)
    if not user.is_authenticated or game.created_by_id != user.pk:
        raise Forbidden(_("Only the table's creator can change its webhooks."))
    return game


def _own_hook(game_id: int, hook_id: int, user: User) -> GameWebhook:
    """The hook ``hook_id`` of game ``game_id``, locked, if ``user`` created the game.

    Raises:
        NotFound: no such game or hook.
        Forbidden: someone else created the game.
    """
    _own_game(game_id, user)
    hook = GameWebhook.objects.select_for_update().filter(pk=hook_id, game_id=game_id).first()
    if hook is None:
        raise NotFound(_("No such webhook."))
    return hook


def webhook_add(*, game_id: int, user: User, kind: str, url: str) -> GameWebhook:
    """Add a webhook to a table (its creator only).

    Args:
        game_id: the table.
        user: who asks; must be the game's creator.
        kind: ``"discord"``, ``"slack"`` or ``"json"`` (``GameWebhook.Kind``).
        url: where to post: checked and resolved by :func:`url_check`.

    Returns:
        The new hook, active, with a fresh random ``secret`` (the JSON form's HMAC key).

    Raises:
        NotFound: no such game. Forbidden: not its creator. Conflict: the game is over, or it has
        :data:`MAX_HOOKS` hooks already. BadPayload: an unknown kind; :class:`AddressRefused`: the URL.
    """
    game = _own_game(game_id, user)
    if kind not in GameWebhook.Kind.values:
        raise BadPayload(_("Choose Discord, Slack or signed JSON."))
    if game.status == Game.Status.FINISHED:
        raise Conflict(_("This game is over."))
    target = url_check(url)
    with transaction.atomic():
        Game.objects.select_for_update().filter(pk=game.pk).first()  # counts one table's hooks at a time
        if GameWebhook.objects.filter(game=game).count() >= MAX_HOOKS:
            raise Conflict(_("A table can have at most %(n)d webhooks.") % {"n": MAX_HOOKS})
        clean = url.strip()
        log.info("webhook added to game %s (%s, host %s)", game.pk, kind, target.host)
        return GameWebhook.objects.create(
            game=game, created_by=user, kind=kind, url=clean, created_at=timezone.now()
        )


@transaction.atomic
def webhook_remove(*, game_id: int, hook_id: int, user: User) -> None:
    """Delete a hook and its deliveries (the game's creator only).

    Raises:
        NotFound: no such game or hook. Forbidden: not the game's creator.
    """
    _own_hook(game_id, hook_id, user).delete()


@transaction.atomic
def webhook_resume(*, game_id: int, hook_id: int, user: User) -> GameWebhook:
    """Resume a paused hook (the game's creator only): the failure count starts again at 0; what was
    given up while it was paused is not sent.

    Raises:
        NotFound: no such game or hook. Forbidden: not the game's creator.
    """
    hook = _own_hook(game_id, hook_id, user)
    hook.paused_at = None
    hook.failures = 0
    hook.save(update_fields=["paused_at", "failures"])
    return hook


def game_url(game: Game) -> str:
    """The game page's absolute URL (``settings.SITE_URL`` + ``/games/<id>/``)."""
    return settings.SITE_URL.rstrip("/") + reverse("games:detail", args=[game.pk])


def _turns(state: engine.GameState, opened: Sequence[engine.Prompt]) -> list[engine.Prompt]:
    """The turn-level prompts among ``opened``: key ``t<turn>:turn:<seat>`` of the current turn."""
    return [p for p in opened if p.key == f"t{state.turn}:turn:{p.seat}" and not p.auto]


def _events(
    game: Game,
    state: engine.GameState,
    seats: Sequence[Seat],
    opened: Sequence[engine.Prompt],
    finished: bool,
) -> list[tuple[str, dict[str, Any]]]:
    """The events of one write, each ``(ref, body)``: a new turn per turn-level prompt opened (its key
    ``t<turn>:turn:<seat>`` is the ref), and the result when the game ended (ref ``finished``). Built from
    the spectator's view only."""
    turns = _turns(state, opened)
    if not turns and not finished:
        return []
    view = engine.view_for(state, None)
    names = {s.number: s.name for s in seats}
    head = {"id": game.pk, "title": game.title, "url": game_url(game)}
    events: list[tuple[str, dict[str, Any]]] = []
    if finished:
        vp = {p["seat"]: p["vp"] for p in view["players"]}
        scores = [{"seat": n, "name": names.get(n, ""), "vp": vp.get(n, 0)} for n in sorted(vp)]
        winners = [s for s in scores if s["seat"] in set(view["winners"] or [])]
        body = {"event": "finished", "game": head, "turn": view["turn"], "winners": winners, "scores": scores}
        events.append(("finished", body))
        return events  # no "your turn" once the game is over
    for p in turns:
        body = {
            "event": "turn",
            "game": head,
            "turn": view["turn"],
            "player": {"seat": p.seat, "name": names.get(p.seat, "")},
        }
        events.append((p.key, body))
    return events


def webhooks_queue(
    *,
    game: Game,
    state: engine.GameState,
    seats: Sequence[Seat],
    opened: Sequence[engine.Prompt],
    finished: bool,
    now: datetime,
) -> int:
    """Queue the webhook posts of one move write, inside its transaction (called by
    ``services.play.move_store``): one delivery per active hook and event (:func:`_events`), keyed
    ``hook:<id>:<prompt key>`` or ``hook:<id>:finished`` so that the same turn or result posts once. After
    commit, ``webhooks_send`` is published. Costs no query when the write opened no turn and ended nothing,
    one when it did and the table has no active hook.

    Returns:
        How many deliveries were queued (rows already there are not counted twice, but are still kept).
    """
    if not finished and not _turns(state, opened):
        return 0
    hooks = list(GameWebhook.objects.filter(game=game, paused_at__isnull=True).values_list("pk", flat=True))
    if not hooks:
        return 0
    events = _events(game, state, seats, opened, finished)  # the view is built only for a table with hooks
    rows = [
        WebhookDelivery(
            hook_id=hook, dedupe_key=f"hook:{hook}:{ref}", body=body, created_at=now, next_try_at=now
        )
        for hook in hooks
        for ref, body in events
    ]
    WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
    transaction.on_commit(enqueue_webhooks)
    return len(rows)


def enqueue_webhooks() -> None:
    """Publish one ``webhooks_send`` task (after commit). Never raises: the minute's webhook sweep posts
    what a lost task left."""
    try:
        TASKS.webhooks_send.delay()
    except Exception:
        log.warning("could not enqueue webhook posts; the sweep will send them")


def retry_delay(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed post: 1 min, 2, 4, 8 … capped at :data:`MAX_DELAY`."""
    delay: timedelta = FIRST_DELAY * (2 ** min(max(0, attempts - 1), 20))
    return min(delay, MAX_DELAY)


def deliveries_due(*, now: datetime, limit: int = 100) -> list[int]:
    """The ids of pending deliveries due at ``now`` (oldest first) whose hook is not paused."""
    rows = WebhookDelivery.objects.filter(
        status=WebhookDelivery.Status.PENDING, next_try_at__lte=now, hook__paused_at__isnull=True
    ).order_by("next_try_at", "pk")
    return list(rows.values_list("pk", flat=True)[:limit])


@transaction.atomic
def delivery_claim(*, delivery_id: int, now: datetime) -> WebhookDelivery | None:
    """Take one due delivery for a post: its ``attempts`` goes up and ``next_try_at`` moves to the retry
    time (:func:`retry_delay`), so a worker that dies mid-post leaves it for a later retry, and another
    worker does not post it at the same time (row lock, ``skip_locked``).

    Returns:
        The delivery with its hook and the hook's creator, or ``None`` if it is not (or no longer) due.
    """
    row = (
        WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("hook", "hook__created_by", "hook__game")
        .filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING, next_try_at__lte=now)
        .first()
    )
    if row is None or row.hook.paused_at is not None:
        return None
    row.attempts += 1
    row.next_try_at = now + retry_delay(row.attempts)
    row.save(update_fields=["attempts", "next_try_at"])
    return row


@transaction.atomic
def delivery_sent(*, delivery_id: int, now: datetime) -> None:
    """Record a successful post: the delivery is ``sent``; its hook's failure count is reset."""
    WebhookDelivery.objects.filter(pk=delivery_id).update(
        status=WebhookDelivery.Status.SENT, sent_at=now, last_error=""
    )
    hook_id = WebhookDelivery.objects.filter(pk=delivery_id).values_list("hook_id", flat=True).first()
    if hook_id is not None:
        GameWebhook.objects.filter(pk=hook_id).update(failures=0)


@transaction.atomic
def delivery_failed(
    *,
    delivery_id: int,
    error: str,
    now: datetime,
    notice: Callable[[GameWebhook], dict[str, object]],
) -> bool:
    """Record a failed post: ``last_error``; the delivery is given up after :data:`MAX_ATTEMPTS` (else it
    waits for the retry time :func:`delivery_claim` set); the hook's failures in a row go up, and at
    :data:`PAUSE_AFTER` the hook is paused, its waiting deliveries given up and its creator emailed.

    Args:
        error: a short reason (``"HTTP 500"``, ``"timeout"``), cut to 200 characters.
        notice: builds the creator's email (``games.notify.account_mail.message_data`` form) for a
            paused hook; the presentation layer provides it.

    Returns:
        Whether this failure paused the hook.
    """
    row = WebhookDelivery.objects.select_for_update().filter(pk=delivery_id).first()
    if row is None:
        return False
    hook = GameWebhook.objects.select_for_update().select_related("created_by", "game").get(pk=row.hook_id)
    row.last_error = error[:200]
    if row.attempts >= MAX_ATTEMPTS:
        row.status = WebhookDelivery.Status.FAILED
    row.save(update_fields=["last_error", "status"])
    hook.failures = min(hook.failures + 1, 32767)
    paused = hook.paused_at is None and hook.failures >= PAUSE_AFTER
    if paused:
        hook.paused_at = now
        WebhookDelivery.objects.filter(hook=hook, status=WebhookDelivery.Status.PENDING).update(
            status=WebhookDelivery.Status.FAILED, last_error="hook paused"
        )
        queue_account_mail(user_id=hook.created_by_id, message=notice(hook), now=now)
        log.warning("webhook %s of game %s paused after %d failures", hook.pk, hook.game_id, hook.failures)
    hook.save(update_fields=["failures", "paused_at"])
    return paused


def hooks_of(game: Game, user: Any) -> list[tuple[GameWebhook, str]] | None:
    """The hooks of ``game``, each with the error of its last failed post (``""`` if none), for its
    creator's panel; ``None`` for anyone else (the panel is not shown). A read: writes nothing."""
    if not getattr(user, "is_authenticated", False) or game.created_by_id != user.pk:
        return None
    hooks = list(GameWebhook.objects.filter(game=game).order_by("pk"))
    result: list[tuple[GameWebhook, str]] = []
    for hook in hooks:
        last = hook.deliveries.exclude(last_error="").order_by("-pk").values_list("last_error", flat=True)
        result.append((hook, last.first() or ""))
    return result
