"""A database that drops its connections gets a clean "try again", never Django's HTML 500 page (issue 28).

A lost connection (``django.db.OperationalError`` or ``InterfaceError``: a failover, a restart, an
administrator's ``pg_terminate_backend``) is answered 503 with ``Retry-After`` and no detail of the error:

* under ``/api/``, in the API's error shape ``{"error": "unavailable", "message": ..., "params": {}}``
  (``games.api`` answers the ones raised inside an endpoint, this module the ones raised in a middleware,
  e.g. while the session's user is loaded);
* for a form sent to a page (POST), a "try again" panel whose form posts the same fields again
  (``expected_seq`` included), so nothing typed is lost; for an htmx POST from the game page's decision panel,
  that panel;
* for any other page, a simple "try again" page.

A read (GET or HEAD) runs once more on a fresh connection before it is answered 503: the broken connections
are closed and everything below :class:`DatabaseUnavailableMiddleware` (the other middleware and the view)
runs again. A submit (POST and the other methods) is never run again here: its transaction committed or did
not, and the client's ``expected_seq`` makes the client's own retry safe (an action already applied is
refused as stale).

Wiring: :class:`DatabaseUnavailableMiddleware` near the top of ``settings.MIDDLEWARE`` (its
``process_exception`` answers a view's error, its ``process_response`` retries a read), and
:func:`server_error` as ``handler500`` in ``mastery.urls``: an error raised inside another middleware never
reaches ``process_exception``, only Django's 500 handler, which runs inside the ``except`` block
(``sys.exc_info``).
With ``DEBUG`` on, Django shows its debug page for those instead of calling the handler.

Sources: Django docs "Middleware" (``process_exception``, "Exception handling"), "Customizing error views"
(``handler500``), "Databases" (persistent connections); django-ninja docs "Handling errors".
"""

from __future__ import annotations

import logging
import sys
from typing import Any, cast

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _
from django.views import defaults

log = logging.getLogger(__name__)

#: Seconds a client is asked to wait before trying again (the ``Retry-After`` header).
RETRY_AFTER_SECONDS = 5
#: The API's ``error`` code for a lost database connection.
UNAVAILABLE = "unavailable"
#: The errors that mean the database connection is lost (Django's wrappers of the driver's errors).
CONNECTION_ERRORS: tuple[type[Exception], ...] = (OperationalError, InterfaceError)
#: Methods run once more on a fresh connection: reads, which change nothing a second run could repeat.
READS = frozenset({"GET", "HEAD"})
#: The URL namespace of the JSON API (``NinjaAPI(urls_namespace=...)`` in ``games.api``).
API_NAMESPACE = "api"
TEMPLATE = "unavailable.html"
#: Marks the 503 that carries the decision panel with its "Try again" form: ``static/js/game.js`` lets htmx
#: swap it in (``base.html``'s htmx-config swaps no 5xx, so that a proxy's error page never replaces a panel).
TRY_AGAIN_HEADER = "X-Try-Again"
#: Posted fields never written back into a page: a password stays out of the HTML; the CSRF token is
#: replaced by a fresh one.
_SECRET_PARTS = ("password",)
_DROPPED = frozenset({"csrfmiddlewaretoken"})
#: Request attributes: the connection was lost while answering; the read was already run a second time.
_LOST = "mastery_database_lost"
_RETRIED = "mastery_database_retried"


def is_connection_lost(exc: BaseException | None) -> bool:
    """Whether ``exc`` is a lost (or refused) database connection: ``django.db.OperationalError`` or
    ``InterfaceError``. Any other error (a bug, an integrity error) is not."""
    return isinstance(exc, CONNECTION_ERRORS)


def note_lost(request: HttpRequest, exc: BaseException) -> None:
    """Mark ``request`` as having lost its database connection, so that
    :class:`DatabaseUnavailableMiddleware` runs a read again, and log a warning for the operator.

    Args:
        exc: the error, logged with its class and text (the log is the operator's; no response shows it).
    """
    setattr(request, _LOST, True)
    again = request.method in READS and not getattr(request, _RETRIED, False)
    log.warning(
        "database connection lost answering %s %s (%s: %s); %s",
        request.method,
        request.path,
        type(exc).__name__,
        str(exc).strip(),
        "running it again on a fresh connection" if again else "answered 503",
    )


def close_broken_connections() -> None:
    """Close every open database connection that had an error or no longer answers, so that the next query
    opens a fresh one (Django's own test before reusing a persistent connection, ``is_usable``). A connection
    inside a transaction is left alone: closing it there would only mark the transaction for rollback."""
    for conn in connections.all(initialized_only=True):
        if conn.connection is None or conn.in_atomic_block:
            continue
        if conn.errors_occurred or not conn.is_usable():
            conn.close()


def is_api(request: HttpRequest) -> bool:
    """Whether ``request`` is for the JSON API (its path resolves into the API's URL namespace)."""
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return API_NAMESPACE in match.namespaces


def unavailable_message() -> str:
    """The sentence a client shows for a lost database connection (in the active language)."""
    return _("The server lost its connection to the database for a moment. Try again in a few seconds.")


def unavailable_body() -> dict[str, Any]:
    """The API's error body for a lost database connection:
    ``{"error": "unavailable", "message": ..., "params": {}}``."""
    return {"error": UNAVAILABLE, "message": unavailable_message(), "params": {}}


