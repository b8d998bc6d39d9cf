"""The installable app (issue 32): the service worker at the site's root, the web app manifest and the
offline page the service worker shows when a navigation fails.

The service worker (``templates/pwa/sw.js``) must be served from ``/`` to control every page (its scope is
at most its own directory: W3C Service Workers §"Service worker script request"); it shows Web Push
notifications (:mod:`games.notify.push` builds their payload), opens the game at its decision on a click,
sets the app badge (W3C Badging API) and answers a failed navigation with :func:`offline`. The manifest
follows the W3C "Web Application Manifest".
"""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

#: The site's colours (static/css/site.css): the header's ink (theme) and the parchment (background).
THEME_COLOR = "#2b2118"
BACKGROUND_COLOR = "#f4ecd8"
#: Bump to make installed service workers drop their offline cache and fetch it anew.
CACHE_VERSION = "1"


@require_safe
@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: the service worker, scope ``/`` (``Service-Worker-Allowed`` is not needed at the root);
    revalidated on every update check (``Cache-Control: no-cache``)."""
    config = {
        "cache": f"mastery-offline-{CACHE_VERSION}",
        "offline": reverse("offline"),
        "precache": [reverse("offline"), static("css/site.css"), static("icons/crest.svg")],
        "icon": static("icons/icon-192.png"),
        "badge": static("icons/badge-96.png"),
    }
    # our own URLs, as a JavaScript object literal (JSON with <, > and & escaped, as json_script does)
    text = json.dumps(config).translate({ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"})
    return render(
        request, "pwa/sw.js", {"config": mark_safe(text)}, content_type="text/javascript; charset=utf-8"
    )


def manifest_data() -> dict[str, object]:
    """The manifest's members (W3C Web Application Manifest): names, ``start_url`` (the player's games),
    scope ``/``, ``display: standalone``, the site's colours and the icons (192 and 512 px PNGs, and a
    512 px ``maskable`` one whose crest stays inside the 80 % safe zone)."""
    return {
        "name": _("Medieval Mastery"),
        "short_name": _("Mastery"),
        "description": _("Medieval Mastery online — a play-by-email board game."),
        "id": "/",
        "start_url": reverse("games:my_games"),
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND_COLOR,
        "theme_color": THEME_COLOR,
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {
                "src": static("icons/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }


@require_safe
def manifest(request: HttpRequest) -> HttpResponse:
    """``/manifest.webmanifest`` as ``application/manifest+json`` (:func:`manifest_data`), in the
    request's language."""
    return JsonResponse(
        manifest_data(), content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False}
    )


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """``/offline/``: the page the service worker shows when a page cannot be loaded. It is cached once for
    everyone, so it names no user and has no form."""
    return render(request, "pwa/offline.html")
