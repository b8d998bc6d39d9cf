"""``{% anarchy_profile user %}``: the profile's Castle Defence panel (streak and best answer), so that the
accounts app shows it without importing the Anarchy."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User
from anarchy import puzzles

register = template.Library()


@register.inclusion_tag("anarchy/_profile.html")
def anarchy_profile(user: User) -> dict[str, Any]:
    """The context of ``anarchy/_profile.html`` for ``user``: their :class:`puzzles.Streak`."""
    return {"streak": puzzles.streak(user) if user.is_authenticated else None}
