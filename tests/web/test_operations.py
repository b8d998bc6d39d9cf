"""Issue 16, the people who run the site: the health endpoint and the demo game's clock."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import pytest
from django.contrib.sites.models import Site
from django.core import mail
from django.core.management import call_command
from django.db import DatabaseError
from django.test import Client
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks

from games.models import Game, Prompt

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_cache() -> None:
    """``/healthz`` answers 200 with both parts "ok", never cached, without logging in."""
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert response["Cache-Control"] == "no-store"


def test_healthz_is_503_when_a_part_fails() -> None:
    """A database error or a cache that does not keep a value makes it 503, naming the part (no details)."""
    with mock.patch("games.web.site.Game.objects.exists", side_effect=DatabaseError("down")):
        response = Client().get("/healthz")
    assert response.status_code == 503 and response.json()["database"] == "error"
    assert "down" not in response.content.decode()
    with mock.patch("games.web.site.cache.get", return_value=None):
        response = Client().get("/healthz")
    assert response.status_code == 503 and response.json() == {
        "status": "error",
        "database": "ok",
        "cache": "error",
    }
    assert Client().post("/healthz").status_code == 405


def test_the_demo_game_has_a_relaxed_clock() -> None:
    """The README's first command creates a demo game whose deadlines are days away, not minutes."""
    call_command("demo", stdout=mock.MagicMock())
    game = Game.objects.get(title="Demo game")
    assert game.time_control == "relaxed" and game.options["fracture_windows"] == "in_turn"
    deadlines = [p.deadline_at for p in Prompt.objects.filter(game=game)]
    assert deadlines and min(deadlines) > timezone.now() + timedelta(days=2)


def test_emails_greet_with_the_site_name_and_confirming_logs_in(
    settings: Any, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    """The Site takes SITE_NAME and SITE_URL's host after migrate, so allauth's emails say "Hello from
    Medieval Mastery!" (not example.com); confirming the address just signed up with logs the user in.
    (The email goes through the outbox after the response: tests/web/test_account_mail.py.)"""
    site = Site.objects.get(pk=settings.SITE_ID)
    assert site.name == settings.SITE_NAME == "Medieval Mastery"
    assert site.domain == urlsplit(settings.SITE_URL).netloc
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/accounts/signup/",
            {
                "email": "new@example.com",
                "display_name": "New",
                "password1": "a-long-Castle-password-42",
                "password2": "a-long-Castle-password-42",
            },
        )
    assert response.status_code == 302
    [message] = mail.outbox
    body = str(message.body)
    assert "Medieval Mastery" in body and "example.com!" not in body
    link = re.search(r"https?://\S+(/accounts/confirm-email/[^\s/]+/)", body)
    assert link is not None
    client.post(link.group(1))
    assert client.get("/").wsgi_request.user.is_authenticated
