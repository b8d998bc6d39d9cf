"""The Anarchy's forms: a deployment for the daily puzzle, and a whole position for the planner.

Both turn what a person typed into the engine's values at the edge and report the engine's refusal
(``AnarchyError``) as a form error, so a bad submission is a 400 with the reason, never a 500.
"""

from __future__ import annotations

from math import comb
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django_stubs_ext import StrPromise

from anarchy.engine import (
    LETTERS,
    SIDES,
    AnarchyError,
    AttackType,
    Deployment,
    Position,
    Slot,
    Tactic,
    cards_of,
    parse_deployment,
    practice_values,
    reveals,
)

from .messages import reason

#: The sides in the page's words (``SIDES`` order).
SIDE_LABELS: dict[str, StrPromise] = {
    "top": pgettext_lazy("castle side", "Top"),
    "right": pgettext_lazy("castle side", "Right"),
    "bottom": pgettext_lazy("castle side", "Bottom"),
    "left": pgettext_lazy("castle side", "Left"),
}
#: The corners (Towers) in the page's words (the engine's ``CORNERS`` order).
CORNER_LABELS: dict[str, StrPromise] = {
    "top-left": _("Top-left"),
    "top-right": _("Top-right"),
    "bottom-right": _("Bottom-right"),
    "bottom-left": _("Bottom-left"),
}
#: The Workers in the page's words, in a deployment's order.
KIND_LABELS: dict[str, StrPromise] = {
    "craftsmen": _("Craftsmen"),
    "soldiers": _("Soldiers"),
    "knights": _("Knights"),
}
#: The attack types (what a card's back shows) in the page's words.
TYPE_LABELS: dict[str, StrPromise] = {
    "ladders": _("Ladders"),
    "final_escalade": _("Final Escalade"),
    "arrows": _("Arrows"),
    "ballista": _("Ballista"),
    "battering_ram": _("Battering Ram"),
    "siege_tower": _("Siege Tower"),
    "catapult": _("Catapult"),
}
#: The Tactics in the page's words.
TACTIC_LABELS: dict[str, StrPromise] = {
    "rocks": _("Rocks"),
    "bolts": _("Bolts"),
    "hot_oil": _("Hot Oil"),
    "logs": _("Logs"),
    "covers": _("Covers"),
}
#: The largest count a form accepts (the engine's own bound).
MAX_COUNT = 30
#: The planner's bound on Workers: a Round 5 board with 12 is the largest the solver is measured on
#: (docs/performance.md); more is refused with the reason.
PLANNER_MAX_WORKERS = 12
#: The most solve work (deployments × reveals × cards, about 40 µs each on one core, measured on the daily
#: puzzles) answered within the request; a bigger position is solved by a worker while the page waits for
#: it (issue 33: never hang a request).
PLANNER_MAX_WORK = 50_000
#: Attack Card spaces of the last round.
MAX_SPACES = 5


def _count(label: StrPromise, maximum: int = MAX_COUNT, initial: int = 0) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=0,
        max_value=maximum,
        initial=initial,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 0, "max": maximum}),
    )


