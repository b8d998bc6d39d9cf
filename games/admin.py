"""Admin registrations for moderation (issue 19): chat messages (hide and show again), reports and mutes.
The Django admin is for staff only, so no list here is shown to anyone else."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import ChatMessage, ChatReport


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin[ChatMessage]):
    """Chat messages: search, filter, and hide (kept, marked hidden: shown to nobody on the site)."""

    list_display = ("id", "game", "author", "channel", "created_at", "hidden", "text")
    list_filter = ("hidden", "channel")
    search_fields = ("text", "author__email", "author__display_name")
    raw_id_fields = ("game", "author")
    readonly_fields = (
        "game",
        "author",
        "author_seat",
        "channel",
        "to_seat",
        "team",
        "text",
        "created_at",
        "game_seq",
    )
    actions = ("hide", "show")

    @admin.action(description=_("Hide the selected messages"))
    def hide(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        """Hide messages: they stay stored and are shown to nobody on the site."""
        queryset.update(hidden=True, hidden_at=timezone.now())

    @admin.action(description=_("Show the selected messages again"))
    def show(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        """Undo a hide."""
        queryset.update(hidden=False, hidden_at=None)


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin[ChatReport]):
    """Players' reports of chat messages; hiding the reported message resolves the report."""

    list_display = ("id", "created_at", "reporter", "reason", "message_text", "resolved")
    list_filter = ("resolved",)
    raw_id_fields = ("message", "reporter")
    actions = ("hide_messages", "resolve")

    @admin.display(description=_("message"))
    def message_text(self, report: ChatReport) -> str:
        """The reported message's text."""
        return report.message.text[:200]

    @admin.action(description=_("Hide the reported messages"))
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        """Hide each reported message and mark the reports resolved."""
        ChatMessage.objects.filter(reports__in=queryset).update(hidden=True, hidden_at=timezone.now())
        queryset.update(resolved=True)

    @admin.action(description=_("Mark resolved (no action)"))
    def resolve(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        """Close reports without hiding anything."""
        queryset.update(resolved=True)
