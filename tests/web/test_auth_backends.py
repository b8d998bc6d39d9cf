"""The authentication backends' pre-built user lookup (accounts/backends.py) answers exactly as Django's
``ModelBackend.get_user`` does, and a logged-in session is served through it."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.test import Client
from django.urls import reverse

from accounts.backends import AuthenticationBackend, ModelBackend, user_by_pk
from accounts.models import User
from tests.web.conftest import PASSWORD, model_fields

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("backend", [ModelBackend(), AuthenticationBackend()])
def test_get_user_matches_djangos_model_backend(backend: Any, user: User) -> None:
    reference = DjangoModelBackend()
    for key in (user.pk, str(user.pk)):  # sessions store the key as a string
        found = backend.get_user(key)
        assert found is not None and model_fields(found) == model_fields(reference.get_user(key))
    for unknown in (user.pk + 1000, "not-a-number", None, ""):
        assert backend.get_user(unknown) is None
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert reference.get_user(user.pk) is None
    assert backend.get_user(user.pk) is None  # inactive users are refused, as by ModelBackend


def test_user_by_pk_returns_inactive_users_too(user: User) -> None:
    User.objects.filter(pk=user.pk).update(is_active=False)
    found = user_by_pk(str(user.pk))
    assert found is not None and found.pk == user.pk and not found.is_active


def test_site_login_uses_the_fast_backends_and_serves_pages(user: User) -> None:
    assert settings.AUTHENTICATION_BACKENDS == [
        "accounts.backends.ModelBackend",
        "accounts.backends.AuthenticationBackend",
    ]
    c = Client()
    response = c.post(reverse("account_login"), {"login": user.email, "password": PASSWORD})
    assert response.status_code == 302
    assert c.session["_auth_user_backend"] in settings.AUTHENTICATION_BACKENDS
    page = c.get(reverse("games:my_games"))
    assert page.status_code == 200 and page.wsgi_request.user.pk == user.pk
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert c.get(reverse("games:my_games")).status_code == 302  # a deactivated user is logged out at once
