"""The shapes of what the presenters hand to the templates (issue 31 §1): ``TypedDict`` declarations of the
page models, panels and decision forms. At run time they are plain dicts (the templates read them as
before); mypy checks every key the presenters set and their Python callers read.

Counts are knights unless said otherwise; ``vp`` is victory points; a ``seat`` is a seat number (0-based);
coordinates and widths on the map are SVG units; names and labels are already in the active language.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal, NotRequired, TypeAlias, TypedDict

from django.utils.functional import Promise
from django_stubs_ext import StrPromise

from games import engine

# -- Shared ----------------------------------------------------------------------------------------------


class SeatStyle(TypedDict):
    """How a seat is drawn (:func:`.common.seat_style`): its ``seat`` number, ``colour`` and light ``tint``
    (``#rrggbb``), ``colour_name`` (the content's colour, ``"red"``), ``pattern`` (``"dots"``…) and the SVG
    ``pattern_id`` of its fill (``"pat-s0"``), the ``initial`` of its castle and the ``castle`` name."""

    seat: int
    colour: str
    tint: str
    colour_name: str
    pattern: str
    pattern_id: str
    initial: str
    castle: str


# -- The map (board.py) ----------------------------------------------------------------------------------


class AttackerBadge(TypedDict):
    """The attacker's knight badge on a disputed tile: its ``style`` and ``knights``; ``x`` (text centre)
    and ``left`` (box edge) in SVG units, added by the badge layout."""

    style: SeatStyle
    knights: int
    x: NotRequired[float]
    left: NotRequired[float]


class TileModel(TypedDict, total=False):
    """One position of the map (:func:`.board.board_model`).

    Every tile: ``id`` (position id), ``kind`` (``"territory"``, ``"castle"`` or ``"lake"``), its centre
    ``x``, ``y`` and the ``points`` of its outer and ``inner`` hexagons (SVG units), ``target`` (the viewer
    may advance here), ``pickable`` (the viewer may click it now), ``disputed`` (the battle is here),
    ``full_name`` (``""`` for a lake or castle), ``label`` (the screen-reader sentence), ``badge_x`` and
    ``badge_left`` (where the holder's knight badge sits, SVG units).

    A castle or territory adds ``name`` (as the map shows it), ``style`` (its holder's :class:`SeatStyle`,
    ``None`` for an uncontrolled territory), ``knights`` and ``loc`` (what a redistribution posts: a
    position id or ``"castle"``), and ``name_fit`` (the width to squeeze the name to, SVG units, or
    ``None``). A castle adds ``seat``; a territory ``tile`` (territory type id), ``vp``, ``pips`` (one per
    VP), ``capacity`` (in knights, ``None`` for the default six), ``owner`` (seat or ``None``),
    ``unsupplied`` (held without a line of supply), ``text`` (its abilities) and ``type_name``. A disputed
    tile adds the ``attacker``'s badge.
    """

    id: str
    kind: str
    x: float
    y: float
    points: str
    inner: str
    target: bool
    pickable: bool
    disputed: bool
    full_name: str
    label: str
    badge_x: float
    badge_left: float
    name: str
    style: SeatStyle | None
    knights: int
    loc: str
    name_fit: int | None
    seat: int
    tile: str
    vp: int
    pips: range
    capacity: int | None
    owner: int | None
    unsupplied: bool
    text: str
    type_name: str
    attacker: AttackerBadge


class BoardModel(TypedDict):
    """The SVG map (:func:`.board.board_model`): its ``tiles``, ``viewbox`` and ``width`` (SVG units), every
    seat's style (``seats``), whether the viewer picks a tile now (``choosing``), the id ``prefix`` of its
    elements, whether tiles take focus (``interactive``) and whether the map is one roving Tab stop
    (``roving``)."""

    tiles: list[TileModel]
    viewbox: str
    width: int
    seats: list[SeatStyle]
    choosing: bool
    prefix: str
    interactive: bool
    roving: bool


# -- The panels (panels.py, __init__.py) -----------------------------------------------------------------


class TeamInfo(TypedDict):
    """A player's Allegiance team (R105, R109): its ``number`` (1-based), the ``mates``' names, the team's
    ``vp``, the ``threshold`` it needs (VP) and ``pct`` of it reached (0–100)."""

    number: int
    mates: list[str]
    vp: int
    threshold: int
    pct: int


class PlayerPanel(engine.PlayerView):
    """One player's panel (:func:`.panels.players_model`): the seat's public view (never its ``hand``,
    which is left out) with its ``discard`` newest first, plus the public ``name``, ``style``, whether it is
    the viewer (``is_me``), a bot (``is_bot``) or the active seat of a running game (``is_active``), the VP
    ``threshold`` to win and ``pct`` of it reached (0–100), and ``team_info`` (``None`` outside
    Allegiance)."""

    name: str
    style: SeatStyle
    is_me: bool
    is_bot: bool
    is_active: bool
    threshold: int
    pct: int
    team_info: TeamInfo | None


class HandCard(engine.CardView):
    """A card of the viewer's hand with its ``label`` (:func:`.common.card_label`: "War Banner (+2)")."""

    label: str


class StepItem(TypedDict):
    """A step of the turn overview: its number ``n`` (1–9, R26), ``name`` (lazy translation) and whether it
    is the ``current`` one."""

    n: int
    name: StrPromise
    current: bool


class BattleStepItem(StepItem):
    """A step of the order of battle (1–9): as :class:`StepItem`, and whether it is ``done``."""

    done: bool


class ScorePartModel(TypedDict):
    """One part of a side's combat score: its ``label`` ("knights", "support from Ada") and ``value`` in
    points."""

    label: str
    value: int


class BattleSideModel(TypedDict):
    """One side of the battle panel: ``role`` (``"attacker"`` or ``"defender"``), ``seat``, ``name``,
    ``style``, ``knights`` committed, combat ``score`` and its ``parts`` (points), whether its conflict card
    is ``chosen``, the ``card`` once shown (``None``: not shown or no card), its ``value`` (points) once
    ``revealed``, and whether the side is the viewer's (``mine``)."""

    role: str
    seat: int
    name: str
    style: SeatStyle
    knights: int
    score: int
    parts: list[ScorePartModel]
    chosen: bool
    card: engine.CardView | None
    value: int | None
    revealed: bool
    mine: bool


class TableCardModel(engine.TableCardView):
    """A support card on the battle's table, with the name of the player ``who`` played it."""

    who: str


class BattleModel(TypedDict):
    """The battle under way: ``pos`` (position id), ``tile`` (the map's name of it), whether it is a
    ``castle``, the current order-of-battle ``step`` (1–9) and all ``steps``, both ``sides`` (attacker
    first), the names of the seat whose ``support_turn`` it is and of the ``winner`` (``None``: nobody yet),
    the ``margin`` (points) and the support cards on the ``table``."""

    pos: str
    tile: str
    castle: bool
    step: int
    steps: list[BattleStepItem]
    sides: list[BattleSideModel]
    support_turn: str | None
    winner: str | None
    margin: int | None
    table: list[TableCardModel]


class StatusModel(TypedDict):
    """Where the game stands (:func:`.panels.status_model`): the ``turn`` number, the ``active_name``, the
    turn overview's ``steps``, the ``battle`` under way (``None``: none) and ``manoeuvres_left``."""

    turn: int
    active_name: str
    steps: list[StepItem]
    battle: BattleModel | None
    manoeuvres_left: int


class ResultRow(TypedDict):
    """One seat of the final result: ``name``, final ``rank`` (1 = first) and ``vp``, whether it is a
    ``winner``, and its ``style``."""

    name: str
    rank: int | None
    vp: int | None
    winner: bool
    style: SeatStyle


class ResultModel(TypedDict):
    """The result of a finished game: the ``winners``' names, every seat's row (``rows``, best first) and
    when it ended (``finished_at``)."""

    winners: list[str]
    rows: list[ResultRow]
    finished_at: datetime | None


# -- "Since your last move" (recent.py) ------------------------------------------------------------------


class SinceItem(TypedDict):
    """One item of "Since your last move": its ``lines`` (the log's sentences), ``seq`` (its newest
    record), whether it is a ``battle``, its ``key`` (unique per item and position) and what the live
    region reads (``announce``)."""

    lines: list[str]
    seq: int
    battle: bool
    key: str
    announce: str


class SinceModel(TypedDict):
    """The "Since your last move" block: the newest ``items``, oldest first, and how many older ones were
    left out (``more``)."""

    items: list[SinceItem]
    more: int


# -- The guided first game (tutorial.py) -----------------------------------------------------------------


class Hint(TypedDict):
    """The guided game's hint (:func:`.tutorial.tutorial_model`): the turn overview's ``step`` (1–9, R26)
    ``of`` nine and its ``name``, the sentence (``text``), the CSS selector of the control to use
    (``target``, may be ``""``) and the action type it sends (``act``, or ``""``), suggested form values
    (``fill``: field name -> value, knights as numbers), a ``note`` on what an earlier move changed (or
    ``""``); once the guided turn is over ``done``, whether it had a ``battle`` and ``won`` it, the artefact
    names the restore step turned face up (``restored``) and whether the banner is ``collapsed``."""

    step: int
    of: int
    name: str
    text: str
    target: str
    act: str
    fill: dict[str, str | int]
    note: str
    done: bool
    battle: bool
    won: bool
    restored: list[str]
    collapsed: bool


# -- Undo (undo.py) --------------------------------------------------------------------------------------


class UndoSteps(TypedDict):
    """Steps that can be taken back: how many (``steps``, at least 1) and the newest one's words
    (``last``)."""

    steps: int
    last: str


class UndoBarrier(TypedDict):
    """Nothing can be taken back (``steps`` is 0): the ``reason`` (lazy translation), its ``rule`` ("R28",
    or ``""``) and that rule's ``anchor`` on ``/rules/``."""

    steps: int
    reason: Promise
    rule: str
    anchor: str


#: The undo part of the decision panel (:func:`.undo.undo_model`).
UndoModel: TypeAlias = UndoSteps | UndoBarrier


# -- The decision forms (decision.py) --------------------------------------------------------------------


class TargetOption(TypedDict):
    """A choice of target: ``value`` (what the form posts: an artefact id, ``"seat:artefact"``, or a seat
    number), ``label`` ("Sceptre of Rage — Bot 1") and whether the target is the viewer's ``own``."""

    value: str | int
    label: str
    own: bool


class ChoiceOption(TypedDict):
    """A plain choice: the ``value`` the form posts (a card or position id, ``"castle"``) and its
    ``label``."""

    value: str
    label: str


class SourceOption(ChoiceOption):
    """A place knights may be redistributed from, with the ``dests`` they may go to (space-separated
    values)."""

    dests: str


class CrownForm(TypedDict):
    """The crown's form: the crown's ``name`` and ``mode`` (``"plain"``, ``"corruption"``, ``"player"`` or
    ``"card"``), the ``options`` of a targeted mode and, for a use that changes nothing, why (``idle``)."""

    name: str
    mode: str
    options: NotRequired[list[TargetOption] | list[ChoiceOption]]
    idle: NotRequired[str]


class RedistributeForm(TypedDict):
    """The redistribution form: the ``sources`` and ``dests`` of the legal moves, and the most knights one
    move may take (``max``)."""

    sources: list[SourceOption]
    dests: list[ChoiceOption]
    max: int


class AdvanceOption(TypedDict):
    """An advance target: ``value`` (position id), ``label`` ("Forest (north-west) — Bot 1"), the most
    knights that may go (``max``) and whether it starts a ``battle``."""

    value: str
    label: str
    max: int
    battle: bool


class AdvanceForm(TypedDict):
    """The advance form: its ``options`` and the most knights any advance may take (``max``)."""

    options: list[AdvanceOption]
    max: int


class WindowArtefact(TypedDict):
    """An artefact a response window is about: its ``name``, the owner's name (``who``) and what it does
    (``text``)."""

    name: str
    who: str
    text: str


class WindowAnswer(TypedDict):
    """An answer already given in an in-turn window: ``who`` gave it and the artefact name it fractured
    (``target``; ``None``: a pass)."""

    who: str
    target: str | None


class RespondForm(TypedDict):
    """The Fracture window's form: the window's ``kind`` (``None`` without a window), the ``opener``'s name,
    the ``window_targets``, whether it is ``in_turn`` (R37) and the ``answers`` so far, the artefacts the
    viewer may fracture (``options``) and the ranks they may be ordered by (``ranks``)."""

    kind: str | None
    opener: str
    window_targets: list[WindowArtefact]
    in_turn: bool
    answers: list[WindowAnswer]
    options: list[TargetOption]
    ranks: range


class CardStub(TypedDict):
    """A card the viewer cannot see, named by its ``id`` (``name`` is the id too)."""

    id: str
    name: str


class InsightForm(TypedDict):
    """The Crown of Insight's form: the looked-at ``cards`` and their ``positions`` (0-based)."""

    cards: list[engine.CardView]
    positions: list[int]


class ProsperityForm(TypedDict):
    """The Crown of Prosperity's form: the top ``cards`` and the name of the seat whose deck it is
    (``target``, ``""`` when unknown)."""

    cards: list[engine.CardView]
    target: str


class FearForm(TypedDict):
    """The fear choice's form: the rival's knights in the battle (``rival_knights``; ``None`` without a
    battle of the viewer's)."""

    rival_knights: int | None


#: What one decision form shows (:data:`.decision.FORM_BUILDERS`); a card list is the cards to pick from.
DecisionForm: TypeAlias = (
    list[TargetOption]
    | CrownForm
    | RedistributeForm
    | AdvanceForm
    | RespondForm
    | list[engine.CardView | CardStub]
    | InsightForm
    | ProsperityForm
    | FearForm
)


class WaitingModel(TypedDict):
    """Who the viewer waits for (:func:`.decision.waiting_model`): in a Fracture window nobody is named
    (``waiting_window``); the names of the bots ``thinking`` and the people waited for
    (``thinking_names``, ``waiting_names``), the nearest deadline of theirs (``waiting_deadline``), the
    sentence for a decision the server takes for the viewer (``own_auto``, or ``""``) and whether the rest
    of the viewer's own interrupted turn may be written as pending orders (``rest_of_turn``)."""

    waiting_window: bool
    thinking_names: list[str]
    waiting_names: list[str]
    waiting_deadline: datetime | None
    own_auto: str
    rest_of_turn: bool


class DecisionModel(WaitingModel):
    """The decision panel (:func:`.decision.decision_model`): the ``forms`` (action type -> its form,
    ``True`` for a plain button) and whether there are any (``has_forms``), the viewer's first ``prompt``
    (``None``: none) and its ``prompt_key``, the ``headline``, the viewer's own deadline (``my_deadline``),
    whether the viewer is a ``spectator``, the panel's signature (``sig``, 12 hex digits), ``now``, the
    moves not available and why (``why_not``: ``{"text", "rule", "anchor"}``) and the ``undo`` part; plus
    the keys of :class:`WaitingModel`."""

    forms: dict[str, Literal[True] | DecisionForm]
    has_forms: bool
    prompt: dict[str, object] | None
    prompt_key: str
    headline: str
    my_deadline: datetime | None
    spectator: bool
    sig: str
    now: datetime
    why_not: list[dict[str, str]]
    undo: UndoModel | None


# -- The rules reference (rules.py) ----------------------------------------------------------------------


class TerritoryRow(TypedDict):
    """A territory type of ``/rules/``: ``id``, ``name``, the ``vp`` its tiles are worth, ``capacity`` in
    knights and whether it ``capacity_differs`` from the default, its abilities (``texts``) and ``icon`` (a
    one-tile map)."""

    id: str
    name: str
    vp: list[int]
    capacity: int
    capacity_differs: bool
    texts: list[str]
    icon: BoardModel


class CardRow(engine.CardView):
    """A card of ``/rules/``: the card (``id`` and ``card`` are both its content id; ``value`` ``"d6"`` for
    Ambush) with its ``label``, what it does (``text``) and how many ``copies`` the deck holds."""

    label: str
    text: str
    copies: int


class OptionRow(TypedDict):
    """An optional rule of ``/rules/``: its ``key``, ``text`` (lazy translation) and ``rule`` number."""

    key: str
    text: StrPromise
    rule: str


class ExampleFrame(TypedDict):
    """A frame of the worked battle example: its ``number`` (1-based), ``caption``, the ``rules`` it shows
    and their ``anchor``, the map (``board``), both combat ``scores`` in points (attacker first; ``None``
    outside the battle) and the log's ``lines``."""

    number: int
    caption: Promise
    rules: str
    anchor: str
    board: BoardModel
    scores: list[int] | None
    lines: list[str]


class RulesModel(TypedDict):
    """Everything ``/rules/`` shows (:func:`.rules.rules_model`): the ``sections`` (anchor, title, rule
    range), the ``territories``, ``artefacts`` by type (``"crown"``…: ``{"id", "type", "name", "anchor",
    "when", "does", "text", "of_owner", "rule"}``), ``cards``, optional rules (``options``), the content's
    fixed ``numbers``, the ``deck_size`` in cards, the ``diagrams`` by name, the battle ``example``, the
    ``content`` set shown and the ``content_sets`` offered (spec, label)."""

    sections: list[tuple[str, Promise, str]]
    territories: list[TerritoryRow]
    artefacts: dict[str, list[dict[str, str]]]
    cards: list[CardRow]
    options: list[OptionRow]
    numbers: Mapping[str, object]
    deck_size: int
    diagrams: dict[str, BoardModel]
    example: list[ExampleFrame]
    content: str
    content_sets: list[tuple[str, StrPromise]]
