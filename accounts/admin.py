"""Admin registrations."""

from datetime import timedelta

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import ApiToken, User


@admin.register(User)
class UserAdmin(admin.ModelAdmin[User]):
    """Users."""

    list_display = ("email", "display_name", "language", "time_zone", "is_staff", "chat_suspended_until")
    search_fields = ("email", "display_name")
    actions = ("suspend_chat", "restore_chat")

    @admin.action(description=_("Suspend chat for 7 days"))
    def suspend_chat(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        """Stop the users posting chat messages for a week (issue 19); they can still read."""
        queryset.update(chat_suspended_until=timezone.now() + timedelta(days=7))

    @admin.action(description=_("Restore chat"))
    def restore_chat(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        """End a chat suspension."""
        queryset.update(chat_suspended_until=None)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    """API tokens (digests only)."""

    list_display = ("user", "name", "created_at")
