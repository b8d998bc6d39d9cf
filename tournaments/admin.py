"""The admin's view of the tournaments (read mostly: rounds are made by the sweep)."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import Entry, Event, Round, Table, Team


@admin.register(Event)
class EventAdmin(admin.ModelAdmin[Event]):
    """Events by status and start."""

    list_display = ("name", "format", "table_size", "status", "starts_at", "organiser")
    list_filter = ("status", "format")
    search_fields = ("name",)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin[Entry]):
    """Entries of events."""

    list_display = ("event", "user", "team", "withdrawn")
    list_filter = ("withdrawn",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin[Team]):
    """Teams of Allegiance events."""

    list_display = ("name", "event", "created_at")
    search_fields = ("name",)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin[Round]):
    """Rounds of events."""

    list_display = ("event", "number", "created_at", "deadline", "finished_at")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin[Table]):
    """Tables of rounds and their games."""

    list_display = ("round", "number", "game")
    raw_id_fields = ("game",)
