"""The Attack Cards and Final Escalade Cards (data/attack_cards.json) and what defends each type.

Source: the card facts of nikkon226/anarchy-solo-challenge ``components.toml`` (MIT), named with its commit
in the data file; the defences per type are the rulebook's "Castle Defence - Attack Card Types"
(docs/anarchy/castle-defence.md D18–D24).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources

#: The four sides of the Castle, clockwise from the top, in the rulebook's words (D3).
SIDES: tuple[str, ...] = ("top", "right", "bottom", "left")
#: The four Towers, on the corners; corner ``i`` joins sides ``i - 1`` and ``i`` (D9).
CORNERS: tuple[str, ...] = ("top-left", "top-right", "bottom-right", "bottom-left")
#: The letters of an Attack Card's strengths, valued by the round's Scenario Card (D8).
LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E")


class AttackType(StrEnum):
    """The attack types (D18–D24): what a card's back shows."""

    LADDERS = "ladders"
    FINAL_ESCALADE = "final_escalade"
    ARROWS = "arrows"
    BALLISTA = "ballista"
    BATTERING_RAM = "battering_ram"
    SIEGE_TOWER = "siege_tower"
    CATAPULT = "catapult"


class Tactic(StrEnum):
    """The five Tactics (D10), each good against one family of attacks."""

    ROCKS = "rocks"
    BOLTS = "bolts"
    HOT_OIL = "hot_oil"
    LOGS = "logs"
    COVERS = "covers"


class Fortification(StrEnum):
    """The Fortifications (D9)."""

    WALLS = "walls"
    TOWERS = "towers"
    GATE = "gate"
    MOAT = "moat"


@dataclass(frozen=True, slots=True)
class Defence:
    """What may defend one attack type: a Fortification (or ``None``), a Tactic (or ``None``), and whether
    Workers may (D18–D24)."""

    fortification: Fortification | None
    tactic: Tactic | None
    workers: bool


#: D18–D24: the defences of each attack type.
DEFENCES: dict[AttackType, Defence] = {
    AttackType.LADDERS: Defence(Fortification.WALLS, Tactic.ROCKS, True),
    AttackType.FINAL_ESCALADE: Defence(Fortification.WALLS, Tactic.ROCKS, True),
    AttackType.ARROWS: Defence(Fortification.WALLS, None, True),
    AttackType.BALLISTA: Defence(Fortification.TOWERS, Tactic.BOLTS, True),
    AttackType.BATTERING_RAM: Defence(Fortification.GATE, Tactic.HOT_OIL, True),
    AttackType.SIEGE_TOWER: Defence(Fortification.MOAT, Tactic.LOGS, True),
    AttackType.CATAPULT: Defence(None, Tactic.COVERS, False),
}


@dataclass(frozen=True, slots=True)
class Card:
    """One Attack Card or Final Escalade Card.

    ``id``: ``"A1"``–``"A36"`` (Attack Cards) or ``"F1"``–``"F6"`` (Final Escalade); ``type``; ``sides``: the
    letter attacking each side, as ``(side index, letter)`` pairs in ``SIDES`` order (empty for a
    Catapult); ``castle``: the letter attacking the entire Castle (Catapults only, else ``""``); ``skull``:
    a Strong Attack (D16).
    """

    id: str
    type: AttackType
    sides: tuple[tuple[int, str], ...]
    castle: str
    skull: bool

    def strengths(self, values: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """``(side index, strength)`` per attacked side, with ``values`` the round's A–E (D8)."""
        return tuple((side, values[LETTERS.index(letter)]) for side, letter in self.sides)


def _card(raw: dict[str, object]) -> Card:
    sides_raw = raw.get("sides", {})
    assert isinstance(sides_raw, dict)
    return Card(
        id=str(raw["id"]),
        type=AttackType(str(raw["type"])),
        sides=tuple(
            (SIDES.index(side), str(letter))
            for side, letter in sorted(sides_raw.items(), key=lambda item: SIDES.index(item[0]))
        ),
        castle=str(raw.get("castle", "")),
        skull=bool(raw["skull"]),
    )


@cache
def deck() -> dict[str, Card]:
    """Every card by id: the 6 Final Escalade Cards, then the 36 Attack Cards (data/attack_cards.json)."""
    text = resources.files("anarchy.engine").joinpath("data/attack_cards.json").read_text(encoding="utf-8")
    data = json.loads(text)
    cards = [_card(raw) for raw in data["final_escalade_cards"] + data["attack_cards"]]
    return {card.id: card for card in cards}


def cards_of(attack_type: AttackType) -> tuple[Card, ...]:
    """Every card whose back shows ``attack_type``, in id order."""
    return tuple(card for card in deck().values() if card.type is attack_type)
