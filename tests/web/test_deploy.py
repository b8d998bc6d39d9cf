"""issue 3: `manage.py check --deploy` is clean with production environment variables, settings fail loudly
on bad values, and migrations are in step with the models."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MASTERY_ENV", "DEBUG")}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True
    )


def test_check_deploy_is_clean_in_production(tmp_path: Path) -> None:
    """Production settings pass every deployment check (HTTPS, HSTS, secure cookies, secret key...)."""
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        MASTERY_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="mastery.example.com",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        MASTERY_VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_without_secret_key_fails_loudly(tmp_path: Path) -> None:
    """Architecture §3: settings fail loudly on missing or bad values."""
    result = _manage(
        "check", MASTERY_ENV="production", ALLOWED_HOSTS="x.example.com", MASTERY_VAR_DIR=str(tmp_path)
    )
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr
    result = _manage("check", DEBUG="maybe", MASTERY_VAR_DIR=str(tmp_path))
    assert result.returncode != 0 and "DEBUG" in result.stderr
    result = _manage("check", MASTERY_ENV="staging", MASTERY_VAR_DIR=str(tmp_path))
    assert result.returncode != 0 and "MASTERY_ENV" in result.stderr


def test_migrations_match_models(tmp_path: Path) -> None:
    """`makemigrations --check` finds nothing to do."""
    result = _manage("makemigrations", "--check", "--dry-run", MASTERY_VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def _setting(name: str, **env: str) -> str:
    code = f"import django; django.setup(); from django.conf import settings; print(settings.{name})"
    clean = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MASTERY_ENV", "DEBUG", "REDIS_URL")
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "mastery.settings", **env},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_sessions_are_cached_only_in_a_cache_every_web_process_shares(tmp_path: Path) -> None:
    """A per-process memory cache would keep a logged-out session alive in the other gunicorn workers:
    production caches sessions in Redis, or reads them from the database when there is no Redis."""
    production = {
        "MASTERY_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "mastery.example.com",
        "MASTERY_VAR_DIR": str(tmp_path),
    }
    assert _setting("SESSION_ENGINE", **production) == "django.contrib.sessions.backends.db"
    redis = {**production, "REDIS_URL": "redis://127.0.0.1:6379/9"}
    assert _setting("SESSION_ENGINE", **redis) == "django.contrib.sessions.backends.cached_db"
    assert _setting("SESSION_CACHE_ALIAS", **redis) == "sessions"
    assert "RedisCache" in _setting("CACHES['sessions']['BACKEND']", **redis)