class DeploymentForm(forms.Form):
    """Where the Craftsmen, Soldiers and Knights stand: three numbers per side, or the short notation
    (``T:2C1K R:1S B:2K``), which wins when given. Every Worker must be placed (the engine's D3)."""

    notation = forms.CharField(
        label=_("Or write it in the short notation"),
        required=False,
        max_length=200,
        help_text=_("For example T:2C1K R:1S B:2K (sides T, R, B, L; C Craftsman, S Soldier, K Knight)."),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "spellcheck": "false", "autocapitalize": "characters"}
        ),
    )

    def __init__(self, *args: Any, position: Position, **kwargs: Any) -> None:
        """``position``: the puzzle's, whose Workers the deployment must place."""
        super().__init__(*args, **kwargs)
        self.position = position
        for side in SIDES:
            for kind, label in KIND_LABELS.items():
                field = _count(label)
                field.required = False
                self.fields[f"{side}_{kind}"] = field

    def side_rows(self) -> list[dict[str, Any]]:
        """The number inputs side by side: ``[{"side": label, "fields": [bound field ×3]}]``."""
        return [
            {
                "name": side,
                "side": SIDE_LABELS[side],
                "fields": [self[f"{side}_{kind}"] for kind in KIND_LABELS],
            }
            for side in SIDES
        ]

    def clean(self) -> dict[str, Any]:
        """Read the deployment (notation first) and check it against the position; the engine's reason is
        the error."""
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            text = (data.get("notation") or "").strip()
            if text:
                deployment = parse_deployment(text, self.position)
            else:
                deployment = Deployment.of(
                    [[data.get(f"{side}_{kind}") or 0 for kind in KIND_LABELS] for side in SIDES]
                )
                deployment.check(self.position)
        except AnarchyError as error:
            raise forms.ValidationError(reason(error), code=error.code) from error
        data["deployment"] = deployment
        return data


def _card_choices() -> list[tuple[str, Any]]:
    """Face down, or any Attack Card, grouped by type (the Final Escalade has its own field)."""
    groups: list[tuple[str, Any]] = [("", _("Face down (only its back is known)"))]
    for attack_type in AttackType:
        if attack_type is AttackType.FINAL_ESCALADE:
            continue
        groups.append(
            (str(TYPE_LABELS[str(attack_type)]), [(card.id, card.id) for card in cards_of(attack_type)])
        )
    return groups


def solve_work(position: Position) -> int:
    """An estimate of the solver's work for ``position``: the deployments it compares (Craftsmen and
    Soldiers as one kind) times the equally likely reveals times the cards of the row."""
    men, knights = position.craftsmen + position.soldiers, position.knights
    return comb(men + 3, 3) * comb(knights + 3, 3) * len(reveals(position)) * len(position.row)


