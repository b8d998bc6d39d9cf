"""The engine's refusals in the reader's language (issue 33): the engine raises an ``AnarchyError`` with a
stable ``code`` and an English reason; pages and emails show the reason for the code from here."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrPromise

from anarchy.engine import AnarchyError

#: A reason per engine error code (anarchy/engine: position.py, notation.py, records.py).
REASONS: dict[str, StrPromise] = {
    "bad_round": _("The round is a whole number from 1 to 5."),
    "bad_count": _("Every count is a whole number from 0 to 30."),
    "bad_muster": _("A player has at most 3 Muster Tokens."),
    "unknown_tactic": _("That is not one of the five Tactics."),
    "bad_tower": _("A Tower's level is 0, 1 or 2."),
    "bad_walls": _("Adjacent Walls never differ by more than 1."),
    "bad_row": _(
        "The row is the Final Escalade Card, face up on the left, then one Attack Card per round number."
    ),
    "unknown_card": _("There is no such card."),
    "repeated_card": _("A card is in the row twice."),
    "bad_face": _("Each face-down card needs a face of the type its back shows."),
    "bad_deployment": _("A deployment gives Craftsmen, Soldiers and Knights for each of the four sides."),
    "not_all_deployed": _(
        "Deploy every Craftsman, Soldier and Knight, and no more: the numbers do not add up."
    ),
    "not_text": _("Write your deployment like T:2C1K R:1S B:2K."),
    "too_long": _("That deployment is too long to be one."),
    "unreadable": _(
        "That deployment cannot be read: write each side as a letter (T, R, B, L) and counts of C, S and K, "
        "like T:2C1K R:1S B:2K."
    ),
    "side_twice": _("A side is written twice."),
    "empty": _("Write where your Workers stand, like T:2C1K R:1S B:2K."),
    "not_a_record": _("That is not a Castle Defence record."),
    "bad_version": _("That record's version is unknown."),
    "no_position": _("That record holds no position."),
    "bad_position": _("That record's position cannot be read."),
}


def reason(error: AnarchyError) -> str:
    """The reason for ``error`` in the active language; the engine's English one for a code not listed."""
    found = REASONS.get(error.code)
    return str(found) if found is not None else str(error)
