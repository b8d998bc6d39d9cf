"""Authentication backends whose per-request user lookup is one pre-built statement.

Every logged-in request loads its user through the session's backend (``get_user``; Django docs
"Customizing authentication in Django: Writing an authentication backend"). Django's ``ModelBackend`` runs
a fresh ORM query for it, whose compilation was about a tenth of a game page's CPU (issue 3 "Speed it must
reach"). These subclasses read the same row through :mod:`mastery.rowsql` and apply the same check; logging
in (``authenticate``) and permissions are the parents' own.
"""

from __future__ import annotations

import functools
from typing import Any

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.core.exceptions import ValidationError

from accounts.models import User, users_table


@functools.cache
def _user_by_pk() -> str:
    users = users_table()
    pk = User._meta.pk
    assert pk is not None
    return f"SELECT {users.columns('u')} FROM {users.name} u WHERE u.{pk.column} = %s"


def user_by_pk(user_id: Any) -> User | None:
    """The user with primary key ``user_id`` (an int, or its string form as sessions store it), or
    ``None`` when there is none or ``user_id`` is not a valid key. Never raises for bad input."""
    pk = User._meta.pk
    assert pk is not None
    try:
        value = pk.to_python(user_id)
    except ValidationError:
        return None
    users = users_table()
    rows = users.fetch(_user_by_pk(), [value])
    return users.load(rows[0]) if rows else None


class FastUserMixin:
    """``get_user`` through :func:`user_by_pk`; like ``ModelBackend.get_user``, an inactive user is
    ``None`` (``user_can_authenticate``)."""

    def get_user(self, user_id: Any) -> User | None:
        """The active user with this primary key, or ``None`` (Django ``ModelBackend.get_user``)."""
        user = user_by_pk(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None  # type: ignore[attr-defined]


class ModelBackend(FastUserMixin, DjangoModelBackend):
    """Django's ``ModelBackend`` (log in with email and password through the admin or ``Client.login``)."""


class AuthenticationBackend(FastUserMixin, AllauthBackend):  # type: ignore[misc]  # allauth is untyped
    """allauth's backend (log in by email, the site's sign-in form)."""
