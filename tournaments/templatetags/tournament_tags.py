"""``{% events_profile user %}``: the profile's "Your events" panel, so that the accounts app shows it
without importing the tournaments."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User
from tournaments import selectors

register = template.Library()


@register.inclusion_tag("tournaments/_profile.html")
def events_profile(user: User) -> dict[str, Any]:
    """The context of ``tournaments/_profile.html`` for ``user``: their entries, newest event first."""
    return {"entries": selectors.events_of(user)}
