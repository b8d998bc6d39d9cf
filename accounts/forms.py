"""Account forms: sign-up with a display name; the profile form."""

from __future__ import annotations

from typing import Any

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import User


class SignupForm(AllauthSignupForm):  # type: ignore[misc]
    """allauth's sign-up form plus a display name (allauth docs "Forms")."""

    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False)

    def save(self, request: HttpRequest) -> Any:
        """Create the user and store the display name."""
        user = super().save(request)
        user.display_name = self.cleaned_data.get("display_name", "")
        user.save(update_fields=["display_name"])
        return user


class ProfileForm(forms.ModelForm[User]):
    """Display name, language and time zone."""

    class Meta:
        model = User
        fields = ("display_name", "language", "time_zone")
