"""One-line user text: titles and names that go into pages, emails and email headers.

A game title or a display name is shown on one line everywhere, including the ``Subject`` of emails, where a
line break would be refused by Django (``BadHeaderError``) and would stop that email. Invisible characters
(zero-width spaces, bidirectional overrides) would let a name look like another one.
"""

from __future__ import annotations

import unicodedata

#: The NUL character, which no text a player sends may carry (PostgreSQL text refuses it).
NUL = "\x00"


def single_line(text: str) -> str:
    """``text`` as one line: every run of whitespace (line breaks, tabs, Unicode spaces) becomes one space,
    control characters (Unicode category Cc, NUL included) and invisible format characters (Cf: zero-width
    spaces and joiners, bidirectional marks and overrides, the byte-order mark) are removed, and the ends are
    stripped.

    Args:
        text: any string (a title, a display name, a guest name).

    Returns:
        The cleaned string; ``""`` when nothing visible is left.
    """
    kept = "".join(ch for ch in text if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf"))
    return " ".join(kept.split())
