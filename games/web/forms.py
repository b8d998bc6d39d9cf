"""Forms of the game pages: creating a game, and turning a posted decision form into an engine action
payload (``docs/game-record.md``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import NoReturn, TypedDict

from django import forms
from django.http import QueryDict
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from games import engine
from games.actions_ui import FormShape, action_kind
from games.components import OPTION_TEXTS
from games.messages import content_message
from games.models import TIME_CONTROLS, StandingOrder
from games.services.lobby import MASKS
from games.services.play import payload_action

#: The labels of :data:`games.models.TIME_CONTROLS`, marked here for ``makemessages`` (the model module
#: keeps them as plain strings; ``tests/web/test_i18n.py`` checks that every label is in this list).
TIME_CONTROL_LABELS = (
    gettext_noop("Live-ish: 1 hour per turn, 10-minute responses"),
    gettext_noop("Daily: 24 hours per turn, 4-hour responses"),
    gettext_noop("Relaxed: 72 hours per turn, 12-hour responses"),
)


def _span(low: int, high: int) -> str:
    """A masking range in words: "10–60 seconds", "2–15 minutes"."""
    if high < 120:
        return _("%(low)s–%(high)s seconds") % {"low": low, "high": high}
    return _("%(low)s–%(high)s minutes") % {"low": low // 60, "high": high // 60}


def mask_sentence() -> str:
    """The one sentence of the new-game form on the masking delay of each clock (issue 29,
    :data:`games.services.lobby.MASKS`)."""
    return _(
        "Secret windows: when another person sits at the table, the server passes for a player without "
        "Fracture after a random %(live)s (Live-ish), %(daily)s (Daily) or %(relaxed)s (Relaxed), so "
        "nobody learns who holds it; bots' seats, and a person playing alone against bots, never wait."
    ) % {key: _span(*MASKS[key]) for key in ("live", "daily", "relaxed")}


TIME_CONTROL_CHOICES = [(key, gettext_lazy(label)) for key, (label, _t, _r) in TIME_CONTROLS.items()] + [
    ("custom", gettext_lazy("Custom: choose the hours below"))
]


class GameCreateForm(forms.Form):
    """A new table: title, player count, the optional rules (R105–R120), Fracture prompts, time control and
    visibility. :meth:`options` returns the engine options; the engine validates the combination."""

    title = forms.CharField(label=gettext_lazy("Title"), max_length=80, required=False)
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        choices=[(n, str(n)) for n in range(2, 7)],
        coerce=int,
        initial=3,
    )
    allegiance = forms.BooleanField(
        label=gettext_lazy("Allegiance — play in teams (4 or 6 players)"),
        help_text=OPTION_TEXTS["allegiance"],
        required=False,
    )
    teams = forms.ChoiceField(
        label=gettext_lazy("Teams"),
        choices=[
            ("pairs", gettext_lazy("Teams of two (opposite seats)")),
            ("triples", gettext_lazy("Teams of three (6 players, alternate seats)")),
        ],
        initial="pairs",
        required=False,
    )
    castle_siege = forms.BooleanField(
        label=gettext_lazy("Castle Siege — castles can be attacked"),
        help_text=OPTION_TEXTS["castle_siege"],
        required=False,
    )
    cut_throat = forms.BooleanField(
        label=gettext_lazy("Cut-throat — territories without a line of supply are lost"),
        help_text=OPTION_TEXTS["cut_throat"],
        required=False,
    )
    skirmish = forms.BooleanField(
        label=gettext_lazy("Skirmish — 11 VP wins, Homelands score 0"),
        help_text=OPTION_TEXTS["skirmish"],
        required=False,
    )
    mayhem = forms.BooleanField(
        label=gettext_lazy("Mayhem — 6 extra knights each, winners roll for losses"),
        help_text=OPTION_TEXTS["mayhem"],
        required=False,
    )
    fracture_prompts = forms.ChoiceField(
        label=gettext_lazy("Fracture windows"),
        choices=[
            (
                "all",
                gettext_lazy(
                    "secret — nobody learns who holds Fracture: for a player without one the server passes "
                    "after a short random delay"
                ),
            ),
            (
                "holders",
                gettext_lazy("fast — windows close as soon as the Fracture holders answer (not secret)"),
            ),
        ],
        initial="all",
        widget=forms.RadioSelect,
    )
    fracture_windows = forms.ChoiceField(
        label=gettext_lazy("Answering a Fracture window"),
        choices=[
            ("", gettext_lazy("as the time control suggests (in turn for live tables, sealed otherwise)")),
            (
                "in_turn",
                gettext_lazy("in turn — one player at a time, each seeing the answers before (the rulebook)"),
            ),
            ("sealed", gettext_lazy("sealed — everyone at once, with ranked targets (one wait per window)")),
        ],
        initial="",
        required=False,
        widget=forms.RadioSelect,
    )
    time_control = forms.ChoiceField(
        label=gettext_lazy("Time control"), choices=TIME_CONTROL_CHOICES, initial="daily"
    )
    turn_hours = forms.DecimalField(
        label=gettext_lazy("Hours per turn (custom)"),
        required=False,
        min_value=Decimal("0.05"),
        max_value=Decimal(720),
        decimal_places=2,
    )
    response_hours = forms.DecimalField(
        label=gettext_lazy("Hours per response (custom)"),
        required=False,
        min_value=Decimal("0.05"),
        max_value=Decimal(720),
        decimal_places=2,
    )
    private = forms.BooleanField(
        label=gettext_lazy("Private — only people with the invite link can join"), required=False
    )
    allow_vacation = forms.BooleanField(
        label=gettext_lazy("Allow vacations — an away player's clocks pause"), required=False, initial=True
    )
    auto_start = forms.BooleanField(
        label=gettext_lazy("Start by itself when every seat is taken"), required=False, initial=True
    )
    chat_spectators = forms.BooleanField(
        label=gettext_lazy("Spectators may read the table chat during the game"), required=False
    )

    def __init__(self, data: Mapping[str, object] | None = None) -> None:
        """The form (bound to the posted ``data``, if any), with the masking delays of the clocks under the
        Fracture prompts (:func:`mask_sentence`, in the reader's language)."""
        super().__init__(data)
        self.fields["fracture_prompts"].help_text = mask_sentence()

    def clean(self) -> dict[str, object]:
        """Check the custom hours and let the engine validate the rule combination (R105, Q28)."""
        data = super().clean() or {}
        if data.get("time_control") == "custom":
            for name in ("turn_hours", "response_hours"):
                if not data.get(name):
                    self.add_error(name, _("Enter the hours for a custom time control."))
        if "players" in data:
            try:
                engine.normalize_setup({"players": data["players"], "seed": 0, "options": self.options()})
            except engine.ContentError as exc:
                raise forms.ValidationError(content_message(str(exc))) from exc
        return data

    def options(self) -> dict[str, object]:
        """The engine options (``games.engine.OPTION_DEFAULTS``) chosen in the form."""
        data = self.cleaned_data
        return {
            "allegiance": (data.get("teams") or "pairs") if data.get("allegiance") else None,
            "castle_siege": bool(data.get("castle_siege")),
            "cut_throat": bool(data.get("cut_throat")),
            "skirmish": bool(data.get("skirmish")),
            "mayhem": bool(data.get("mayhem")),
            "fracture_prompts": data.get("fracture_prompts") or "all",
            # left out: the service picks it from the time control (lobby.window_defaults)
            **({"fracture_windows": data["fracture_windows"]} if data.get("fracture_windows") else {}),
        }

    def seconds(self) -> tuple[int | None, int | None]:
        """Turn and response seconds for a custom time control (``None`` for presets)."""
        data = self.cleaned_data
        if data.get("time_control") != "custom":
            return None, None
        return int(Decimal(data["turn_hours"]) * 3600), int(Decimal(data["response_hours"]) * 3600)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def json_loads_strict(raw: str | bytes) -> object:
    """Parse JSON as RFC 8259 defines it: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's ``json``
    accepts) are refused, so no non-finite number reaches the engine (issue 12).

    Raises:
        ValueError: not JSON (``json.JSONDecodeError``), a non-finite constant, or not UTF-8
            (``UnicodeDecodeError``).
    """
    return json.loads(raw, parse_constant=_refuse_constant)


def whole(value: str | None) -> int | None:
    """``value`` (a query or form field) as a whole number that fits a database id (0 ≤ n < 10¹⁸), else
    ``None``: digits only, so no sign, space or other script's digit gets through."""
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 18:
        return None
    return int(value)


class PayloadError(ValueError):
    """A posted decision form that cannot become an action payload (answered with 400)."""


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _int(value: str | None, field: str) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError) as exc:
        raise PayloadError(_("%(field)s must be a whole number.") % {"field": field}) from exc


