"""The resolution told step by step: for one deployment and one reveal, the best play card by card, with
where each point of defence came from (Fortification, Tactics, Workers, Beer) (D7–D27)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .cards import SIDES, Card
from .position import Deployment, Position, row_cards
from .resolve import Damage, Move, value_parts
from .solver import start_state, table

KINDS = ("Craftsman or Soldier", "Knight", "laid-down Worker")


@dataclass(frozen=True, slots=True)
class SideStep:
    """One side of one card: the attack's ``strength``, what the Fortification absorbed (``fortified``),
    the ``tactics`` spent, the :class:`Damage` the Workers took (with Beer), and whether it ``held``."""

    side: str
    strength: int
    fortified: int
    tactics: int
    damage: Damage
    held: bool

    @property
    def beer(self) -> int:
        """Beer drunk on this side (D13)."""
        return self.damage.beer

    @property
    def workers(self) -> str:
        """Who took the damage, in English words (the CLI's and the tests' wording)."""
        return describe(self.damage)


@dataclass(frozen=True, slots=True)
class Step:
    """One card resolved (D7): the ``card``, its ``row_index`` (0 = the Final Escalade), the Muster
    ``moves`` made before it, each attacked side, the Covers spent on a Catapult, whether it was
    ``defended`` and the Bravery it gave (D16)."""

    card: Card
    row_index: int
    moves: tuple[Move, ...]
    sides: tuple[SideStep, ...]
    castle: int
    covers: int
    defended: bool
    bravery: int

    @property
    def move_words(self) -> tuple[str, ...]:
        """The Muster moves in English words."""
        return tuple(f"{KINDS[m.kind]} from {SIDES[m.source]} to {SIDES[m.target]}" for m in self.moves)


@dataclass(frozen=True, slots=True)
class Resolution:
    """The whole phase for one deployment and reveal: the ``steps`` right to left, then the results:
    ``undefended`` cards, ``loyalty`` (D25), ``discontent`` (D26, with ``food_discontent`` of D2),
    ``bravery`` (D16), strength ``kept`` and ``serfs`` (D27)."""

    steps: tuple[Step, ...]
    undefended: int
    loyalty: int
    discontent: int
    food_discontent: int
    bravery: int
    kept: int
    serfs: int


def describe(damage: Damage) -> str:
    """``damage`` in English words, e.g. "1 Knight laid down, 2 Craftsmen or Soldiers spent (1 with Beer)"."""
    parts = []
    if damage.knights:
        parts.append(f"{damage.knights} Knight{'s' * (damage.knights > 1)} spent")
    if damage.knights_down:
        parts.append(f"{damage.knights_down} Knight{'s' * (damage.knights_down > 1)} laid down")
    if damage.men:
        parts.append(
            f"{damage.men} Craftsman or Soldier spent"
            if damage.men == 1
            else f"{damage.men} Craftsmen or Soldiers spent"
        )
    if damage.men_down:
        parts.append(
            f"{damage.men_down} Craftsman or Soldier laid down"
            if damage.men_down == 1
            else f"{damage.men_down} Craftsmen or Soldiers laid down"
        )
    if damage.laid:
        parts.append(f"{damage.laid} laid-down Worker{'s' * (damage.laid > 1)} spent")
    if damage.beer:
        parts.append(f"{damage.beer} Beer")
    return ", ".join(parts) or "none"


def narrate(position: Position, deployment: Deployment, faces: Mapping[int, str]) -> Resolution:
    """The best play of ``deployment`` once the face-down cards show ``faces`` (row index -> card id).

    Raises :class:`InvalidDeployment` (D3) or :class:`InvalidPosition` (a missing or wrong face).
    """
    deployment.check(position)
    cards = row_cards(position, faces)
    tab = table(position, dict(faces))
    state = start_state(position, deployment)
    steps = []
    for offset, (play, _before, _after) in enumerate(tab.line(state)):
        at = tab.attacks[offset]
        row_index = len(cards) - 1 - offset
        by_side = {side.side: side for side in play.sides}
        sides = tuple(
            SideStep(
                SIDES[hit.side],
                hit.strength,
                hit.fortified,
                by_side[hit.side].tactics,
                by_side[hit.side].damage,
                by_side[hit.side].held,
            )
            for hit in at.hits
        )
        steps.append(
            Step(
                at.card,
                row_index,
                play.moves,
                sides,
                at.castle,
                play.covers,
                play.defended,
                int(play.defended and at.skull),
            )
        )
    undefended, kept, bravery, _saved = value_parts(tab.best(0, state))
    loyalty = max(0, position.determination - undefended)
    food_discontent = max(0, position.round - position.food)
    return Resolution(
        tuple(steps),
        undefended,
        loyalty,
        position.determination - loyalty + food_discontent,
        food_discontent,
        bravery,
        kept,
        kept // 3,
    )
