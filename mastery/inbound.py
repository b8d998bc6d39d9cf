"""The platform's inbound mail router (issue 33): a received mail goes to the game whose address it is.

Each game registers a :class:`Route` in its ``AppConfig.ready``: Medieval Mastery (``games.apps``) for its
``play+…`` reply addresses, Castle Defence (``anarchy.apps``) for its ``puzzle+…`` ones. The receivers (the
LMTP/SMTP receiver and provider webhooks, in ``games.receiver``) ask :func:`accepts` at ``RCPT TO`` and hand
the whole mail to :func:`store`, so the platform never learns a game's address format and Medieval Mastery
never learns the Anarchy's names.

A mail goes to the first route that accepts one of its envelope recipients, else one of the addresses in its
``To``, ``Cc`` and ``Delivered-To`` headers (a receiver that does not know the envelope). A mail no route
accepts goes to the *fallback* route when one is registered (Medieval Mastery's: it stores such mail as
refused, as before the router, so a provider's webhook keeps a record of it); otherwise it is dropped and
logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from email.utils import getaddresses

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Route:
    """One game's inbound mail: ``name`` (for the logs), ``accepts(address)`` (whether an address is one of
    the game's reply addresses, well signed) and ``store(raw, rcpt, via, mail_from)`` (store the mail and
    enqueue its processing after commit; returns whether it was new, ``False`` for a second copy)."""

    name: str
    accepts: Callable[[str], bool]
    store: Callable[[bytes, list[str], str, str | None], bool]


_routes: list[Route] = []
_fallback: list[Route] = []


def register(route: Route, *, fallback: bool = False) -> None:
    """Add ``route`` (replacing a route of the same name, so a second ``ready`` changes nothing). With
    ``fallback`` it also receives the mail that no route accepts."""
    _routes[:] = [r for r in _routes if r.name != route.name] + [route]
    if fallback:
        _fallback[:] = [route]


def routes() -> tuple[Route, ...]:
    """The registered routes, in order."""
    return tuple(_routes)


def route_for(address: str) -> Route | None:
    """The first route that accepts ``address`` (``None``: none does)."""
    return next((route for route in _routes if _safe_accepts(route, address)), None)


def _safe_accepts(route: Route, address: str) -> bool:
    try:
        return bool(route.accepts(address))
    except Exception:  # a route must not make the receiver fail for another game's mail
        log.exception("inbound route %s failed on an address", route.name)
        return False


def accepts(address: str) -> bool:
    """Whether some game receives mail at ``address`` (the SMTP receiver refuses others at ``RCPT TO``)."""
    return route_for(address) is not None


def header_addresses(raw: bytes) -> list[str]:
    """The lower-case addresses of the ``To``, ``Cc`` and ``Delivered-To`` headers of ``raw``, in order."""
    headers = BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
    found: list[str] = []
    for name in ("To", "Cc", "Delivered-To"):
        values = [str(v) for v in headers.get_all(name) or []]
        found += [addr.strip().lower() for _display, addr in getaddresses(values) if "@" in addr]
    return found


def store(raw: bytes, rcpt: list[str], via: str, mail_from: str | None = None) -> bool:
    """Hand one received mail to the route it is addressed to (envelope recipients first, then the
    headers' addresses), or else to the fallback route. Returns what the route's ``store`` returns (whether
    the mail was new), or ``False`` when no route takes it (it is logged and dropped)."""
    route = next((r for r in (route_for(a) for a in rcpt) if r is not None), None)
    if route is None:
        route = next((r for r in (route_for(a) for a in header_addresses(raw)) if r is not None), None)
    if route is None and _fallback:
        route = _fallback[0]
    if route is None:
        log.warning("inbound mail via %s to %s: no game receives it; dropped", via, rcpt or "(no envelope)")
        return False
    return route.store(raw, list(rcpt), via, mail_from)
