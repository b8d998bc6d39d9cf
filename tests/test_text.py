"""mastery/text.py: one-line user text (titles and names that reach email headers)."""

from __future__ import annotations

import pytest

from mastery.text import single_line


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Hi\r\nBcc: victim@example.com", "Hi Bcc: victim@example.com"),
        ("  Anna\t\tvon  Berg \n", "Anna von Berg"),
        ("Anna\u200b", "Anna"),  # zero-width space
        ("\u202eannA", "annA"),  # right-to-left override
        ("a\x00b\x07c", "abc"),  # NUL and other control characters
        ("\ufeffBOM", "BOM"),
        ("\u200b\u200d", ""),  # nothing visible
        ("Zoë 한국 Łódź", "Zoë 한국 Łódź"),  # letters of every script stay
        ("non\u00a0breaking", "non breaking"),
    ],
)
def test_single_line_keeps_visible_text_on_one_line(raw: str, clean: str) -> None:
    assert single_line(raw) == clean
