"""The position in a decision email, as text (issue 18): a compact map, the players' castles and VP, the
recipient's hand and the battle in progress, built only from the recipient's own view
(``engine.view_for``), in the active language (call inside ``translation.override``). The numbered moves
come from the engine's notation (:func:`games.engine.move_menu`) for the recipient's seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.components import artefact_name, card_name, place_name

#: Cell width of the text map: two characters and a space.
_CELL = 3


@dataclass
class Position:
    """A decision email's position: ``map`` (monospace rows of the hex map, then its key), ``players``
    (one line per seat: castle knights, VP, dice, cards, artefacts), ``hand`` (the recipient's cards),
    ``battle`` (the battle in progress, with combat scores)."""

    map: list[str] = field(default_factory=list)
    key: str = ""
    territories: list[str] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    hand: list[str] = field(default_factory=list)
    battle: list[str] = field(default_factory=list)


def _letter(names: dict[int, str], seat: int) -> str:
    """The map's letter of a seat: ``A`` for seat 0, ``B`` for seat 1…"""
    return chr(ord("A") + seat)


def _cell(tile: engine.TileView) -> str:
    """Two characters for one map cell: ``~~`` a lake, ``A#`` seat A's castle, ``B3`` three knights of seat
    B, ``.3`` a territory of 3 VP nobody holds; ``*`` marks the disputed one."""
    if tile["kind"] == "lake":
        return "~~"
    if tile["kind"] == "castle":
        return _letter({}, int(tile.get("seat", 0))) + "#"
    owner = tile.get("owner")
    knights = int(tile.get("knights", 0))
    text = f"{_letter({}, owner)}{min(knights, 9)}" if owner is not None else f".{tile.get('vp', 0)}"
    return text[0] + "*" if tile.get("disputed") else text


def text_map(view: engine.View) -> list[str]:
    """The hex map as monospace rows (axial coordinates; each row shifted half a cell, as the board is).
    Under each row, each territory's id (``t12``), which the notation reads and the territory list names
    (issue 30: the hexes are no longer unnamed dots)."""
    tiles = view["map"]
    if not tiles:
        return []
    rows: dict[int, dict[int, engine.TileView]] = {}
    for tile in tiles:
        rows.setdefault(tile["r"], {})[tile["q"]] = tile
    low_r, high_r = min(rows), max(rows)
    low_x = min(2 * t["q"] + t["r"] for t in tiles)
    out = []
    for r in range(low_r, high_r + 1):
        cells = rows.get(r, {})
        out.append(_spread({2 * q + r - low_x: _cell(tile) for q, tile in cells.items()}).rstrip())
        ids = {2 * q + r - low_x: t["id"] for q, t in cells.items() if t["kind"] == "territory"}
        if ids:
            out.append(_spread(ids).rstrip())
    return out


def _spread(line: dict[int, str]) -> str:
    """One map row: the cell at half-column ``x`` starts at character ``x * 2`` (or one space after the
    cell before, for a three-character id such as ``t10``)."""
    chars: list[str] = []
    for x in sorted(line):
        start = x * (_CELL - 1)
        chars.extend(" " * max(start - len(chars), 1 if chars else 0))
        chars.extend(line[x])
    return "".join(chars)


def counted(text: str, singular: str, plural: str) -> str:
    """``text``, the ``ngettext(singular, plural, n)`` of a count (issue 30: never "1 knights"); but where
    the language's catalog still holds only the older plural-only entry ``plural`` (the plural forms not
    yet translated), that entry's translation, so the email stays in its language meanwhile."""
    if text in (singular, plural) and (translation.get_language() or "en").split("-")[0] != "en":
        return _(plural)
    return text


def _territory_line(tile: engine.TileView, names: dict[int, str], places: dict[str, str]) -> str:
    """``t3 Forest · 2 VP · holds 4 · Bob, 3 knights`` (or ``nobody``): the name as the notation writes it
    in the email's language (``Forest #2`` where several share it), from ``places``."""
    owner = tile.get("owner")
    knights = int(tile.get("knights", 0))
    who = (
        counted(
            ngettext("%(who)s, %(knights)s knight", "%(who)s, %(knights)s knights", knights),
            "%(who)s, %(knights)s knight",
            "%(who)s, %(knights)s knights",
        )
        % {"who": names.get(owner, "?"), "knights": knights}
        if owner is not None
        else _("nobody")
    )
    line = _("%(id)s %(name)s · %(vp)s VP · holds %(capacity)s · %(who)s") % {
        "id": tile["id"],
        "name": places.get(tile["id"]) or place_name(str(tile.get("name") or tile["id"])),
        "vp": tile.get("vp", 0),
        "capacity": tile.get("capacity", 0),
        "who": who,
    }
    if owner is not None and not tile.get("supplied", True):
        line += " · " + _("no line of supply")
    return line


def _player_line(player: engine.PlayerView, names: dict[int, str], viewer: int | None) -> str:
    seat = player["seat"]
    arts = [
        artefact_name(a["id"]) + ("" if a["destroyed_on"] is None else " " + _("(destroyed)"))
        for a in player["artefacts"]
    ]
    you = " " + _("(you)") if seat == viewer else ""
    one = "%(letter)s %(who)s%(you)s: castle %(castle)s %(knights)s knight · %(vp)s VP · %(dice)s dice in "
    many = "%(letter)s %(who)s%(you)s: castle %(castle)s %(knights)s knights · %(vp)s VP · %(dice)s dice in "
    rest = "reserve · %(cards)s cards · %(artefacts)s"
    text = ngettext(
        "%(letter)s %(who)s%(you)s: castle %(castle)s %(knights)s knight · %(vp)s VP · %(dice)s dice in "
        "reserve · %(cards)s cards · %(artefacts)s",
        "%(letter)s %(who)s%(you)s: castle %(castle)s %(knights)s knights · %(vp)s VP · %(dice)s dice in "
        "reserve · %(cards)s cards · %(artefacts)s",
        int(player["castle_knights"]),
    )
    return counted(text, one + rest, many + rest) % {
        "letter": _letter(names, seat),
        "who": names.get(seat, "?"),
        "you": you,
        "castle": player["castle"],
        "knights": player["castle_knights"],
        "vp": player["vp"],
        "dice": player["dice_in_reserve"],
        "cards": player["hand_size"],
        "artefacts": ", ".join(arts) or _("no artefacts"),
    }


def _card(card: engine.CardView) -> str:
    value = card["value"]
    shown = "" if value is None else f" ({'+' if card['kind'] == 'support' else ''}{value})"
    return card_name(card["card"]) + shown


def combat_scores(battle: engine.BattleView, names: dict[int, str]) -> str:
    """``Combat scores so far: Anna 7, Bob 5.`` (R64–R73: the scores as the viewer's view shows them)."""
    att, dfd = battle["attacker"], battle["defender"]
    return _("Combat scores so far: %(att)s %(a)s, %(dfd)s %(d)s.") % {
        "att": names.get(att["seat"], "?"),
        "a": att["score"],
        "dfd": names.get(dfd["seat"], "?"),
        "d": dfd["score"],
    }


def _battle_lines(battle: engine.BattleView, view: engine.View, names: dict[int, str]) -> list[str]:
    place = next((t for t in view["map"] if t["id"] == battle["pos"]), None)
    where = place_name(str(place.get("name") or battle["pos"])) if place else battle["pos"]
    att, dfd = battle["attacker"], battle["defender"]
    out = [
        counted(
            ngettext(
                "Battle at %(place)s (%(id)s): %(att)s attacks with %(ak)s knight, %(dfd)s defends with "
                "%(dk)s.",
                "Battle at %(place)s (%(id)s): %(att)s attacks with %(ak)s knights, %(dfd)s defends with "
                "%(dk)s.",
                int(att["knights"]),
            ),
            "Battle at %(place)s (%(id)s): %(att)s attacks with %(ak)s knight, %(dfd)s defends with %(dk)s.",
            "Battle at %(place)s (%(id)s): %(att)s attacks with %(ak)s knights, %(dfd)s defends with %(dk)s.",
        )
        % {
            "place": where,
            "id": battle["pos"],
            "att": names.get(att["seat"], "?"),
            "ak": att["knights"],
            "dfd": names.get(dfd["seat"], "?"),
            "dk": dfd["knights"],
        },
        combat_scores(battle, names),
    ]
    if battle["table"]:
        played = ", ".join(f"{names.get(c['seat'], '?')}: {_card(c)}" for c in battle["table"])
        out.append(_("Support cards played: %(cards)s.") % {"cards": played})
    return out


def position_for(
    view: engine.View, names: dict[int, str], viewer: int | None, places: dict[str, str] | None = None
) -> Position:
    """The position as ``viewer`` may know it (``view`` is ``engine.view_for(state, viewer)``); ``places``
    the notation's name of each territory (:func:`games.engine.notation.place_names`), shown in the
    territory list the map's ids refer to."""
    pos = Position()
    pos.map = text_map(view)
    letters = ", ".join(f"{_letter(names, s)} {n}" for s, n in sorted(names.items()))
    pos.key = _(
        "Key: %(letters)s; # castle, digit knights, .n an empty territory of n VP, ~~ lake, * battle."
    ) % {"letters": letters}
    ids = _("Under each territory is its id; the list below gives its name as moves write it (either works).")
    if (
        ids
        != "Under each territory is its id; the list below gives its name as moves write it (either works)."
    ):
        pos.key += " " + ids  # said once translated (the ids and the list speak for themselves meanwhile)
    elif (translation.get_language() or "en").startswith("en"):
        pos.key += " " + ids
    places = places or {}
    pos.territories = [_territory_line(t, names, places) for t in view["map"] if t["kind"] == "territory"]
    pos.players = [_player_line(p, names, viewer) for p in view["players"]]
    if viewer is not None and view["players"]:
        hand = view["players"][viewer].get("hand", [])
        pos.hand = [_card(c) for c in hand]
    if view["battle"] is not None:
        pos.battle = _battle_lines(view["battle"], view, names)
    return pos
