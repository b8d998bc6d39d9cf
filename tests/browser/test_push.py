"""issue 32 in Chromium: the installable app and Web Push, as far as an offline machine allows.

What runs for real: the service worker registers at scope "/" and takes control of the page; the manifest
is linked and parses; the profile's "Get notifications on this device" asks for permission, subscribes
and lists the device; a push with the payload the server built for the player's turn after a bot's move is
delivered to the service worker, which shows the notification; its click handler takes the window to the
game's decision.

What cannot run offline, and stands in for it: Chromium's ``PushManager.subscribe`` registers with Google's
push service (FCM) over the network, so the page's ``subscribe`` is replaced (an init script) by one that
returns a subscription with real P-256 keys and a local endpoint; and no push service can reach the
browser, so the push is delivered with the DevTools protocol (``ServiceWorker.deliverPushMessage``), which
fires the worker's ``push`` event with the same data a push service would. A real notification click needs
the operating system's notification centre: the test runs the worker's own click function through a
message (``notification-click``), the same code ``notificationclick`` runs.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.utils import timezone
from playwright.sync_api import expect
from pytest_django import Settings

from accounts.models import PushSubscription
from games.management.commands.vapid_keys import vapid_pair
from games.models import Notification, Prompt
from games.notify import push as notify_push
from tests.browser.conftest import Web, login_context
from tests.web.conftest import create_started_game, create_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _fake_subscribe_script(endpoint: str) -> str:
    """An init script: ``PushManager.prototype.subscribe`` and ``getSubscription`` without a push service,
    returning a subscription with real keys (what the browser would send the site)."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    data = {
        "endpoint": endpoint,
        "expirationTime": None,
        "keys": {"p256dh": _b64url(point), "auth": _b64url(os.urandom(16))},
    }
    return FAKE_SUBSCRIBE.replace("__DATA__", json.dumps(data))


#: ``PushManager``'s ``subscribe`` and ``getSubscription`` without a push service (``__DATA__``: the
#: subscription's JSON).
FAKE_SUBSCRIBE = """
(() => {
  const data = __DATA__;
  const key = "mastery-fake-subscription";
  const make = () => ({
    endpoint: data.endpoint,
    toJSON: () => data,
    unsubscribe: async () => { localStorage.removeItem(key); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    const appKey = options && options.applicationServerKey;
    if (!options.userVisibleOnly || !appKey || appKey.length !== 65) throw new Error("bad options");
    localStorage.setItem(key, "1");
    return make();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem(key) ? make() : null;
  };
})();
"""


def test_install_subscribe_push_and_click_to_the_decision(web: Web, settings: Settings) -> None:
    """The player subscribes on the profile, the bot moves, the server's push for the player's turn reaches
    the service worker, the notification shows "Your turn in …", and its click opens the game at
    ``#decision``; the manifest parses and names the icons."""
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = vapid_pair()
    alice = create_user("push-alice@example.com", display_name="Alice")
    ctx = login_context(web, alice)
    ctx.grant_permissions(["notifications"], origin=web.base_url)
    ctx.add_init_script(_fake_subscribe_script("http://127.0.0.1:9/push/alice"))
    page = ctx.new_page()
    page.goto("/accounts/profile/#push")

    # the service worker registers at the root and controls the page (clients.claim)
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == web.base_url + "/"
    page.wait_for_function("navigator.serviceWorker.controller !== null")

    # the manifest is linked and parses
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    manifest: dict[str, Any] = page.evaluate("(url) => fetch(url).then((r) => r.json())", href)
    assert manifest["display"] == "standalone" and {i["sizes"] for i in manifest["icons"]} == {
        "192x192",
        "512x512",
    }
    for icon in manifest["icons"]:
        assert page.request.get(icon["src"]).headers["content-type"] == "image/png"

    # subscribe this device with the keyboard
    status = page.locator("[data-push-state]")
    expect(status).to_have_attribute("data-push-state", "available")
    button = page.get_by_role("button", name="Get notifications on this device")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".push-devices li")).to_have_count(1)
    expect(status).to_have_attribute("data-push-state", "subscribed")
    [sub] = PushSubscription.objects.filter(user=alice)
    assert sub.label == "Chrome on Linux"

    # a game against a bot: after the bot's move it is Alice's turn; the server builds her push
    game = create_started_game(humans=[alice], bots=1, title="Push table")
    turn = Notification.objects.filter(game=game, recipient=alice, kind=Notification.Kind.TURN).latest("pk")
    assert turn.seat is not None
    prompt = Prompt.objects.get(game=game, seat=turn.seat, key=turn.prompt_key)
    payload = notify_push.payload_for(turn, alice, timezone.now(), prompt)
    assert payload["url"] == f"/games/{game.pk}/#decision"

    cdp = ctx.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.wait_for_timeout(200)
    [registration] = [r for r in registrations if r["scopeURL"] == web.base_url + "/" and not r["isDeleted"]][
        :1
    ]
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": web.base_url,
            "registrationId": registration["registrationId"],
            "data": json.dumps(payload),
        },
    )
    # Wait inside the page until the worker has shown it: a predicate given to wait_for_function that
    # returns a Promise is truthy at once, so under load the read below could come before the push.
    shown = page.evaluate(
        """async () => {
             const r = await navigator.serviceWorker.ready;
             let ns = await r.getNotifications();
             for (let frame = 0; !ns.length && frame < 600; frame++) {  // a bound, not a timing claim
               await new Promise((done) => requestAnimationFrame(done));
               ns = await r.getNotifications();
             }
             return ns.map((n) => ({title: n.title, body: n.body, tag: n.tag, icon: n.icon,
                                    url: n.data.url}));
           }"""
    )
    assert shown == [
        {
            "title": payload["title"],
            "body": payload["body"],
            "tag": f"game-{game.pk}",
            "icon": web.base_url + payload["icon"],
            "url": f"{web.base_url}/games/{game.pk}/#decision",
        }
    ]
    assert shown[0]["title"] == "Your turn in “Push table”"

    # the click handler's own code takes this window to the decision
    page.evaluate(
        "(tag) => navigator.serviceWorker.controller.postMessage({type: 'notification-click', tag})",
        f"game-{game.pk}",
    )
    page.wait_for_url(f"**/games/{game.pk}/#decision")
    expect(page.locator("#decision")).to_be_visible()
    left = page.evaluate(
        "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((n) => n.length)"
    )
    assert left == 0  # the click closed it

    # turning it off on this device removes the device
    page.goto("/accounts/profile/#push")
    page.get_by_role("button", name="Turn off on this device").click()
    expect(page.locator(".push-devices li")).to_have_count(0)
    assert not PushSubscription.objects.filter(user=alice).exists()
    web.assert_clean()


def test_offline_navigation_shows_the_offline_page(web: Web) -> None:
    """With the network gone, a page the service worker controls answers a navigation with the cached
    offline page."""
    alice = create_user("push-offline@example.com")
    ctx = login_context(web, alice)
    page = ctx.new_page()
    page.goto("/games/")
    page.evaluate("navigator.serviceWorker.ready")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    # caches.has answers a Promise, which wait_for_function would take as truthy at once: wait in the page
    page.evaluate(
        """async () => {
             for (let frame = 0; frame < 600 && !(await caches.has('mastery-offline-1')); frame++) {
               await new Promise((done) => requestAnimationFrame(done));
             }
           }"""
    )
    ctx.set_offline(True)
    page.goto("/rules/")
    expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    ctx.set_offline(False)
