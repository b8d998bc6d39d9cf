"""A Castle Defence position and a deployment (docs/anarchy/castle-defence.md D1–D14).

A :class:`Position` is everything on one player's board as the phase begins: the round and its Scenario
values, the Fortifications, the prepared Tactics, the Workers, Beer and Muster Tokens, and the row of cards
(face up, or face down showing only the back's type). A :class:`Deployment` says how many Craftsmen,
Soldiers and Knights stand on each side (D3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .cards import LETTERS, SIDES, AttackType, Card, Tactic, deck
from .errors import InvalidDeployment, InvalidPosition

#: The rulebook's limit of Muster Tokens (D14).
MAX_MUSTER = 3
#: The rounds of the game (D4).
ROUNDS = range(1, 6)
#: A sane upper bound on any count a player types (Workers, levels, Tactics): the board has far fewer.
MAX_COUNT = 30


@dataclass(frozen=True, slots=True)
class Slot:
    """One space of the row, left to right: ``back`` is the type its back shows; ``card`` is its id when it
    is face up, ``None`` while it is face down (D5)."""

    back: AttackType
    card: str | None = None

    @property
    def face_down(self) -> bool:
        """True while only the back is known."""
        return self.card is None


@dataclass(frozen=True, slots=True)
class Position:
    """One board at the start of Castle Defence.

    - ``round``: 1–5; ``values``: A–E of the round's Scenario Card (strength, D8); ``determination``
      (D25); ``food``: Food held, paid first (D2);
    - ``walls``: a level per side (``SIDES`` order), adjacent ones within 1 of each other; ``towers``: a
      level (0–2) per corner (``CORNERS``); ``gate``: one level, on the bottom side; ``moat``: one level,
      for every side (D9);
    - ``tactics``: prepared Tactics by kind (D10);
    - ``craftsmen``, ``soldiers``, ``knights``, ``beer`` and ``muster`` (tokens, 0–3) (D3, D13, D14);
    - ``row``: the cards left to right, the Final Escalade first (D4).

    Raises :class:`InvalidPosition` when a value breaks the contract.
    """

    round: int
    values: tuple[int, ...]
    determination: int
    row: tuple[Slot, ...]
    food: int = 0
    walls: tuple[int, ...] = (0, 0, 0, 0)
    towers: tuple[int, ...] = (0, 0, 0, 0)
    moat: int = 0
    gate: int = 0
    tactics: Mapping[Tactic, int] = field(default_factory=dict)
    craftsmen: int = 0
    soldiers: int = 0
    knights: int = 0
    beer: int = 0
    muster: int = 0

    def __post_init__(self) -> None:
        """Check the contract (D2–D14); raises :class:`InvalidPosition`."""
        if not isinstance(self.round, int) or self.round not in ROUNDS:
            raise InvalidPosition("bad_round", "The round is a whole number from 1 to 5.")
        _counts("values", self.values, len(LETTERS))
        for name in ("walls", "towers"):
            _counts(name, getattr(self, name), 4)
        if any(level > 2 for level in self.towers):
            raise InvalidPosition("bad_tower", "A Tower's level is 0, 1 or 2.")
        if any(abs(self.walls[j] - self.walls[(j + 1) % 4]) > 1 for j in range(4)):
            raise InvalidPosition("bad_walls", "Adjacent Walls never differ by more than 1.")
        for name in ("determination", "food", "gate", "moat", "craftsmen", "soldiers", "knights", "beer"):
            _count(name, getattr(self, name))
        _count("muster", self.muster)
        if self.muster > MAX_MUSTER:
            raise InvalidPosition("bad_muster", "A player has at most 3 Muster Tokens.")
        for tactic, count in self.tactics.items():
            if not isinstance(tactic, Tactic):
                raise InvalidPosition("unknown_tactic", f"Unknown Tactic {tactic!r}.")
            _count(str(tactic), count)
        object.__setattr__(self, "tactics", {t: int(self.tactics.get(t, 0)) for t in Tactic})
        _check_row(self.round, self.row)

    @property
    def workers(self) -> int:
        """Craftsmen, Soldiers and Knights to deploy (D3)."""
        return self.craftsmen + self.soldiers + self.knights

    def face_down(self) -> tuple[int, ...]:
        """The row indices of the face-down cards, left to right."""
        return tuple(i for i, slot in enumerate(self.row) if slot.face_down)

    def tactic(self, tactic: Tactic) -> int:
        """How many ``tactic`` are prepared."""
        return self.tactics.get(tactic, 0)


def _count(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
        raise InvalidPosition("bad_count", f"{name} is a whole number from 0 to {MAX_COUNT}.")


def _counts(name: str, values: object, length: int) -> None:
    if not isinstance(values, tuple) or len(values) != length:
        raise InvalidPosition("bad_count", f"{name} has {length} numbers.")
    for value in values:
        _count(name, value)


def _check_row(round_: int, row: object) -> None:
    """D4: the Final Escalade face up on the left, then the round's Attack Cards; no card twice."""
    if not isinstance(row, tuple) or not all(isinstance(slot, Slot) for slot in row):
        raise InvalidPosition("bad_row", "The row is a list of cards.")
    if len(row) != round_ + 1:
        raise InvalidPosition(
            "bad_row", f"Round {round_} has {round_} Attack Cards and the Final Escalade Card ({round_ + 1})."
        )
    cards = deck()
    seen: set[str] = set()
    for i, slot in enumerate(row):
        if not isinstance(slot.back, AttackType):
            raise InvalidPosition("bad_row", f"Unknown attack type {slot.back!r}.")
        final = slot.back is AttackType.FINAL_ESCALADE
        if (i == 0) != final:
            raise InvalidPosition("bad_row", "The Final Escalade Card is the left-most card, and only it.")
        if slot.card is None:
            if final:
                raise InvalidPosition("bad_row", "The Final Escalade Card is dealt face up.")
            continue
        card = cards.get(slot.card)
        if card is None:
            raise InvalidPosition("unknown_card", f"There is no card {slot.card!r}.")
        if card.type is not slot.back:
            raise InvalidPosition("bad_row", f"Card {card.id} is {card.type}, not {slot.back}.")
        if card.id in seen:
            raise InvalidPosition("repeated_card", f"Card {card.id} is in the row twice.")
        seen.add(card.id)


