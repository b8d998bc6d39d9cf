"""Admin registrations."""

from django.contrib import admin

from .models import ApiToken, User


@admin.register(User)
class UserAdmin(admin.ModelAdmin[User]):
    """Users."""

    list_display = ("email", "display_name", "language", "time_zone", "is_staff")
    search_fields = ("email", "display_name")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    """API tokens (digests only)."""

    list_display = ("user", "name", "created_at")
