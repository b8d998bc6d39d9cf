"""Account forms: sign-up with a display name; the profile form."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from games.models import Notification
from mastery.text import single_line

from .models import TIME_ZONES, User, away_period_errors

#: The time zones a user may have, for a quick membership test.
TIME_ZONE_SET = frozenset(TIME_ZONES)

#: The choices of every notification kind.
NOTIFY_CHOICES = [("immediate", _("Immediately")), ("digest", _("In a daily digest")), ("off", _("Off"))]


#: Names the bots go by ("Bot 2", shown as "Bot 2 (hard)"): a player may not look like a bot.
_BOT_NAME = re.compile(r"^bot\s*(\d|\(|$)", re.IGNORECASE)


def display_name_clean(raw: str, user: User | None) -> str:
    """A display name as it is stored: on one line, without invisible characters (:func:`single_line`),
    and unlike every other player's name (compared without case) and the bots' names, so nobody can pass
    for another player or a bot in the lobby, the chat or an email, or receive their invitations.

    Args:
        raw: what was typed (empty: no display name; the public name is then taken from the email).
        user: whose name it is (``None`` at sign-up).

    Raises:
        ValidationError: nothing visible, a bot's name, or another player's name.
    """
    name = single_line(raw)
    if raw.strip() and not name:
        raise ValidationError(_("A display name needs some visible characters."))
    if _BOT_NAME.match(name):
        raise ValidationError(_("Names such as “Bot 1” are kept for the bots."))
    if user is not None and user.pk is not None and name == user.display_name:
        return name  # kept as it was: a name two accounts shared before names were unique stays usable
    others = User.objects.filter(display_name__iexact=name)
    if user is not None and user.pk is not None:
        others = others.exclude(pk=user.pk)
    if name and others.exists():
        raise ValidationError(_("Another player already has that name."))
    return name


class SignupForm(AllauthSignupForm):  # type: ignore[misc]
    """allauth's sign-up form plus a display name (allauth docs "Forms") and the browser's time zone (a
    hidden field the page fills from ``Intl.DateTimeFormat``; issue 16)."""

    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False)
    time_zone = forms.CharField(
        max_length=64, required=False, widget=forms.HiddenInput(attrs={"data-detect-time-zone": ""})
    )

    def clean_display_name(self) -> str:
        """The display name, checked by :func:`display_name_clean`."""
        return display_name_clean(self.cleaned_data.get("display_name", ""), None)

    def try_save(self, request: HttpRequest) -> Any:
        """allauth's ``try_save`` (create the user, or answer as if for an address that has an account),
        with one thing added: for an address that already has an account, the submitted password is hashed
        too, and thrown away. allauth hashes it only when it creates the user (``save_user`` ->
        ``set_password``), and the slow hash must not tell a stranger which addresses have accounts
        (issue 28; the emails of both paths are only queued: :class:`accounts.adapter.AccountAdapter`).

        Returns:
            allauth's ``(user or None, response or None)``.
        """
        if self.account_already_exists:
            make_password(str(self.cleaned_data.get("password1", "")))  # as costly as set_password
        return super().try_save(request)

    def save(self, request: HttpRequest) -> Any:
        """Create the user and store the display name; the profile language starts as the language the
        sign-up page was shown in (chosen with the switcher or from the browser's Accept-Language)."""
        user = super().save(request)
        user.display_name = self.cleaned_data.get("display_name", "")
        language = translation.get_language()
        if language in dict(settings.LANGUAGES):
            user.language = language
        zone = self.cleaned_data.get("time_zone", "")
        if zone in TIME_ZONE_SET:  # anything else (no JavaScript, an unknown name) keeps the default, UTC
            user.time_zone = zone
        user.save(update_fields=["display_name", "language", "time_zone"])
        return user


class ProfileForm(forms.ModelForm[User]):
    """Display name, language and time zone; the time zone is typed with suggestions from the list (a
    ``datalist``: searchable by any part, "Stockholm" finds Europe/Stockholm; issue 16) and must be one of
    the zones the model allows."""

    class Meta:
        model = User
        fields = ("display_name", "language", "time_zone")
        widgets: ClassVar[dict[str, forms.Widget]] = {
            "time_zone": forms.TextInput(attrs={"list": "time-zones", "autocomplete": "off"})
        }

    def clean_display_name(self) -> str:
        """The display name, checked by :func:`display_name_clean`."""
        return display_name_clean(self.cleaned_data.get("display_name", ""), self.instance)


class NotificationForm(forms.Form):
    """Notification settings (issue 4): per kind immediately / in a daily digest / off; quiet hours in the
    user's time zone (non-urgent mail waits until they end); an away period (clocks pause in games that
    allow vacations, and mail waits unless a deadline falls before the return); and whether decision emails
    show the position and the numbered moves (full play by email, issue 18) or only what to decide."""

    email_play = forms.TypedChoiceField(
        label=_("Decision emails"),
        choices=[
            ("full", _("Full play by email: the position and your moves, numbered, to answer by reply")),
            ("short", _("Short: only what to decide (you can still answer by reply)")),
        ],
        coerce=lambda value: value == "full",
        empty_value=None,
        required=False,  # a form without it (older pages, scripts) keeps the setting
        widget=forms.RadioSelect,
    )

    quiet_start = forms.TimeField(
        label=_("Quiet hours from"), required=False, widget=forms.TimeInput(attrs={"type": "time"})
    )
    quiet_end = forms.TimeField(
        label=_("Quiet hours until"), required=False, widget=forms.TimeInput(attrs={"type": "time"})
    )
    away_from = forms.DateTimeField(
        label=_("Away from"), required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    away_until = forms.DateTimeField(
        label=_("Away until"), required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        initial = {
            "email_play": "full" if user.email_play else "short",
            "quiet_start": user.quiet_start,
            "quiet_end": user.quiet_end,
            "away_from": user.away_from,
            "away_until": user.away_until,
        }
        kwargs["initial"] = {**initial, **kwargs.get("initial", {})}
        super().__init__(*args, **kwargs)
        self.user = user
        self.kind_fields: list[str] = []
        for kind in Notification.Kind:
            if kind in (Notification.Kind.DIGEST, Notification.Kind.ACCOUNT):  # account emails: always sent
                continue
            name = f"notify_{kind.value}"
            self.fields[name] = forms.ChoiceField(
                label=kind.label, choices=NOTIFY_CHOICES, initial=user.notify_mode(kind.value)
            )
            self.kind_fields.append(name)

    @property
    def kinds(self) -> list[forms.BoundField]:
        """The bound per-kind fields, in the order of ``Notification.Kind``."""
        return [self[name] for name in self.kind_fields]

    def clean(self) -> dict[str, Any]:
        """Quiet hours need both ends; an away period needs both ends in order, starting at most a year
        ago and ending at most a year ahead (:func:`accounts.models.away_period_errors`, issue 12)."""
        data = super().clean() or {}
        if (data.get("quiet_start") is None) != (data.get("quiet_end") is None):
            raise forms.ValidationError(_("Give both ends of your quiet hours, or neither."))
        errors = away_period_errors(data.get("away_from"), data.get("away_until"), timezone.now())
        if errors:
            raise forms.ValidationError(errors)
        return data

    def save(self) -> User:
        """Store the settings on the user and return it."""
        data = self.cleaned_data
        user = self.user
        # Merge: kinds without a field here (the digest, turned off from its own email) keep their mode.
        user.notify = {
            **(user.notify or {}),
            **{name.removeprefix("notify_"): data[name] for name in self.kind_fields},
        }
        user.quiet_start, user.quiet_end = data.get("quiet_start"), data.get("quiet_end")
        user.away_from, user.away_until = data.get("away_from"), data.get("away_until")
        if data.get("email_play") is not None:
            user.email_play = data["email_play"]
        user.save(
            update_fields=["notify", "quiet_start", "quiet_end", "away_from", "away_until", "email_play"]
        )
        return user