@dataclass(frozen=True, slots=True)
class Deployment:
    """Workers per side (``SIDES`` order): ``(craftsmen, soldiers, knights)`` for each of the four (D3)."""

    sides: tuple[tuple[int, int, int], ...]

    def __post_init__(self) -> None:
        """Shape check; raises :class:`InvalidDeployment`."""
        ok = isinstance(self.sides, tuple) and len(self.sides) == len(SIDES)
        ok = ok and all(
            isinstance(side, tuple)
            and len(side) == 3
            and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_COUNT for n in side)
            for side in self.sides
        )
        if not ok:
            raise InvalidDeployment(
                "bad_deployment", "A deployment has Craftsmen, Soldiers, Knights per side."
            )

    def check(self, position: Position) -> None:
        """D3: every Craftsman, Soldier and Knight of ``position`` is deployed, and no more; raises
        :class:`InvalidDeployment`."""
        totals = tuple(sum(side[i] for side in self.sides) for i in range(3))
        wanted = (position.craftsmen, position.soldiers, position.knights)
        if totals != wanted:
            names = ("Craftsmen", "Soldiers", "Knights")
            wrong = [
                f"{n} {have} of {want}"
                for n, have, want in zip(names, totals, wanted, strict=True)
                if have != want
            ]
            raise InvalidDeployment(
                "not_all_deployed", "Deploy every Craftsman, Soldier and Knight: " + ", ".join(wrong) + "."
            )

    @classmethod
    def of(cls, sides: Sequence[Sequence[int]]) -> Deployment:
        """A deployment from any sequence of four ``(craftsmen, soldiers, knights)``."""
        try:
            return cls(tuple((int(c), int(s), int(k)) for c, s, k in sides))
        except (TypeError, ValueError) as error:
            raise InvalidDeployment("bad_deployment", "A deployment has 4 sides of 3 numbers.") from error


def row_cards(position: Position, faces: Mapping[int, str]) -> tuple[Card, ...]:
    """The row's cards left to right, with ``faces`` (row index -> card id) for the face-down ones.

    Raises :class:`InvalidPosition` when a face is missing, of the wrong type, or repeats a card.
    """
    cards = deck()
    out: list[Card] = []
    for i, slot in enumerate(position.row):
        card_id = slot.card if slot.card is not None else faces.get(i)
        if card_id is None or card_id not in cards or cards[card_id].type is not slot.back:
            raise InvalidPosition("bad_face", f"Card {i + 1} needs a face of type {slot.back}.")
        out.append(cards[card_id])
    if len({card.id for card in out}) != len(out):
        raise InvalidPosition("repeated_card", "A card is in the row twice.")
    return tuple(out)
