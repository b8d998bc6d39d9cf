"""``{% calendar_addresses user as cal %}``: the two addresses of a user's calendar of deadlines (issue 32,
``accounts/calendar.py``) for the profile's calendar section."""

from __future__ import annotations

from typing import TypedDict

from django import template
from django.urls import reverse

from accounts.models import User
from games.notify.links import absolute_url

register = template.Library()


class CalendarAddresses(TypedDict):
    """A feed's address for a browser or a calendar app's "subscribe by URL" (``https``) and for a
    calendar app opened by a click (``webcal``, the same address under that scheme)."""

    https: str
    webcal: str


@register.simple_tag
def calendar_addresses(user: User) -> CalendarAddresses | None:
    """The addresses of ``user``'s calendar feed, from ``settings.SITE_URL`` (``None`` when they have none).

    Returns:
        ``{"https": "https://example.org/calendar/<token>.ics", "webcal": "webcal://example.org/…"}``
        (``http`` in development).
    """
    token = getattr(user, "calendar_token", None)
    if not token:
        return None
    url = absolute_url(reverse("calendar_feed", args=[token]))
    return {"https": url, "webcal": "webcal://" + url.split("://", 1)[1]}
