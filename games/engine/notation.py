"""The move notation: a short text form of every action, in English, Swedish, Polish or Korean (issue 14).

Like chess's SAN it names things as players do: ``advance Forest 4``, ``redistribute castle>Fort 2,
Fort>Ruins 1``, ``crown vitality``, ``fracture Orb of Brutality``, ``conflict Heroic Assault``,
``support +2``, ``pass``, ``end``. :func:`to_text` writes an action, :func:`parse_text` reads one back:
``parse_text(state, seat, to_text(state, a, lang), lang) == a`` for every legal action ``a``. Reading is
case-insensitive and accent-insensitive, tolerates extra spaces, hyphens for spaces, Korean without its
spaces and a few abbreviations (``adv``), and accepts the rulebook's terms of all four editions whatever
``lang`` is (``content.md`` §5); ``lang`` chooses the words :func:`to_text` writes and the language of a
:class:`NotationError`'s message. ``docs/notation.md`` is
the reference.

Names:

- a territory by its tile name when that is unique on the map (``Forest``), else by the name and its rank
  in position order (``Forest #2``, never read as a count; ``Forest 2`` is read too), or by its id
  (``t12``); the player's own castle is ``castle``, a rival's ``castle p2`` (Castle Siege);
- a card by its name, the n-th copy among the cards it could be as ``Name n`` (``Shield Wall 2``), by its
  value (``5``, ``+2``: the first such card not yet named) or by its id (``s0c07``);
- an artefact by its name (``Orb of Brutality``), its ability (``brutality``) or its id;
- a player by seat, ``p0`` … ``p5``.

The notation only reads and writes actions; whether one is legal is for :func:`games.engine.apply` to say.

The notation lives in two halves, re-exported here (import from this module): :mod:`.notation_read` reads
(:func:`parse_text`, :class:`NotationError`), :mod:`.notation_write` writes (:func:`to_text`,
:func:`place_names`, :func:`legal_forms`); their words are in :mod:`.notation_terms`.
"""

from __future__ import annotations

from .notation_read import NotationError, names_a_move, parse_text, verb_of
from .notation_terms import LANGS
from .notation_write import legal_forms, move_menu, place_names, to_text

__all__ = [
    "LANGS",
    "NotationError",
    "legal_forms",
    "move_menu",
    "names_a_move",
    "parse_text",
    "place_names",
    "to_text",
    "verb_of",
]
