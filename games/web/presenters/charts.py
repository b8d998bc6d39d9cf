"""Charts of the player pages (:func:`rating_chart`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def rating_chart(
    history: list[tuple[datetime, float]], width: int = 560, height: int = 160
) -> dict[str, Any]:
    """An SVG line chart model of a rating history (``(date, conservative rating)`` points, oldest first):
    ``points`` for a ``<polyline>``, axis labels ``low``/``high``, and ``rows`` for the table that gives the
    same numbers to screen readers and keyboard users. Empty ``points`` without history."""
    if not history:
        return {"points": "", "rows": [], "width": width, "height": height}
    values = [v for _at, v in history]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    pad = 8
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    points = " ".join(
        f"{pad + i * step:.1f},{height - pad - (v - low) / span * (height - 2 * pad):.1f}"
        for i, v in enumerate(values)
    )
    return {
        "points": points,
        "low": round(low, 1),
        "high": round(high, 1),
        "rows": [(at, round(v, 1)) for at, v in history[-20:]],
        "width": width,
        "height": height,
    }