class PlannerForm(forms.Form):
    """A whole Castle Defence position, as an owner of the board game reads it off the table: the round and
    its Scenario Card's values (typed by the owner), the Castle, Tactics, Workers, Beer, Muster Tokens, Food,
    and the row of cards. ``clean`` builds the engine's :class:`Position` (``cleaned_data["position"]``)."""

    round = forms.TypedChoiceField(
        label=_("Round"), choices=[(n, str(n)) for n in range(1, 6)], coerce=int, initial=3
    )
    determination = _count(_("Determination"))
    food = _count(_("Food"))
    gate = _count(_("Gate"))
    moat = _count(_("Moat"))
    craftsmen = _count(_("Craftsmen"))
    soldiers = _count(_("Soldiers"))
    knights = _count(_("Knights"))
    beer = _count(_("Beer"))
    muster = _count(_("Muster Tokens"), maximum=3)
    final = forms.ChoiceField(label=_("Final Escalade Card"), choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Add the per-letter, per-side, per-corner, per-Tactic and per-space fields."""
        super().__init__(*args, **kwargs)
        for letter in LETTERS:
            self.fields[f"value_{letter}"] = _count(letter)  # type: ignore[arg-type]
        for side in SIDES:
            self.fields[f"wall_{side}"] = _count(SIDE_LABELS[side])
        for corner, label in CORNER_LABELS.items():
            self.fields[f"tower_{corner}"] = _count(label, maximum=2)
        for tactic in Tactic:
            self.fields[f"tactic_{tactic}"] = _count(TACTIC_LABELS[str(tactic)])
        final = self.fields["final"]
        assert isinstance(final, forms.ChoiceField)
        final.choices = [(card.id, card.id) for card in cards_of(AttackType.FINAL_ESCALADE)]
        backs = [("", _("(not in this round)"))] + [
            (str(t), TYPE_LABELS[str(t)]) for t in AttackType if t is not AttackType.FINAL_ESCALADE
        ]
        for space in range(1, MAX_SPACES + 1):
            self.fields[f"back_{space}"] = forms.ChoiceField(label=_("Back"), choices=backs, required=False)
            self.fields[f"card_{space}"] = forms.ChoiceField(
                label=_("Face"), choices=_card_choices(), required=False
            )

    @classmethod
    def practice_initial(cls, round_: int) -> dict[str, Any]:
        """The form's first values for ``round_``: the practice A–E and Determination, Food for the round."""
        values, determination = practice_values(round_)
        initial: dict[str, Any] = {"round": round_, "determination": determination, "food": round_}
        initial.update({f"value_{letter}": value for letter, value in zip(LETTERS, values, strict=True)})
        return initial

    def bound(self, prefix: str, keys: Any) -> list[forms.BoundField]:
        """The bound fields ``<prefix>_<key>`` for each key, in order (for the template's grids)."""
        return [self[f"{prefix}_{key}"] for key in keys]

    def letters(self) -> list[forms.BoundField]:
        """The A–E fields."""
        return self.bound("value", LETTERS)

    def walls(self) -> list[forms.BoundField]:
        """The Wall fields, per side."""
        return self.bound("wall", SIDES)

    def towers(self) -> list[forms.BoundField]:
        """The Tower fields, per corner."""
        return self.bound("tower", CORNER_LABELS)

    def tactics(self) -> list[forms.BoundField]:
        """The Tactic fields."""
        return self.bound("tactic", [str(t) for t in Tactic])

    def spaces(self) -> list[dict[str, Any]]:
        """The Attack Card spaces, left to right after the Final Escalade: ``{"number", "back", "card"}``."""
        return [
            {"number": n, "back": self[f"back_{n}"], "card": self[f"card_{n}"]}
            for n in range(1, MAX_SPACES + 1)
        ]

    def clean(self) -> dict[str, Any]:
        """Build the position (the engine checks it), refuse one with more Workers than the planner takes, and
        say whether it is solved in the background (``background``)."""
        data = super().clean() or {}
        if self.errors:
            return data
        round_ = int(data["round"])
        row = [Slot(AttackType.FINAL_ESCALADE, data["final"])]
        for space in range(1, round_ + 1):
            back, card = data.get(f"back_{space}") or "", data.get(f"card_{space}") or ""
            if card:
                card_type = next(c.type for t in AttackType for c in cards_of(t) if c.id == card)
                if back and back != card_type:
                    self.add_error(f"card_{space}", _("This card's back is not the type chosen."))
                    continue
                row.append(Slot(card_type, card))
            elif back:
                row.append(Slot(AttackType(back)))
            else:
                self.add_error(
                    f"back_{space}",
                    _("Round %(round)d has %(n)d Attack Cards: choose this one's back.")
                    % {"round": round_, "n": round_},
                )
        if self.errors:
            return data
        try:
            position = Position(
                round=round_,
                values=tuple(data[f"value_{letter}"] for letter in LETTERS),
                determination=data["determination"],
                food=data["food"],
                walls=tuple(data[f"wall_{side}"] for side in SIDES),
                towers=tuple(data[f"tower_{corner}"] for corner in CORNER_LABELS),
                gate=data["gate"],
                moat=data["moat"],
                tactics={tactic: data[f"tactic_{tactic}"] for tactic in Tactic},
                craftsmen=data["craftsmen"],
                soldiers=data["soldiers"],
                knights=data["knights"],
                beer=data["beer"],
                muster=data["muster"],
                row=tuple(row),
            )
        except AnarchyError as error:
            raise forms.ValidationError(reason(error), code=error.code) from error
        if position.workers > PLANNER_MAX_WORKERS:
            raise forms.ValidationError(
                _("This position is too big for the planner yet: at most %(most)d Workers.")
                % {"most": PLANNER_MAX_WORKERS},
                code="too_big",
            )
        data["background"] = solve_work(position) > PLANNER_MAX_WORK
        data["position"] = position
        return data
