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
