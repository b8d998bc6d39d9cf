"""The practice table and the daily puzzle (docs/anarchy/practice-values.md; D4, D29, D30).

The practice values are ours, built from the book's one example and its stated relations; every page that
uses them says "practice values, not the published Scenario Cards".
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from .cards import AttackType, Tactic, cards_of
from .errors import InvalidPosition
from .position import Position, Slot

#: D29: Determination per round; rounds 2–4 are the book's, 1 and 5 ours.
DETERMINATION = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3}
#: D4 (ours): the Attack Card spaces dealt face down in a practice puzzle (row indices; 0 is the Final
#: Escalade), so Round 3 has one and Rounds 4 and 5 two.
FACE_DOWN = (2, 4)


def practice_values(round_: int) -> tuple[tuple[int, ...], int]:
    """``(A–E values, Determination)`` of the practice table for ``round_`` (1–5): B = C = x, A = D = x + 1,
    E = x + 2 with x = ceil(round / 2) (docs/anarchy/practice-values.md). Raises :class:`InvalidPosition`."""
    if round_ not in DETERMINATION:
        raise InvalidPosition("bad_round", "The round is a whole number from 1 to 5.")
    x = (round_ + 1) // 2
    return (x + 1, x, x, x + 1, x + 2), DETERMINATION[round_]


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A practice puzzle: the ``position`` as the player sees it (face-down cards without faces) and the
    hidden ``faces`` (row index -> card id), which only the reveal shows (D5)."""

    position: Position
    faces: dict[int, str]


def daily_puzzle(day: datetime.date) -> Puzzle:
    """The puzzle of ``day``, the same for everyone: a seeded random Castle and a deal from the shuffled
    piles (D4), on the practice values (D30). Sized so the solver answers in well under a second."""
    rng = random.Random(f"anarchy-castle-defence-{day.isoformat()}")
    round_ = rng.choice((3, 4, 4, 5))
    values, determination = practice_values(round_)
    attacks = [card.id for t in AttackType if t is not AttackType.FINAL_ESCALADE for card in cards_of(t)]
    rng.shuffle(attacks)
    final = rng.choice(cards_of(AttackType.FINAL_ESCALADE)).id
    dealt = [final, *attacks[:round_]]
    cards = [next(c for t in AttackType for c in cards_of(t) if c.id == card_id) for card_id in dealt]
    row = tuple(Slot(card.type, None if i in FACE_DOWN else card.id) for i, card in enumerate(cards))
    faces = {i: dealt[i] for i in FACE_DOWN if i < len(dealt)}
    base = rng.randint(0, 2)
    walls = tuple(max(0, base + rng.choice((0, 0, 1))) for _ in range(4))
    while any(abs(walls[j] - walls[(j + 1) % 4]) > 1 for j in range(4)):  # never: base+{0,1}; kept as a guard
        walls = (base,) * 4
    knights = rng.randint(1, 2)
    men = rng.randint(3, 6 - knights)
    craftsmen = rng.randint(0, men)
    position = Position(
        round=round_,
        values=values,
        determination=determination,
        row=row,
        food=round_ - rng.choice((0, 0, 0, 1)),
        walls=walls,
        towers=tuple(rng.randint(0, 2) for _ in range(4)),
        gate=rng.randint(0, 2),
        moat=rng.randint(0, 3),
        tactics={t: rng.choice((0, 0, 1, 1, 2)) for t in Tactic},
        craftsmen=craftsmen,
        soldiers=men - craftsmen,
        knights=knights,
        beer=rng.randint(0, 2),
        muster=rng.choice((0, 0, 1)),
    )
    return Puzzle(position, faces)
