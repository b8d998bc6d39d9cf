"""The shapes of the per-viewer views (architecture §2 "Typed views"; R95, R97).

:func:`games.engine.view_for` returns a :class:`View`: plain JSON-shaped data (dicts, lists, strings and
numbers) typed with ``TypedDict``, so the API, the templates and the email content read it with no
conversion, and mypy checks every key they use. Counts are knights unless said otherwise; ``vp`` is
victory points; ``seat`` is a seat number (0-based, clockwise order, R25); ``pos`` / ``id`` of a place is
its position id (``"t3"``, ``"c0"``, ``"l1"``, ``docs/notation.md``).
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from .kinds import Phase

#: A seat number, or ``None`` for a spectator (or "nobody").
Seat = int | None


class CardView(TypedDict):
    """A card as anyone who may see it sees it (R60–R62): ``id`` (``"s0c04"``: owner seat and card
    index), ``card`` (the content's card id, ``"war_banner"``), ``name`` (the content's English name),
    ``kind`` (``"conflict"``, ``"support"`` or ``"resource"``) and ``value`` (its number; ``"d6"`` for
    Ambush, rolled when revealed; ``None`` for cards without one)."""

    id: str
    card: str
    name: str
    kind: str
    value: int | str | None


class DiscardedCardView(CardView):
    """A card of a public discard pile (R102), with the ``turn`` it was discarded on."""

    turn: int


class TableCardView(CardView):
    """A support card played in the current battle (R70), with the ``seat`` that played it."""

    seat: int


class ConflictView(TypedDict):
    """One side's conflict card in a battle (R68): whether it has ``chosen``; once revealed (or for its
    own player) the ``card`` (``None``: no card played) and, once revealed, its ``value`` as it counts."""

    chosen: bool
    card: NotRequired[CardView | None]
    value: NotRequired[int]


class ScorePart(TypedDict):
    """One part of a side's combat score (R73): its ``source`` (``"knights"``, ``"conflict"``, a support
    card or an artefact id) and its ``value`` in points."""

    source: str
    value: int


class BattleSideView(TypedDict):
    """The attacker or the defender of a battle: ``seat``, ``knights`` committed, combat ``score`` (the sum
    of ``parts``) and their ``conflict`` card (R64–R73)."""

    seat: int
    knights: int
    score: int
    parts: list[ScorePart]
    conflict: ConflictView


class BattleView(TypedDict):
    """The battle in progress (R63–R92): where (``pos``; ``castle`` when a castle is attacked), the
    engine's ``stage`` and the rulebook's order-of-battle ``step`` (1–9), both sides, whose turn it is in
    the support step, the result once known (``winner`` seat, ``margin`` in points, ``flipped`` by a
    Fracture) and the support cards on the ``table``."""

    pos: str
    castle: bool
    stage: str
    step: int
    attacker: BattleSideView
    defender: BattleSideView
    support_turn: int | None
    winner: int | None
    margin: int | None
    flipped: bool
    table: list[TableCardView]
    #: no support card may be played in this battle (Mountains, R71; never at a castle, R113)
    no_support: bool


class TileView(TypedDict):
    """One position of the map: ``id``, axial coordinates ``q`` and ``r``, and ``kind`` (``"territory"``,
    ``"castle"`` or ``"lake"``).

    Territories add ``tile`` (territory type id), ``name``, ``vp`` (R14, R117), ``capacity`` in knights
    (R12), ``owner`` (seat or ``None``), ``knights``, ``supplied`` (line of supply, R48) and ``disputed``
    (the battle is here). Castles add ``seat``, ``name``, ``colour``, ``knights`` and ``disputed``.
    """

    id: str
    q: int
    r: int
    kind: str
    tile: NotRequired[str]
    name: NotRequired[str]
    vp: NotRequired[int]
    capacity: NotRequired[int]
    owner: NotRequired[int | None]
    knights: NotRequired[int]
    supplied: NotRequired[bool]
    disputed: NotRequired[bool]
    seat: NotRequired[int]
    colour: NotRequired[str]


class ArtefactView(TypedDict):
    """An artefact a player holds (R38–R42): ``id``, ``name``, ``type`` (``"crown"``, ``"sceptre"`` or
    ``"orb"``), its ``ability`` and ``trigger`` text, whether it is ``face_up``, and the turn it was
    ``destroyed_on`` (``None`` while whole)."""

    id: str
    name: str
    type: str
    ability: str
    trigger: str
    face_up: bool
    destroyed_on: int | None


class PlayerView(TypedDict):
    """One seat's public facts: castle ``name``, ``colour``, knights in the castle and in all, dice in use
    and in reserve (R16), ``vp``, hand, deck and ``discard`` pile sizes and cards, ``artefacts``, ``team``
    (Allegiance, R109); ``hand`` only in the view of that seat (R95)."""

    seat: int
    castle: str
    colour: str
    castle_knights: int
    knights_on_map: int
    dice_in_use: int
    dice_in_reserve: int
    vp: int
    hand_size: int
    deck_size: int
    discard: list[DiscardedCardView]
    artefacts: list[ArtefactView]
    team: int | None
    hand: NotRequired[list[CardView]]


class WindowView(TypedDict):
    """The open response window (R37): ``kind`` (what opened it: ``"crown"``, ``"sceptre"``, ``"orb"``,
    ``"tactical_advance"``…), its ``opener`` seat, the ``targets`` a Fracture may cancel, the seats still
    ``waiting_for``, whether the viewer has ``answered``; a crown window shows the announced use
    (``crown``) without the card it would take. ``mode`` is ``"sealed"`` (answers stay hidden until the
    close, so ``waiting_for`` lists every asked seat until then) or ``"in_turn"`` (``waiting_for`` is the
    lap's current seat and ``answers`` the lap so far: ``{"seat", "fracture"}``, the target or ``None``
    for a pass, as the rulebook's players see them)."""

    kind: str
    opener: int
    targets: list[str]
    waiting_for: list[int]
    answered: bool
    mode: str
    answers: list[dict[str, Any]]
    crown: NotRequired[dict[str, Any]]


class ChoiceView(TypedDict):
    """A pending choice (R41, R67, R102): the ``seat`` deciding, its ``kind`` (a prompt kind) and
    ``source``; the looked-at ``cards`` only for the deciding seat (R95); Prosperity's ``target`` seat."""

    seat: int
    kind: str
    source: str
    cards: NotRequired[list[CardView]]
    target: NotRequired[int]


class VictoryView(TypedDict, total=False):
    """VP needed to win: ``player`` (R103; 11 in Skirmish, R117), or ``team`` by team size under
    Allegiance (R109)."""

    player: int
    team: dict[str, int]


class ContentView(TypedDict):
    """Which content set the game uses: ``id``, ``name`` and ``provenance``."""

    id: str
    name: str
    provenance: str


class PromptView(TypedDict):
    """A decision the game waits for: ``seat``, ``kind`` (a prompt kind), ``deadline`` class (``"turn"`` or
    ``"response"``) and its ``key``."""

    seat: int
    kind: str
    deadline: str
    key: str


class View(TypedDict):
    """Everything seat ``viewer`` (``None``: a spectator) may know of a game (R95, R97)."""

    viewer: Seat
    turn: int
    active: int
    phase: Phase
    turn_phase: str
    manoeuvres_left: int
    crown_used: bool
    winners: list[int]
    victory: VictoryView
    options: dict[str, Any]
    content: ContentView
    map: list[TileView]
    players: list[PlayerView]
    battle: BattleView | None
    window: WindowView | None
    choice: ChoiceView | None
    prompts: list[PromptView]


class ControlView(TypedDict):
    """Who holds a territory in :class:`PublicSummary`: ``owner`` seat and ``knights``."""

    owner: int
    knights: int


class PublicSummary(TypedDict):
    """The compact public summary the command line prints: ``turn``, ``active``, ``phase``, ``winners``,
    ``vp`` per seat, castle knights per seat, held territories by position id and face-down artefacts."""

    turn: int
    active: int
    phase: Phase
    winners: list[int]
    vp: list[int]
    castles: list[int]
    control: dict[str, ControlView]
    artefacts_face_down: list[str]
