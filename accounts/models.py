"""The custom user model (from the first migration) and API tokens."""

from __future__ import annotations

import hashlib
import secrets
import zoneinfo
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

TIME_ZONES = sorted(zoneinfo.available_timezones())

#: Delivery modes of a notification kind (issue 4).
NOTIFY_MODES = ("immediate", "digest", "off")
#: Per-kind defaults: decisions arrive at once; news about games waits for the daily digest.
NOTIFY_DEFAULTS: dict[str, str] = {
    "turn": "immediate",
    "conflict": "immediate",
    "support": "immediate",
    "response": "immediate",
    "choice": "immediate",
    "reminder": "immediate",
    "timeout": "immediate",
    "started": "immediate",
    "finished": "immediate",
    "joined": "immediate",
    "full": "immediate",
    "reply": "immediate",
    "chat": "digest",  # issue 19: table and team talk in the daily digest
    "message": "immediate",  # a private message or an @mention
}


#: How far ahead an away period may end, and how far back it may start (issue 12: a period ending in year
#: 9999 overflowed every deadline computed for the user's seats).
AWAY_MAX_AHEAD = timedelta(days=366)
AWAY_MAX_BEHIND = timedelta(days=366)
#: Absolute bounds the database enforces on stored away periods (``CheckConstraint``), so that no row can
#: ever hold a timestamp Python cannot read (years 1 and 9999 shifted by a time zone overflow).
AWAY_STORED_MIN = datetime(2000, 1, 1, tzinfo=UTC)
AWAY_STORED_MAX = datetime(9000, 1, 1, tzinfo=UTC)


def away_period_errors(start: datetime | None, end: datetime | None, now: datetime) -> list[str]:
    """Why an away period cannot be stored, as translated sentences (empty when it can).

    Args:
        start, end: the period's ends (aware datetimes in any time zone), both or neither.
        now: the current time (aware).

    Returns:
        A list of messages: one end missing, the end not after the start, the start more than
        :data:`AWAY_MAX_BEHIND` (366 days) ago or the end more than :data:`AWAY_MAX_AHEAD` (366 days) ahead.
        Source: issue 12 ("every date and time a user can enter is bounded to a sane range").
    """
    if start is None and end is None:
        return []
    if start is None or end is None:
        return [str(_("Give both ends of your away period, or neither."))]
    errors = []
    if end <= start:
        errors.append(str(_("The away period must end after it starts.")))
    if start < now - AWAY_MAX_BEHIND:
        errors.append(str(_("The away period cannot start more than a year ago.")))
    if end > now + AWAY_MAX_AHEAD:
        errors.append(str(_("The away period can end at most a year from now.")))
    return errors


class UserManager(BaseUserManager["User"]):
    """Manager for email-identified users (Django docs "Customizing authentication")."""

    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        """Create a user with a normalised email; ``ValueError`` if the email is empty."""
        if not email:
            raise ValueError("email is required")
        user = self.model(email=self.normalize_email(email), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        """Create a staff superuser."""
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class User(AbstractUser):
    """A player: logs in with email; has a display name, language and time zone."""

    username = None  # type: ignore[assignment]
    email = models.EmailField(_("email address"), unique=True)
    display_name = models.CharField(_("display name"), max_length=40, blank=True)
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default="en")
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC", choices=[(tz, tz) for tz in TIME_ZONES]
    )

    #: Notification kind -> "immediate", "digest" or "off" (missing kinds use ``NOTIFY_DEFAULTS``).
    notify = models.JSONField(_("notifications"), default=dict, blank=True)
    quiet_start = models.TimeField(_("quiet hours from"), null=True, blank=True)
    quiet_end = models.TimeField(_("quiet hours until"), null=True, blank=True)
    away_from = models.DateTimeField(_("away from"), null=True, blank=True)
    away_until = models.DateTimeField(_("away until"), null=True, blank=True)
    #: Issue 18: decision emails show the position and the numbered legal moves (``True``, "full play by
    #: email"), or only say what to decide (``False``, the short emails). Replies work with both.
    email_play = models.BooleanField(_("full play by email"), default=True)
    #: Issue 19: staff may suspend a user's chat until a moment (they can still read it).
    chat_suspended_until = models.DateTimeField(_("chat suspended until"), null=True, blank=True)
    #: The secret of the user's calendar feed of deadlines (issue 32: ``/calendar/<token>.ics``); ``None``
    #: until the user asks for one, a new value revokes the old address.
    calendar_token = models.CharField(max_length=64, null=True, blank=True, unique=True)

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []
    objects: ClassVar[UserManager] = UserManager()  # type: ignore[assignment]

    class Meta(AbstractUser.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(away_from__isnull=True)
                | Q(away_from__gte=AWAY_STORED_MIN, away_from__lt=AWAY_STORED_MAX),
                name="user_away_from_in_range",
            ),
            models.CheckConstraint(
                condition=Q(away_until__isnull=True)
                | Q(away_until__gte=AWAY_STORED_MIN, away_until__lt=AWAY_STORED_MAX),
                name="user_away_until_in_range",
            ),
        ]

    def away_at(self, now: datetime) -> bool:
        """Whether ``now`` falls in the user's away period (vacation): ``away_from <= now < away_until``."""
        return bool(self.away_from and self.away_until and self.away_from <= now < self.away_until)

    def clean(self) -> None:
        """Model validation (``full_clean``): the away period is bounded (:func:`away_period_errors`).

        Raises:
            ValidationError: on ``away_until`` with the reasons.
        """
        super().clean()
        errors = away_period_errors(self.away_from, self.away_until, timezone.now())
        if errors:
            raise ValidationError({"away_until": errors})

    def __str__(self) -> str:
        return self.name

    def notify_mode(self, kind: str) -> str:
        """How ``kind`` notifications reach this user: ``"immediate"``, ``"digest"`` or ``"off"``."""
        mode = self.notify.get(kind) if isinstance(self.notify, dict) else None
        return mode if mode in NOTIFY_MODES else NOTIFY_DEFAULTS.get(kind, "immediate")

    @property
    def name(self) -> str:
        """The public name: the display name, else the part of the email before the @."""
        return self.display_name or self.email.split("@")[0]


class ApiToken(models.Model):
    """A bearer token for the JSON API (``Authorization: Bearer <token>``). Only a SHA-256 of the token is
    stored; the token itself is shown once when created."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60, default="api")
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    @staticmethod
    def hash(token: str) -> str:
        """SHA-256 hex digest of a token."""
        return hashlib.sha256(token.encode()).hexdigest()

    @classmethod
    def issue(cls, user: User, name: str = "api") -> str:
        """Create a token for ``user`` and return its plain text (never stored)."""
        token = secrets.token_urlsafe(32)
        cls.objects.create(user=user, name=name, digest=cls.hash(token))
        return token

    @classmethod
    def user_for(cls, token: str) -> User | None:
        """The active user a token belongs to, or ``None`` for an unknown token or an inactive user (one
        query; unordered, since a digest is unique)."""
        found = User.objects.filter(api_tokens__digest=cls.hash(token), is_active=True).order_by()[:1]
        return next(iter(found), None)


class PushSubscription(models.Model):
    """One browser's Web Push subscription (issue 32; the W3C Push API and RFC 8030): the push service's
    ``endpoint`` and the keys the payload is encrypted with (RFC 8291: ``p256dh``, ``auth``, base64url),
    one row per device, named by ``label`` (from its user agent). A push service's 404 or 410 deletes it."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    label = models.CharField(max_length=120, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: When a push last reached the push service (``None``: never yet).
    last_success_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"push of {self.user_id}: {self.label or self.endpoint[:40]}"