def _no_view(request: HttpRequest) -> HttpResponse:  # pragma: no cover - never called
    return HttpResponse(status=204)


def _csrf_passes(request: HttpRequest) -> bool:
    """Whether ``request`` passed (or passes now) Django's CSRF check. A form is written back into the page
    only then: a cross-site POST that met a lost connection before the check ran must not come back as a
    ready-to-send form with a valid token."""
    if getattr(request, "csrf_processing_done", False):
        return True
    return CsrfViewMiddleware(_no_view).process_view(request, _no_view, (), {}) is None


def kept_fields(request: HttpRequest) -> list[tuple[str, str]] | None:
    """The posted fields of ``request`` to post again from the "try again" panel, in their order (a field sent
    twice is kept twice), without the CSRF token.

    Returns:
        ``None`` when nothing is to be written back: not a form POST, a file upload (a file cannot be put
        back), a password field, a body that cannot be read, or a request that fails the CSRF check.
    """
    if request.method != "POST":
        return None
    try:
        post, files = request.POST, request.FILES
    except Exception:  # a body Django refuses to parse (too large, malformed): nothing to write back
        return None
    if files or any(part in name.lower() for name in post for part in _SECRET_PARTS):
        return None
    if not _csrf_passes(request):
        return None
    return [(name, value) for name, values in post.lists() if name not in _DROPPED for value in values]


def _page(request: HttpRequest) -> HttpResponse:
    """The HTML answer: the decision panel (htmx POST from the game page's decision panel, marked by
    :data:`TRY_AGAIN_HEADER`), a one-line notice (other htmx requests: htmx swaps no 5xx, so the page stays as
    it was and a poll tries again by itself), or a whole "try again" page.

    Rendered without a request context: the context processors and the session's user would query the
    database this answer is about."""
    fields = kept_fields(request)
    context: dict[str, Any] = {
        "fields": fields,
        "action": request.get_full_path(),
        "csrf_token": get_token(request) if fields is not None else "",
        "submit": request.method not in READS,
        "stale_safe": fields is not None and any(name == "expected_seq" for name, _value in fields),
    }
    if request.headers.get("HX-Request") == "true":
        if fields is not None and request.headers.get("HX-Target") == "decision":
            response = HttpResponse(render_to_string(f"{TEMPLATE}#decision", context), status=503)
            response[TRY_AGAIN_HEADER] = "form"  # static/js/game.js swaps this 503 in (htmx swaps no 5xx)
            return response
        return HttpResponse(render_to_string(f"{TEMPLATE}#notice", context), status=503)
    return HttpResponse(render_to_string(TEMPLATE, context), status=503)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """The 503 answer to ``request`` for a lost database connection: JSON for the API, else a "try again"
    panel or page (see the module's docstring). It runs no query and shows nothing of the error.

    Returns:
        A 503 with ``Retry-After`` (:data:`RETRY_AFTER_SECONDS`) and ``Cache-Control: no-store``.
    """
    if is_api(request):
        response: HttpResponse = JsonResponse(unavailable_body(), status=503)
    else:
        response = _page(request)
        # XFrameOptionsMiddleware does not see an answer made for an error raised in an outer middleware
        response["X-Frame-Options"] = settings.X_FRAME_OPTIONS
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a lost database connection is :func:`unavailable_response` (and marks the request for
    the read's retry); any other error is Django's 500 page, or under ``/api/`` the API's error shape
    ``{"error": "server_error", ...}``. Django calls it inside its ``except`` block, so
    ``sys.exc_info()`` holds the error (Django docs "Customizing error views").

    Returns:
        A 503 for a lost connection, else a 500.
    """
    exc = sys.exc_info()[1]
    if exc is not None and is_connection_lost(exc):
        note_lost(request, exc)
        return unavailable_response(request)
    if is_api(request):
        body = {"error": "server_error", "message": _("Something went wrong on the server."), "params": {}}
        return JsonResponse(body, status=500)
    return defaults.server_error(request)


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Answers a lost database connection with 503 and runs a read once more on a fresh connection.

    Place it above every middleware that may query the database (the session, the user): what it runs again
    is everything below it. ``process_exception`` answers an error raised by a view; :func:`server_error`
    (``handler500``) one raised by another middleware; ``games.api`` one raised inside an API endpoint. All
    three mark the request, and ``process_response`` then runs a GET or HEAD a second time after closing the
    broken connections. A second loss is answered 503.

    Written with Django's ``MiddlewareMixin`` hooks rather than a ``__call__`` of its own, so that no frame of
    this module stays on the stack while the view runs (tests/web/test_submit_path.py counts them).
    """

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        """``response``, or for a read that lost its connection, the answer of its second run."""
        retry = request.method in READS and not getattr(request, _RETRIED, False)
        if retry and getattr(request, _LOST, False):
            close_broken_connections()
            setattr(request, _LOST, False)
            setattr(request, _RETRIED, True)
            # the site runs under WSGI (gunicorn): the synchronous chain returns a response, not an awaitable
            response = cast(HttpResponseBase, self.get_response(request))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view's lost connection is :func:`unavailable_response`; any other error is left to Django
        (``None``)."""
        if not is_connection_lost(exception):
            return None
        note_lost(request, exception)
        return unavailable_response(request)