def _text(post: QueryDict, name: str) -> str:
    return (post.get(name) or "").strip()


def _parse_plain(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    return {}


def _parse_text(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    return {name: _text(post, name) for name in fields}


def _parse_list(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    (name,) = fields
    return {name: [v.strip() for v in post.getlist(name) if v.strip()]}


def _parse_bool(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    (name,) = fields
    raw = _text(post, name).lower()
    if raw not in _TRUE | _FALSE:
        raise PayloadError(_("%(field)s must be yes or no.") % {"field": name})
    return {name: raw in _TRUE}


def _parse_move(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    if not _text(post, "to"):
        raise PayloadError(_("Choose the territory to advance into."))
    if not _text(post, "knights"):
        raise PayloadError(_("Choose how many knights advance."))
    return {"to": _text(post, "to"), "knights": _int(post.get("knights"), "knights")}


def _parse_moves(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    sources, dests, counts = post.getlist("from"), post.getlist("to"), post.getlist("knights")
    if not (len(sources) == len(dests) == len(counts)) or not sources:
        raise PayloadError(_("Each move needs a from, a to and a number of knights."))
    moves = []
    for src, dst, n in zip(sources, dests, counts, strict=True):
        if not src.strip() and not dst.strip() and not n.strip():
            continue  # an unused row of the form
        if not src.strip() or not dst.strip():
            raise PayloadError(_("Choose where the knights come from and where they go."))
        if src.strip() == dst.strip():
            raise PayloadError(_("Choose two different places: the knights must go somewhere else."))
        moves.append({"from": src.strip(), "to": dst.strip(), "knights": _int(n, "knights")})
    return {"moves": moves}


def _parse_ranked(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    ranked: list[str] = []
    for value in post.getlist("fracture"):
        if value.strip() and value.strip() not in ranked:
            ranked.append(value.strip())
    return {"fracture": ranked}


def _parse_optional_text(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    return {"card": _text(post, "card") or None}


def _parse_crown(post: QueryDict, fields: tuple[str, ...]) -> dict[str, object]:
    payload: dict[str, object] = {}
    # a target list sent with nothing chosen (none is pre-selected, issue 29)
    if "corruption" in post and not _text(post, "corruption"):
        raise PayloadError(_("Choose the artefact to destroy."))
    if "player" in post and not _text(post, "player"):
        raise PayloadError(_("Choose the player."))
    if "card" in post and not _text(post, "card"):
        raise PayloadError(_("Choose the card to shuffle back into your deck."))
    combined = _text(post, "corruption")
    if combined:
        player, _sep, artefact = combined.partition(":")
        payload["player"] = _int(player, "player")
        payload["artefact"] = artefact
    else:
        if post.get("player"):
            payload["player"] = _int(post.get("player"), "player")
        if post.get("artefact"):
            payload["artefact"] = str(post.get("artefact")).strip()
    if post.get("card"):
        payload["card"] = str(post.get("card")).strip()
    return payload


#: One parser per form shape: ``(posted form, the action's field names) -> action fields``.
_PARSERS: dict[FormShape, Callable[[QueryDict, tuple[str, ...]], dict[str, object]]] = {
    FormShape.PLAIN: _parse_plain,
    FormShape.TEXT: _parse_text,
    FormShape.LIST: _parse_list,
    FormShape.BOOL: _parse_bool,
    FormShape.MOVE: _parse_move,
    FormShape.MOVES: _parse_moves,
    FormShape.RANKED: _parse_ranked,
    FormShape.OPTIONAL_TEXT: _parse_optional_text,
    FormShape.CROWN: _parse_crown,
}


def decision_action(post: QueryDict) -> tuple[engine.Action, int, str | None]:
    """Parse a posted decision form into ``(action, expected_seq, prompt_key)``: the form's edge, where the
    fields become an engine action once (issue 31 §1; the services never see a payload).

    Fields: ``type`` and the fields of its :class:`games.actions_ui.ActionKind` (``shape`` says how they
    parse): ``to`` + ``knights`` (advance); ``target`` (fracture); ``card`` (conflict card, may-discard —
    empty means keep — and Crown of Order); ``cards`` (support, repeated); ``player``, ``artefact`` or
    ``corruption`` = ``"<player>:<artefact>"`` (crowns); ``order`` (Insight, repeated, top first);
    ``discard`` / ``use`` (true/false); ``fracture`` (respond, repeated in rank order, blanks ignored);
    ``from`` + ``to`` + ``knights`` repeated (redistribute); hidden ``expected_seq`` and ``prompt_key``
    (at most 80 characters; ``None`` when empty).

    Raises:
        PayloadError: a missing type or ``expected_seq``, or a number/boolean that does not parse, or a
            choice left empty. :class:`games.services.BadPayload`: the fields make no action (an unknown
            type, a malformed id), as :func:`games.services.payload_action` says. Whether the action is
            *legal* is left to the engine (``Illegal``).
    """
    kind = (post.get("type") or "").strip()
    if not kind:
        raise PayloadError(_("The form did not say which action to take."))
    if len(kind) > 40:
        raise PayloadError(_("Unknown action."))
    seq_raw = post.get("expected_seq")
    if seq_raw is None or seq_raw == "":
        raise PayloadError(_("The form is missing the game position it was made for (expected_seq)."))
    expected_seq = _int(seq_raw, "expected_seq")
    prompt_key = (post.get("prompt_key") or "").strip()[:80] or None
    payload: dict[str, object] = {"type": kind}
    action = action_kind(kind)
    if action is not None:
        payload.update(_PARSERS[action.shape](post, action.fields))
        unchosen = _UNCHOSEN.get(action.type)
        if unchosen is not None and not any(payload.get(name) for name in unchosen[0]):
            raise PayloadError(str(unchosen[1]))
    return payload_action(payload), expected_seq, prompt_key


#: A form sent with its one choice left empty (issue 29: nothing is pre-selected, so a person may press
#: the button first): action type -> (the payload fields of which one must be filled, the sentence).
_UNCHOSEN: dict[str, tuple[tuple[str, ...], Promise]] = {
    engine.ActionType.CHOOSE_CONFLICT: (("card",), gettext_lazy("Choose your conflict card first.")),
    engine.ActionType.PLAY_SUPPORT: (
        ("cards",),
        gettext_lazy("Tick at least one support card to play, or press Pass."),
    ),
    engine.ActionType.FRACTURE: (("target",), gettext_lazy("Choose the artefact to play Fracture on.")),
}


class _GameChoiceForm(forms.Form):
    """A form with a ``game`` field offering the player's games, after a first, empty choice labelled by
    :meth:`no_game` (the orders page's two forms)."""

    def __init__(
        self,
        data: Mapping[str, object] | None = None,
        *,
        games: list[tuple[int, str]],
        initial: dict[str, str] | None = None,
    ) -> None:
        """The form (bound to the posted ``data``, if any; ``initial``: its first values) offering
        ``games`` (``(id, title)``)."""
        super().__init__(data, initial=initial)
        game_field = self.fields["game"]
        assert isinstance(game_field, forms.ChoiceField)
        game_field.choices = [("", self.no_game()), *games]

    def no_game(self) -> str:
        """The label of the empty choice."""
        return "—"


class StandingOrderForm(_GameChoiceForm):
    """A new standing order for response windows (architecture "Response windows"): for all games or one
    game; ``artefact`` is required for the rules that name one."""

    game = forms.TypedChoiceField(
        label=gettext_lazy("Applies to"), coerce=int, empty_value=None, required=False
    )
    rule = forms.ChoiceField(label=gettext_lazy("Order"), choices=StandingOrder.Rule.choices)
    artefact = forms.ChoiceField(label=gettext_lazy("Artefact"), required=False)

    def __init__(
        self,
        data: Mapping[str, object] | None = None,
        *,
        games: list[tuple[int, str]],
        initial: dict[str, str] | None = None,
    ) -> None:
        """The form offering ``games`` (:class:`_GameChoiceForm`) and the artefacts of every content set."""
        super().__init__(data, games=games, initial=initial)
        artefacts = [(a.id, a.name) for a in engine.load_content("default").artefacts.values()]
        abbey = engine.load_content("abbey").artefacts.values()
        artefacts += [(a.id, a.name) for a in abbey if a.id not in {x for x, _n in artefacts}]
        art_field = self.fields["artefact"]
        assert isinstance(art_field, forms.ChoiceField)
        art_field.choices = [("", "—"), *sorted(artefacts, key=lambda x: x[1])]

    def no_game(self) -> str:
        """An order for no one game is for all of them."""
        return _("All my games")

    def clean(self) -> dict[str, object]:
        """``pass_unless`` and ``fracture`` name an artefact; ``pass`` does not."""
        data = super().clean() or {}
        if data.get("rule") in ("pass_unless", "fracture") and not data.get("artefact"):
            self.add_error("artefact", _("Choose the artefact this order is about."))
        if data.get("rule") == "pass":
            data["artefact"] = ""
        return data


class PendingOrdersForm(_GameChoiceForm):
    """The rest of the player's turn, written on the orders page (issue 30): one of their games in progress
    and the moves, one per line in the notation (``docs/notation.md``), as in an emailed reply. Nothing is
    chosen in advance but the game the page was opened for (``?game=``). Its fields are prefixed ``later-``
    (the standing-order form on the same page has a ``game`` too)."""

    prefix = "later"
    game = forms.TypedChoiceField(label=gettext_lazy("Game"), coerce=int)
    lines = forms.CharField(
        label=gettext_lazy("Moves, one per line"),
        max_length=4000,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false", "autocapitalize": "none"}),
        help_text=gettext_lazy(
            "As in an emailed reply, in the words of your emails: for example “conflict …”, “support …” and "
            "“end”. What your decision accepts now is played at once; the rest waits for the decision that "
            "accepts it."
        ),
    )


#: The optional rules the archive can filter by (R105–R120).
ARCHIVE_OPTIONS = engine.OPTIONAL_RULES


class ArchiveFilters(TypedDict):
    """The archive's valid filters (:meth:`ArchiveFilterForm.filters`, the keywords of
    :func:`games.selectors.archive`): ``players`` (2..6 or ``None``), ``player`` (part of a display name),
    ``option`` (an optional rule or ``""``) and ``rated`` (rated games only)."""

    players: int | None
    player: str
    option: str
    rated: bool


class ArchiveFilterForm(forms.Form):
    """The archive's filters (all optional, from the query string): player count 2..6, part of a player's
    display name (never an email address: issue 12), an optional rule, rated only. A value that does not
    validate (NUL bytes, an over-long name, an unknown count or rule) is ignored, as if not given, and
    :attr:`notices` says so."""

    players = forms.TypedChoiceField(
        choices=[("", "")] + [(str(n), str(n)) for n in range(2, 7)],
        coerce=int,
        empty_value=None,
        required=False,
    )
    player = forms.CharField(max_length=40, required=False, strip=True)
    option = forms.ChoiceField(choices=[("", ""), *((o, o) for o in ARCHIVE_OPTIONS)], required=False)
    rated = forms.BooleanField(required=False)

    def filters(self) -> ArchiveFilters:
        """The valid filters for :func:`games.selectors.archive`: ``players`` (int 2..6 or ``None``),
        ``player`` (str, at most 40 characters), ``option`` (one of :data:`ARCHIVE_OPTIONS` or ``""``),
        ``rated`` (bool). Invalid values fall back to these defaults."""
        self.is_valid()
        data = self.cleaned_data
        return {
            "players": data.get("players"),
            "player": data.get("player") or "",
            "option": data.get("option") or "",
            "rated": bool(data.get("rated")),
        }

    @property
    def notices(self) -> list[str]:
        """One sentence per ignored filter, naming it."""
        return [
            _("The filter “%(name)s” was ignored: %(reason)s")
            % {"name": name, "reason": " ".join(str(e) for e in errors)}
            for name, errors in self.errors.items()
        ]
