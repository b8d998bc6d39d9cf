"""Game state: a tree of small dataclasses with exact canonical-JSON round trips (architecture §2 "State").

Conventions: positions are indexed in layout fill order (named ``t<index>`` outside the engine); cards are
indices 0..17 into the content's expanded deck list (the owner is implied by the pile that holds them); a
deck's *top* is the **last** element of ``Player.deck``. Everything serialises to ints, strings, bools,
lists and string-keyed dicts only, with a schema version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .content import Board, Content, load_board, load_content
from .kinds import Phase, Stage

SCHEMA_VERSION = 1

#: ``Battle.conflict`` marker: the player has not chosen yet.
UNCHOSEN = -2
#: ``Battle.conflict`` marker: the player holds no conflict card and counts as having played value 0 (R68).
NO_CARD = -1


@dataclass(slots=True)
class Artefact:
    """An artefact held by a player (R89–R90): face up or destroyed on turn ``destroyed_on`` (0 = never)."""

    id: str
    face_up: bool = True
    destroyed_on: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Canonical dict form."""
        return {"id": self.id, "face_up": self.face_up, "destroyed_on": self.destroyed_on}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Artefact:
        """Inverse of :meth:`to_dict`."""
        return Artefact(str(d["id"]), bool(d["face_up"]), int(d["destroyed_on"]))


