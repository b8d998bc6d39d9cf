"""The short notation of a deployment (docs/anarchy/notation.md), used by the puzzle's email replies and
the CLI: a side letter, then counts of Craftsmen (C), Soldiers (S) and Knights (K), e.g. ``T:2C1K R:1S B:2K``.

Sides are T(op), R(ight), B(ottom), L(eft) (or the whole words); a side nobody stands on is left out.
Case, spaces, commas and semicolons do not matter.
"""

from __future__ import annotations

import re

from .cards import SIDES
from .errors import NotationError
from .position import Deployment, Position

_SIDE = {"t": 0, "top": 0, "r": 1, "right": 1, "b": 2, "bottom": 2, "l": 3, "left": 3}
_KIND = {"c": 0, "s": 1, "k": 2}
_GROUP = re.compile(r"(top|right|bottom|left|[trbl])\s*[:=]?\s*((?:\d+\s*[csk]\s*)+|-)", re.IGNORECASE)
_UNIT = re.compile(r"(\d+)\s*([csk])", re.IGNORECASE)
MAX_LENGTH = 200


def parse_deployment(text: str, position: Position) -> Deployment:
    """The deployment ``text`` writes, checked against ``position`` (D3).

    Raises :class:`NotationError` when the text cannot be read (with the part that could not) and
    :class:`InvalidDeployment` when it does not deploy exactly the position's Workers.
    """
    if not isinstance(text, str):
        raise NotationError("not_text", "A deployment is text, like T:2C1K R:1S B:2K.")
    if len(text) > MAX_LENGTH:
        raise NotationError("too_long", "That deployment is too long to be one.")
    rest = text.strip()
    sides = [[0, 0, 0] for _ in SIDES]
    seen: set[int] = set()
    pos = 0
    while pos < len(rest):
        if rest[pos] in " \t,;\r\n":
            pos += 1
            continue
        match = _GROUP.match(rest, pos)
        if match is None:
            raise NotationError(
                "unreadable", f"Cannot read {rest[pos : pos + 12]!r}: write sides like T:2C1K."
            )
        side = _SIDE[match.group(1).lower()]
        if side in seen:
            raise NotationError("side_twice", f"The {SIDES[side]} side is written twice.")
        seen.add(side)
        for count, kind in _UNIT.findall(match.group(2)):
            sides[side][_KIND[kind.lower()]] += int(count)
        pos = match.end()
    if not seen:
        raise NotationError("empty", "Write where your Workers stand, like T:2C1K R:1S B:2K.")
    deployment = Deployment.of(sides)
    deployment.check(position)
    return deployment


def write_deployment(deployment: Deployment) -> str:
    """``deployment`` in the short notation: ``T:2C1K R:1S B:2K`` (``-`` when nobody is deployed)."""
    groups = []
    for side, counts in zip("TRBL", deployment.sides, strict=True):
        units = "".join(f"{n}{kind}" for n, kind in zip(counts, "CSK", strict=True) if n)
        if units:
            groups.append(f"{side}:{units}")
    return " ".join(groups) or "-"
