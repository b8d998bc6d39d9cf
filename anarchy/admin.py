"""The Anarchy's tables in Django's admin (read mostly: puzzles are made by the engine)."""

from __future__ import annotations

from django.contrib import admin

from .models import DailyPuzzle, PuzzleAnswer


@admin.register(DailyPuzzle)
class DailyPuzzleAdmin(admin.ModelAdmin[DailyPuzzle]):
    """Daily puzzles by date."""

    list_display = ("day", "created_at")
    readonly_fields = ("day", "record", "faces", "best", "created_at")


@admin.register(PuzzleAnswer)
class PuzzleAnswerAdmin(admin.ModelAdmin[PuzzleAnswer]):
    """Answers, with their scores."""

    list_display = ("puzzle", "user", "deployment", "loyalty", "bravery", "kept", "source", "answered_at")
    list_filter = ("source",)
    raw_id_fields = ("puzzle", "user")