@dataclass(slots=True)
class Player:
    """One seat: castle knights, secret hand and deck (top = last), public discard with discard turns
    (R101), artefacts in crown/sceptre/orb order, team (-1 outside Allegiance)."""

    seat: int
    castle: int
    hand: list[int]
    deck: list[int]
    discard: list[int]
    discard_turns: list[int]
    artefacts: list[Artefact]
    team: int = -1

    def copy(self) -> Player:
        """Copy this player's mutable lists (artefacts included) for copy-on-write."""
        return Player(
            self.seat,
            self.castle,
            list(self.hand),
            list(self.deck),
            list(self.discard),
            list(self.discard_turns),
            [Artefact(a.id, a.face_up, a.destroyed_on) for a in self.artefacts],
            self.team,
        )

    def artefact(self, artefact_id: str) -> Artefact | None:
        """Return this player's artefact with ``artefact_id`` or ``None``."""
        for a in self.artefacts:
            if a.id == artefact_id:
                return a
        return None

    def to_dict(self) -> dict[str, Any]:
        """Canonical dict form."""
        return {
            "seat": self.seat,
            "castle": self.castle,
            "hand": list(self.hand),
            "deck": list(self.deck),
            "discard": list(self.discard),
            "discard_turns": list(self.discard_turns),
            "artefacts": [a.to_dict() for a in self.artefacts],
            "team": self.team,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Player:
        """Inverse of :meth:`to_dict`."""
        return Player(
            int(d["seat"]),
            int(d["castle"]),
            [int(x) for x in d["hand"]],
            [int(x) for x in d["deck"]],
            [int(x) for x in d["discard"]],
            [int(x) for x in d["discard_turns"]],
            [Artefact.from_dict(a) for a in d["artefacts"]],
            int(d["team"]),
        )


@dataclass(slots=True)
class Battle:
    """Battle sub-state (R59–R81). ``stage`` names the next thing to do; index 0 = attacker, 1 = defender in
    the paired lists. ``substitute`` is a knight part fixed by Fear/Vigour or Castle Siege (-1 = real
    knights); ``frozen`` the knight parts frozen at the result (R60); ``mods`` lists ``[source, value]``."""

    attacker: int
    defender: int
    pos: int
    castle: bool
    stage: Stage
    att_knights: int
    mods: list[list[list[Any]]] = field(default_factory=lambda: [[], []])
    substitute: list[int] = field(default_factory=lambda: [-1, -1])
    frozen: list[int] = field(default_factory=lambda: [-1, -1])
    conflict: list[int] = field(default_factory=lambda: [UNCHOSEN, UNCHOSEN])
    conflict_values: list[int] = field(default_factory=lambda: [-1, -1])
    revealed: bool = False
    support_order: list[int] = field(default_factory=list)
    support_turn: int = -1
    support_passes: int = 0
    table: list[list[int]] = field(default_factory=list)  # [seat, card] played and not yet discarded
    queue: list[str] = field(default_factory=list)  # artefacts still to apply this step
    winner: int = -1
    margin: int = 0
    flipped: bool = False
    serial: int = 0

    def copy(self) -> Battle:
        """Copy for copy-on-write (each list copied, its immutable items shared; issue 31: the copy through
        :meth:`to_dict` and :meth:`from_dict` cost random play about 6 %)."""
        return Battle(
            attacker=self.attacker,
            defender=self.defender,
            pos=self.pos,
            castle=self.castle,
            stage=self.stage,
            att_knights=self.att_knights,
            mods=[[list(m) for m in side] for side in self.mods],
            substitute=list(self.substitute),
            frozen=list(self.frozen),
            conflict=list(self.conflict),
            conflict_values=list(self.conflict_values),
            revealed=self.revealed,
            support_order=list(self.support_order),
            support_turn=self.support_turn,
            support_passes=self.support_passes,
            table=[list(t) for t in self.table],
            queue=list(self.queue),
            winner=self.winner,
            margin=self.margin,
            flipped=self.flipped,
            serial=self.serial,
        )

    def side(self, seat: int) -> int:
        """Return 0 for the attacker, 1 for the defender, -1 for anyone else."""
        return 0 if seat == self.attacker else 1 if seat == self.defender else -1

    def to_dict(self) -> dict[str, Any]:
        """Canonical dict form."""
        return {
            "attacker": self.attacker,
            "defender": self.defender,
            "pos": self.pos,
            "castle": self.castle,
            "stage": self.stage,
            "att_knights": self.att_knights,
            "mods": [[list(m) for m in side] for side in self.mods],
            "substitute": list(self.substitute),
            "frozen": list(self.frozen),
            "conflict": list(self.conflict),
            "conflict_values": list(self.conflict_values),
            "revealed": self.revealed,
            "support_order": list(self.support_order),
            "support_turn": self.support_turn,
            "support_passes": self.support_passes,
            "table": [list(t) for t in self.table],
            "queue": list(self.queue),
            "winner": self.winner,
            "margin": self.margin,
            "flipped": self.flipped,
            "serial": self.serial,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Battle:
        """Inverse of :meth:`to_dict`."""
        return Battle(
            attacker=int(d["attacker"]),
            defender=int(d["defender"]),
            pos=int(d["pos"]),
            castle=bool(d["castle"]),
            stage=Stage(d["stage"]),
            att_knights=int(d["att_knights"]),
            mods=[[[str(m[0]), int(m[1])] for m in side] for side in d["mods"]],
            substitute=[int(x) for x in d["substitute"]],
            frozen=[int(x) for x in d["frozen"]],
            conflict=[int(x) for x in d["conflict"]],
            conflict_values=[int(x) for x in d["conflict_values"]],
            revealed=bool(d["revealed"]),
            support_order=[int(x) for x in d["support_order"]],
            support_turn=int(d["support_turn"]),
            support_passes=int(d["support_passes"]),
            table=[[int(t[0]), int(t[1])] for t in d["table"]],
            queue=[str(x) for x in d["queue"]],
            winner=int(d["winner"]),
            margin=int(d["margin"]),
            flipped=bool(d["flipped"]),
            serial=int(d["serial"]),
        )


@dataclass(slots=True)
class Window:
    """An open response window (R37, architecture "Response windows"): ``kind`` crown/sceptre/orb, opened
    by ``opener``; ``targets`` the artefacts about to apply; ``asked`` the seats prompted in clockwise order
    from the opener; ``answers[i]`` the ranked Fracture targets of ``asked[i]`` (``None`` = not answered,
    ``[]`` = pass). ``crown`` holds the announced crown use (kind crown only)."""

    kind: str
    opener: int
    targets: list[str]
    asked: list[int]
    answers: list[list[str] | None]
    crown: dict[str, Any] = field(default_factory=dict)
    serial: int = 0

    def copy(self) -> Window:
        """Copy for copy-on-write."""
        return Window(
            self.kind,
            self.opener,
            list(self.targets),
            list(self.asked),
            [None if a is None else list(a) for a in self.answers],
            dict(self.crown),
            self.serial,
        )

    def to_dict(self) -> dict[str, Any]:
        """Canonical dict form."""
        return {
            "kind": self.kind,
            "opener": self.opener,
            "targets": list(self.targets),
            "asked": list(self.asked),
            "answers": [None if a is None else list(a) for a in self.answers],
            "crown": dict(self.crown),
            "serial": self.serial,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Window:
        """Inverse of :meth:`to_dict`."""
        return Window(
            str(d["kind"]),
            int(d["opener"]),
            [str(x) for x in d["targets"]],
            [int(x) for x in d["asked"]],
            [None if a is None else [str(x) for x in a] for a in d["answers"]],
            dict(d["crown"]),
            int(d["serial"]),
        )


@dataclass(slots=True)
class Choice:
    """A pending decision of one seat outside the turn/battle forms: ``kind`` is ``may_discard``
    (Fury, Ruins/Abbey/Fortress, Preparation, Cleansing), ``insight_order``, ``prosperity`` or ``fear``
    (Fear/Vigour, Q3). ``cards`` are the looked-at cards (Insight: top first; Prosperity: the top card of
    ``target``'s deck). ``resume`` is ``window`` or ``battle``."""

    seat: int
    kind: str
    source: str
    resume: str
    cards: list[int] = field(default_factory=list)
    target: int = -1
    serial: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Canonical dict form."""
        return {
            "seat": self.seat,
            "kind": self.kind,
            "source": self.source,
            "resume": self.resume,
            "cards": list(self.cards),
            "target": self.target,
            "serial": self.serial,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Choice:
        """Inverse of :meth:`to_dict`."""
        return Choice(
            int(d["seat"]),
            str(d["kind"]),
            str(d["source"]),
            str(d["resume"]),
            [int(x) for x in d["cards"]],
            int(d["target"]),
            int(d["serial"]),
        )


@dataclass(slots=True)
class GameState:
    """The whole game. ``phase`` is the turn-level phase: ``window`` (free window, R27), ``manoeuvre``
    (after a manoeuvre's redistribution, before its advance), ``vitality`` (Crown of Vitality
    redistribution) or ``over``; a running ``battle``, open ``window`` (response window) or ``choice``
    takes precedence (see :func:`games.engine.rules.current_phase`). ``owner``/``knights``/``tiles`` are per
    position (``-1``/0/``""`` where empty or not a territory). ``seed``/``rng_counter`` drive all chance;
    ``dice_queue`` holds pinned d6 results consumed first."""

    schema: int
    setup: dict[str, Any]
    seed: int
    rng_counter: int
    dice_queue: list[int]
    turn: int
    active: int
    phase: Phase
    manoeuvres_left: int
    crown_used: bool
    owner: list[int]
    knights: list[int]
    tiles: list[str]
    players: list[Player]
    battle: Battle | None = None
    window: Window | None = None
    choice: Choice | None = None
    winners: list[int] = field(default_factory=list)
    serial: int = 0
    actions_applied: int = 0
    content: Content = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    board: Board = field(default=None, compare=False, repr=False)  # type: ignore[assignment]

    def shallow(self) -> GameState:
        """Return a copy that shares players, battle, window and choice (copy-on-write: callers copy what
        they change) but owns its per-position lists."""
        return GameState(
            self.schema,
            self.setup,
            self.seed,
            self.rng_counter,
            list(self.dice_queue),
            self.turn,
            self.active,
            self.phase,
            self.manoeuvres_left,
            self.crown_used,
            list(self.owner),
            list(self.knights),
            self.tiles,
            list(self.players),
            self.battle,
            self.window,
            self.choice,
            list(self.winners),
            self.serial,
            self.actions_applied,
            self.content,
            self.board,
        )

    @property
    def num_players(self) -> int:
        """Number of seats (2..6)."""
        return len(self.players)

    def to_dict(self) -> dict[str, Any]:
        """Canonical dict (ints, strings, bools, lists, string-keyed dicts) with ``schema``."""
        return {
            "schema": self.schema,
            "setup": self.setup,
            "seed": self.seed,
            "rng_counter": self.rng_counter,
            "dice_queue": list(self.dice_queue),
            "turn": self.turn,
            "active": self.active,
            "phase": self.phase,
            "manoeuvres_left": self.manoeuvres_left,
            "crown_used": self.crown_used,
            "owner": list(self.owner),
            "knights": list(self.knights),
            "tiles": list(self.tiles),
            "players": [p.to_dict() for p in self.players],
            "battle": None if self.battle is None else self.battle.to_dict(),
            "window": None if self.window is None else self.window.to_dict(),
            "choice": None if self.choice is None else self.choice.to_dict(),
            "winners": list(self.winners),
            "serial": self.serial,
            "actions_applied": self.actions_applied,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> GameState:
        """Inverse of :meth:`to_dict`; reattaches the content set and board named by ``setup``.

        Raises:
            ContentError: the setup names content or a layout that cannot be loaded.
            ValueError: wrong ``schema`` version.
        """
        if int(d["schema"]) != SCHEMA_VERSION:
            raise ValueError(f"unsupported state schema {d['schema']!r}")
        setup = d["setup"]
        content, board = content_and_board(setup)
        return GameState(
            schema=SCHEMA_VERSION,
            setup=setup,
            seed=int(d["seed"]),
            rng_counter=int(d["rng_counter"]),
            dice_queue=[int(x) for x in d["dice_queue"]],
            turn=int(d["turn"]),
            active=int(d["active"]),
            phase=Phase(d["phase"]),
            manoeuvres_left=int(d["manoeuvres_left"]),
            crown_used=bool(d["crown_used"]),
            owner=[int(x) for x in d["owner"]],
            knights=[int(x) for x in d["knights"]],
            tiles=[str(x) for x in d["tiles"]],
            players=[Player.from_dict(p) for p in d["players"]],
            battle=None if d["battle"] is None else Battle.from_dict(d["battle"]),
            window=None if d["window"] is None else Window.from_dict(d["window"]),
            choice=None if d["choice"] is None else Choice.from_dict(d["choice"]),
            winners=[int(x) for x in d["winners"]],
            serial=int(d["serial"]),
            actions_applied=int(d["actions_applied"]),
            content=content,
            board=board,
        )


def content_and_board(setup: dict[str, Any]) -> tuple[Content, Board]:
    """Return the :class:`Content` and :class:`Board` a canonical setup names (cached loaders)."""
    content = load_content(setup.get("content", "default"))
    board = load_board(setup.get("layout") or int(setup["players"]), content.n("max_homelands_per_castle"))
    return content, board


def canonical_json(data: Any) -> str:
    """Serialise JSON-safe data canonically: sorted keys, no whitespace, ASCII only."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def to_dict(state: GameState) -> dict[str, Any]:
    """Return the canonical dict of ``state`` (see :meth:`GameState.to_dict`)."""
    return state.to_dict()


def from_dict(data: dict[str, Any]) -> GameState:
    """Rebuild a state from :func:`to_dict` output; ``from_dict(to_dict(s)) == s``."""
    return GameState.from_dict(data)


def state_hash(state: GameState) -> str:
    """Return the SHA-256 hex digest of the state's canonical JSON text."""
    return hashlib.sha256(canonical_json(state.to_dict()).encode("ascii")).hexdigest()
