"""The new-event form (issue 34): the event's format, rules and dates, read into an
:class:`tournaments.services.EventSpec`. The service checks the spec again (:func:`services.spec_errors`)."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy

from games.components import OPTION_TEXTS
from games.models import TIME_CONTROLS
from tournaments import services
from tournaments.models import Event

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: The presets of :data:`games.models.TIME_CONTROLS` and a custom clock, as the new-game form offers them
#: (``games.web.forms``: the same labels, so the same translations).
TIME_CONTROL_CHOICES = [(key, gettext_lazy(label)) for key, (label, _t, _r) in TIME_CONTROLS.items()] + [
    ("custom", gettext_lazy("Custom: choose the hours below"))
]
_DATETIME = "%Y-%m-%dT%H:%M"


def _when() -> forms.DateTimeField:
    return forms.DateTimeField(
        input_formats=[_DATETIME, "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=_DATETIME),
    )


def _hours(label: StrOrPromise) -> forms.DecimalField:
    """A custom clock's hours, bounded as the new-game form bounds them (3 minutes to 30 days)."""
    return forms.DecimalField(
        label=label,
        required=False,
        min_value=Decimal("0.05"),
        max_value=Decimal(720),
        decimal_places=2,
    )


def _rounded(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)


class EventCreateForm(forms.Form):
    """A new event. The format and the bye policy have no default (they cannot be changed later); the
    numbers and dates start at sensible values: tables of 4, 3 Swiss rounds, sign-up for a week."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=80)
    format = forms.ChoiceField(
        label=gettext_lazy("Format"), choices=Event.Format.choices, widget=forms.RadioSelect
    )
    table_size = forms.TypedChoiceField(
        label=gettext_lazy("Players per table"),
        choices=[(n, str(n)) for n in range(2, 7)],
        coerce=int,
        initial=4,
    )
    rounds = forms.IntegerField(
        label=gettext_lazy("Rounds (Swiss)"),
        min_value=1,
        max_value=services.MAX_ROUNDS,
        initial=3,
        required=False,
    )
    advance_k = forms.IntegerField(
        label=gettext_lazy("Players advancing from each table (elimination)"),
        min_value=1,
        max_value=5,
        initial=1,
        required=False,
    )
    allegiance = forms.ChoiceField(
        label=gettext_lazy("Allegiance (teams)"),
        choices=[
            ("", gettext_lazy("No teams: everyone plays for themselves")),
            ("pairs", gettext_lazy("Teams of two (tables of 4 or 6 players)")),
            ("triples", gettext_lazy("Teams of three (tables of 6 players)")),
        ],
        required=False,
        initial="",
        help_text=gettext_lazy(
            "Players sign up as teams; teammates sit on their team's seats and win together. "
            "Cannot be combined with Castle Siege."
        ),
    )
    castle_siege = forms.BooleanField(
        label=gettext_lazy("Castle Siege"), required=False, help_text=OPTION_TEXTS["castle_siege"]
    )
    cut_throat = forms.BooleanField(
        label=gettext_lazy("Cut-Throat"), required=False, help_text=OPTION_TEXTS["cut_throat"]
    )
    skirmish = forms.BooleanField(
        label=gettext_lazy("Skirmish"), required=False, help_text=OPTION_TEXTS["skirmish"]
    )
    mayhem = forms.BooleanField(
        label=gettext_lazy("Mayhem"), required=False, help_text=OPTION_TEXTS["mayhem"]
    )
    time_control = forms.ChoiceField(
        label=gettext_lazy("Time control"), choices=TIME_CONTROL_CHOICES, initial="daily"
    )
    turn_hours = _hours(gettext_lazy("Hours per turn (custom)"))
    response_hours = _hours(gettext_lazy("Hours per response (custom)"))
    points_by_rank = forms.CharField(
        label=gettext_lazy("Points by place"),
        required=False,
        max_length=40,
        help_text=gettext_lazy(
            "First place first, separated by commas, e.g. 3, 2, 1, 0. Empty: one point less per place."
        ),
    )
    bye_policy = forms.ChoiceField(
        label=gettext_lazy("When the players do not fill every table"),
        choices=Event.ByePolicy.choices,
        widget=forms.RadioSelect,
    )
    bye_points = forms.IntegerField(
        label=gettext_lazy("Points for a bye"), min_value=0, max_value=100, initial=0
    )
    signup_opens = _when()
    signup_closes = _when()
    starts_at = _when()
    round_deadline_days = forms.IntegerField(
        label=gettext_lazy("Days per round"),
        min_value=1,
        max_value=90,
        initial=14,
        help_text=gettext_lazy(
            "The round's games should be over by then. A game still running goes on under its own clocks; "
            "the next round starts when every table has finished."
        ),
    )
    rated = forms.BooleanField(label=gettext_lazy("Rated"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Label the dates and start them at the next full hour and a week later."""
        super().__init__(*args, **kwargs)
        now = _rounded(timezone.localtime())
        self.fields["signup_opens"].label = gettext_lazy("Sign-up opens")
        self.fields["signup_closes"].label = gettext_lazy("Sign-up closes")
        self.fields["starts_at"].label = gettext_lazy("First round starts")
        self.fields["signup_opens"].initial = now
        self.fields["signup_closes"].initial = now + timedelta(days=7)
        self.fields["starts_at"].initial = now + timedelta(days=7)

    def clean_points_by_rank(self) -> dict[str, int] | None:
        """``"3, 2, 1, 0"`` -> ``{"1": 3, "2": 2, "3": 1, "4": 0}``; empty -> ``None`` (the default)."""
        text = self.cleaned_data.get("points_by_rank", "").strip()
        if not text:
            return None
        try:
            values = [int(part) for part in text.replace(";", ",").split(",") if part.strip()]
        except ValueError:
            raise forms.ValidationError(gettext_lazy("Write whole numbers separated by commas.")) from None
        return {str(place): value for place, value in enumerate(values, start=1)}

    def _seconds(self, name: str) -> int | None:
        """A custom clock's hours field in whole seconds (``None`` for a preset or an empty field)."""
        hours = self.cleaned_data.get(name)
        if self.cleaned_data.get("time_control") != "custom" or not hours:
            return None
        return int(Decimal(hours) * 3600)

    def spec(self) -> services.EventSpec:
        """The valid form as an :class:`services.EventSpec` (call after ``is_valid``)."""
        data = self.cleaned_data
        return services.EventSpec(
            name=data["name"],
            format=data["format"],
            table_size=data["table_size"],
            rounds=data.get("rounds") or 3,
            advance_k=data.get("advance_k") or 1,
            options={
                **{k: True for k in services.EVENT_OPTIONS if data.get(k)},
                **({"allegiance": data["allegiance"]} if data.get("allegiance") else {}),
            },
            time_control=data["time_control"],
            turn_seconds=self._seconds("turn_hours"),
            response_seconds=self._seconds("response_hours"),
            rated=bool(data.get("rated")),
            bye_policy=data["bye_policy"],
            bye_points=data["bye_points"],
            points_by_rank=data.get("points_by_rank"),
            signup_opens=data["signup_opens"],
            signup_closes=data["signup_closes"],
            starts_at=data["starts_at"],
            round_deadline_days=data["round_deadline_days"],
        )

    def clean(self) -> dict[str, Any]:
        """Check the whole event with the service's own rules; each problem goes to its field. Allegiance
        is checked here first, with its own messages: pairs at tables of 4 or 6, triples at 6, never with
        Castle Siege (R105)."""
        cleaned = super().clean() or {}
        if cleaned.get("time_control") == "custom":
            for name in ("turn_hours", "response_hours"):
                if not cleaned.get(name):
                    self.add_error(name, gettext_lazy("Enter the hours for a custom time control."))
        allegiance, size = cleaned.get("allegiance"), cleaned.get("table_size")
        if allegiance == "pairs" and size not in (None, 4, 6):
            self.add_error("allegiance", gettext_lazy("Teams of two play at tables of 4 or 6 players."))
        elif allegiance == "triples" and size not in (None, 6):
            self.add_error("allegiance", gettext_lazy("Teams of three play at tables of 6 players."))
        elif allegiance and cleaned.get("castle_siege"):
            self.add_error("allegiance", gettext_lazy("Allegiance cannot be combined with Castle Siege."))
        if self.errors:
            return cleaned
        messages = {
            "name": gettext_lazy("An event needs a name."),
            "table_size": gettext_lazy("Tables seat 2 to 6 players."),
            "rounds": gettext_lazy("A Swiss event has 1 to 20 rounds."),
            "advance_k": gettext_lazy("Between 1 and one less than the table size advance from each table."),
            "signup_closes": gettext_lazy("Sign-up must open, then close, no later than the first round."),
            "starts_at": gettext_lazy("The first round must start in the future."),
            "points_by_rank": gettext_lazy(
                "Give one number from 0 to 100 for each place at the table; a better place never scores less."
            ),
            "options": gettext_lazy("These optional rules cannot be played together at this table size."),
        }
        if allegiance:
            messages["advance_k"] = gettext_lazy(
                "Between 1 and one less than the teams at a table advance from each table."
            )
            messages["points_by_rank"] = gettext_lazy(
                "Give one number from 0 to 100 for each team's place at the table (two or three teams); "
                "a better place never scores less."
            )
        for name, _message in services.spec_errors(self.spec(), timezone.now()).items():
            field = name if name in self.fields else None
            self.add_error(field, messages.get(name, gettext_lazy("Check this value.")))
        return cleaned
