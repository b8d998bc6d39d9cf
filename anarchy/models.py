"""The Anarchy's tables: one daily puzzle per date, and one answer per player and puzzle (issue 33).

The puzzle's ``record`` is the engine's position record, in which face-down cards have no face; the hidden
faces are stored apart in ``faces`` so that nothing built from ``record`` can show them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class DailyPuzzle(models.Model):
    """The Castle Defence position of one day, the same for everyone.

    ``record``: ``anarchy.engine.position_to_record`` of the position (face-down cards without a face);
    ``faces``: the hidden faces, ``{"row index": "card id"}`` (never shown before an answer); ``best``: the
    solver's best deployment and expectation, computed once when first needed.
    """

    day = models.DateField(_("day"), unique=True)
    record = models.JSONField(_("position record"))
    faces = models.JSONField(_("hidden faces"))
    best: Any = models.JSONField(_("solver's best"), null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-day"]
        verbose_name = _("daily puzzle")
        verbose_name_plural = _("daily puzzles")

    def __str__(self) -> str:
        """The puzzle's date."""
        return f"Castle Defence {self.day.isoformat()}"


class PuzzleAnswer(models.Model):
    """One player's deployment for one daily puzzle and its result: one per player and puzzle."""

    class Source(models.TextChoices):
        """Where the answer came from."""

        WEB = "web", _("web")
        EMAIL = "email", _("email")

    puzzle = models.ForeignKey(DailyPuzzle, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="anarchy_answers"
    )
    deployment = models.CharField(_("deployment"), max_length=200)
    undefended = models.PositiveSmallIntegerField(_("undefended attacks"), default=0)
    loyalty = models.PositiveSmallIntegerField(_("Loyalty"))
    bravery = models.PositiveSmallIntegerField(_("Bravery"))
    kept = models.PositiveSmallIntegerField(_("workers kept"))
    discontent = models.PositiveSmallIntegerField(_("Discontent"))
    answered_at = models.DateTimeField(default=timezone.now)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.WEB)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["puzzle", "user"], name="anarchy_one_answer_per_day")]
        indexes = [models.Index(fields=["puzzle", "-loyalty", "-bravery", "-kept", "answered_at"])]
        verbose_name = _("puzzle answer")
        verbose_name_plural = _("puzzle answers")

    def __str__(self) -> str:
        """Who answered which day, and how."""
        return f"{self.user_id} {self.puzzle_id}: {self.deployment}"


class PuzzleMail(models.Model):
    """One received reply to a daily puzzle email (issue 33), stored by the inbound route and processed
    once by ``anarchy.tasks.puzzle_mail_process``. A second copy (the same ``message_id``) is not stored."""

    class Status(models.TextChoices):
        """Where the mail stands: waiting, answered, refused (with or without an answer), or ignored
        (automatic mail, never answered)."""

        PENDING = "pending", _("pending")
        ANSWERED = "answered", _("answered")
        REFUSED = "refused", _("refused")
        IGNORED = "ignored", _("ignored")

    message_id = models.CharField(max_length=255, unique=True)
    raw = models.BinaryField()
    received_at = models.DateTimeField(default=timezone.now)
    via = models.CharField(max_length=16)
    sender = models.CharField(max_length=254, blank=True)
    recipient = models.CharField(max_length=254, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=40, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    puzzle = models.ForeignKey(
        DailyPuzzle, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "received_at"])]
        verbose_name = _("puzzle mail")
        verbose_name_plural = _("puzzle mails")

    def __str__(self) -> str:
        """The mail's id and status."""
        return f"{self.message_id} ({self.status})"


class PuzzleMailing(models.Model):
    """A player's choice to receive the daily puzzle by email (off until they ask for it)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="anarchy_mailing"
    )
    active = models.BooleanField(_("email me the daily puzzle"), default=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("daily puzzle email")
        verbose_name_plural = _("daily puzzle emails")

    def __str__(self) -> str:
        """Whose choice, and which."""
        return f"{self.user_id}: {'on' if self.active else 'off'}"


class PuzzleMailSent(models.Model):
    """The daily puzzle email of one day to one player: written before it is sent, so it goes once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "day"], name="anarchy_one_mail_per_day")]
        verbose_name = _("daily puzzle email sent")
        verbose_name_plural = _("daily puzzle emails sent")

    def __str__(self) -> str:
        """Who and which day."""
        return f"{self.user_id} {self.day.isoformat()}"


class PlannerSolve(models.Model):
    """One planner position too big to solve inside a request, worked out by a worker (issue 33).

    ``key``: the SHA-256 of the position's record, so the same position typed twice is solved once;
    ``record``: the record; ``result``: the solver's answer once done (``{"sides", "undefended", "kept",
    "bravery", "reveals", "deployments"}``), ``None`` until then.
    """

    key = models.CharField(max_length=64, unique=True)
    record = models.JSONField()
    result: Any = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("planner solve")
        verbose_name_plural = _("planner solves")

    def __str__(self) -> str:
        """The key's start."""
        return f"planner solve {self.key[:12]}"
