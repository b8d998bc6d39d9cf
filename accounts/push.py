"""Web Push subscriptions of the profile, one per device (issue 32; the W3C Push API, RFC 8030, RFC 8291).

The profile's push section (``templates/accounts/_push.html``, driven by ``static/js/pwa.js``) asks the
browser for a subscription with the site's VAPID public key and posts its JSON here
(:func:`push_subscribe`); each device is listed with a button that removes it (:func:`push_unsubscribe`,
a plain form that also works without JavaScript).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import re
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .models import PushSubscription, User

#: Most bytes of a subscription's JSON (an endpoint is at most 1000 characters, the keys about 150).
BODY_MAX = 4096
#: Most devices one account may subscribe (the oldest is replaced beyond).
DEVICES_MAX = 20


class Refused(ValueError):
    """A subscription that cannot be stored; the message says why (shown to the user)."""


def _b64url(value: object, size: int, name: str) -> str:
    """``value`` if it is base64url (padding optional) of exactly ``size`` bytes, else :class:`Refused`."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_-]+=*", value):
        raise Refused(f"keys.{name} is not base64url")
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise Refused(f"keys.{name} is not base64url") from exc
    if len(raw) != size:
        raise Refused(f"keys.{name} must be {size} bytes")
    return value.rstrip("=")


def endpoint_allowed(endpoint: str) -> bool:
    """Whether the site may POST pushes to ``endpoint``: an ``https`` URL with a host name that is not a
    private, loopback or link-local IP literal, nor ``localhost``; outside production also
    ``http://127.0.0.1``/``localhost`` (a local push-service stub; browsers allow push on loopback)."""
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018  # raises ValueError on a bad port
    except ValueError:
        return False
    if not host or parts.username or parts.password:
        return False
    loopback = host in ("127.0.0.1", "localhost", "::1")
    if parts.scheme == "http":
        return loopback and not settings.PRODUCTION
    if parts.scheme != "https":
        return False
    if loopback:
        return not settings.PRODUCTION
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return not host.endswith((".localhost", ".local", ".internal"))
    return address.is_global


def subscription_fields(body: bytes) -> dict[str, str]:
    """Read a ``PushSubscription.toJSON()`` (W3C Push API §4.2: ``{"endpoint": …, "keys": {"p256dh": …,
    "auth": …}}``; ``expirationTime`` ignored) into the model's ``endpoint``, ``p256dh`` (an uncompressed
    P-256 point, 65 bytes) and ``auth`` (16 bytes, RFC 8291 §3.2), base64url.

    Raises:
        Refused: the body is not such JSON, the keys have the wrong size, or the endpoint is not allowed
            (:func:`endpoint_allowed`).
    """
    if len(body) > BODY_MAX:
        raise Refused("the subscription is too large")
    try:
        data: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused("the body is not JSON") from exc
    if not isinstance(data, dict):
        raise Refused("the body is not a subscription")
    endpoint, keys = data.get("endpoint"), data.get("keys")
    if not isinstance(endpoint, str) or not 0 < len(endpoint) <= 1000 or not isinstance(keys, dict):
        raise Refused("the subscription needs an endpoint and keys")
    if not endpoint_allowed(endpoint):
        raise Refused("this push service is not allowed")
    p256dh = _b64url(keys.get("p256dh"), 65, "p256dh")
    if base64.urlsafe_b64decode(p256dh + "=" * (-len(p256dh) % 4))[0] != 4:
        raise Refused("keys.p256dh must be an uncompressed point")
    return {"endpoint": endpoint, "p256dh": p256dh, "auth": _b64url(keys.get("auth"), 16, "auth")}


#: (pattern in the User-Agent, name), first match wins.
_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def device_label(user_agent: str) -> str:
    """A device's name from its ``User-Agent``: "Firefox on Android", "Chrome on Linux"; ``""`` when
    neither is known."""
    browser = next((name for key, name in _BROWSERS if key in user_agent), "")
    system = next((name for key, name in _SYSTEMS if key in user_agent), "")
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system


def _user(request: HttpRequest) -> User | None:
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated else None


@require_POST
def push_subscribe(request: HttpRequest) -> HttpResponse:
    """POST a subscription's JSON (:func:`subscription_fields`, CSRF token in ``X-CSRFToken``): store it for
    the signed-in user, one row per endpoint (a device that signs in as someone else moves to them).

    Returns:
        201 ``{"id": …, "label": …}``; 400 ``{"error": …}`` for a body that is not a usable subscription;
        403 when not signed in.
    """
    user = _user(request)
    if user is None:
        return JsonResponse({"error": "sign in first"}, status=403)
    try:
        fields = subscription_fields(request.body)
    except Refused as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    label = device_label(request.headers.get("User-Agent", ""))[:120]
    with transaction.atomic():
        sub, _created = PushSubscription.objects.update_or_create(
            endpoint=fields["endpoint"],
            defaults={"user": user, "p256dh": fields["p256dh"], "auth": fields["auth"], "label": label},
        )
        extra = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")[DEVICES_MAX:]
        PushSubscription.objects.filter(pk__in=list(extra.values_list("pk", flat=True))).delete()
    return JsonResponse({"id": sub.pk, "label": sub.label}, status=201)


@require_POST
def push_unsubscribe(request: HttpRequest) -> HttpResponse:
    """Remove one of the signed-in user's devices: the form's ``id`` (the profile's "Remove" button:
    redirects back to the profile), or a JSON ``{"endpoint": …}`` (the page's "Turn off" on this device:
    204). Another user's device, or one already gone, is left alone with the same answer.

    Returns:
        302 to the profile, or 204; 400 for a body that names no device; 403 when not signed in (JSON) or
        a redirect to the login page (form).
    """
    user = _user(request)
    if request.content_type == "application/json":
        if user is None:
            return JsonResponse({"error": "sign in first"}, status=403)
        try:
            data: Any = json.loads(request.body[:BODY_MAX])
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("endpoint"), str):
            return JsonResponse({"error": "name the endpoint"}, status=400)
        PushSubscription.objects.filter(user=user, endpoint=data["endpoint"]).delete()
        return HttpResponse(status=204)
    if user is None:
        return redirect(f"{reverse(settings.LOGIN_URL)}?next={reverse('accounts:profile')}")
    pk = request.POST.get("id", "")
    if not pk.isdigit():
        return HttpResponse(_("Name the device to remove."), status=400, content_type="text/plain")
    deleted, _rows = PushSubscription.objects.filter(user=user, pk=int(pk)).delete()
    if deleted:
        messages.success(request, _("The device no longer gets notifications."))
    return redirect(reverse("accounts:profile") + "#push")


def push_key(request: HttpRequest) -> HttpResponse:
    """GET the site's VAPID public key (base64url, RFC 8292 §3.2; public by design) for
    ``PushManager.subscribe``'s ``applicationServerKey``, and whether the browser's current subscription
    (``?endpoint=…``) is one of the signed-in user's devices: ``{"publicKey": "…", "known": bool}``; the
    key is ``""`` when this server has no keys (push is off)."""
    if request.method not in ("GET", "HEAD"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
    has_both = bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)
    user, endpoint = _user(request), request.GET.get("endpoint", "")
    known = bool(user and endpoint and PushSubscription.objects.filter(user=user, endpoint=endpoint).exists())
    return JsonResponse({"publicKey": settings.VAPID_PUBLIC_KEY if has_both else "", "known": known})
