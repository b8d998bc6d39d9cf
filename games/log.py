"""The game log in words: one sentence per engine event, from an event already redacted for the viewer
(:func:`games.engine.redact_event`), so nothing here can reveal more than the viewer may know.

Every sentence is translated (``locale/``). Artefact and territory names stay as the content set prints
them (English, as the Swedish and Polish rulebooks keep them), except in Korean, whose rulebook translates
them: there the content's ``name_ko`` is used.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import engine

#: The content sets whose names the log knows (ids of artefacts and territory types are shared).
_CONTENT_SETS = ("default", "abbey")

#: Event reasons that are not the id of an artefact ability or territory type.
_REASONS = {
    "turn": gettext_lazy("start of turn"),
    "call_to_arms": gettext_lazy("Call to Arms"),
    "mayhem": gettext_lazy("Mayhem"),
    "battle": gettext_lazy("battle lost"),
    "arena": gettext_lazy("Arena roll"),
}


@cache
def _names() -> dict[str, tuple[str, str]]:
    """Artefact ids, artefact abilities and territory type ids -> (English name, Korean name)."""
    out: dict[str, tuple[str, str]] = {}
    for spec in _CONTENT_SETS:
        try:
            raw = engine.load_content(spec).raw
        except engine.ContentError:
            continue
        for art in raw.get("artefacts", []):
            pair = (str(art["name"]), str(art.get("name_ko") or art["name"]))
            out.setdefault(str(art["id"]), pair)
            out.setdefault(str(art.get("ability", "")), pair)
        for tile in raw.get("territory_types", []):
            out.setdefault(str(tile["id"]), (str(tile["name"]), str(tile.get("name_ko") or tile["name"])))
    return out


def _name(key: str, fallback: str) -> str:
    pair = _names().get(key)
    if pair is None:
        return fallback
    return pair[1] if (translation.get_language() or "").startswith("ko") else pair[0]


def artefact_name(art_id: str | None) -> str:
    """The printed name of an artefact id in the active language: ``"crown_fury"`` -> "Crown of Fury"
    (Korean: "격분의 왕관")."""
    if not art_id:
        return ""
    kind, _sep, ability = art_id.partition("_")
    return _name(art_id, f"{kind.capitalize()} of {ability.capitalize()}")


def territory_name(tile_id: str) -> str:
    """The name of a territory type id in the active language: ``"mountains"`` -> "Mountains" (Korean:
    "산지")."""
    return _name(tile_id, tile_id.replace("_", " ").capitalize())


_tile = territory_name


def _why(reason: str) -> str:
    """The cause of a gain, loss or discard: an artefact ability, a territory type or an engine reason."""
    if reason in _REASONS:
        return str(_REASONS[reason])
    return _name(reason, reason.replace("_", " "))


def place_name(name: str) -> str:
    """A tile name of the view (the content's English name, e.g. "Mountains") in the active language."""
    if (translation.get_language() or "").startswith("ko"):
        for en, ko in _names().values():
            if en == name:
                return ko
    return name


def describe(ev: dict[str, Any], names: dict[int, str], places: dict[str, str] | None = None) -> str:
    """Return a sentence for a (redacted) event, or ``""`` for bookkeeping events not worth a line.

    Args:
        ev: an event already redacted for the viewer.
        names: seat number -> player name.
        places: position id (``"t10"``) -> tile name (``"Mountains"``); ids are shown when missing.
    """
    if places is not None and isinstance(ev.get("pos"), str):
        ev = {**ev, "pos": place_name(places.get(ev["pos"], ev["pos"]))}

    def who(key: str = "seat") -> str:
        seat = ev.get(key)
        return names.get(seat, "?") if isinstance(seat, int) else "?"

    kind = ev.get("type")
    if kind == "turn_started":
        return _("Turn %(turn)s: %(who)s's turn.") % {"turn": ev["turn"], "who": who()}
    if kind == "knights_gained":
        if not ev["knights"] and not ev["lost"]:
            return ""
        text = ngettext(
            "%(who)s places %(n)s knight in their castle (%(why)s).",
            "%(who)s places %(n)s knights in their castle (%(why)s).",
            ev["knights"],
        ) % {"who": who(), "n": ev["knights"], "why": _why(ev["reason"])}
        if ev["lost"]:
            text += " " + ngettext(
                "%(n)s knight lost: no dice left.", "%(n)s knights lost: no dice left.", ev["lost"]
            ) % {"n": ev["lost"]}
        return text
    if kind == "card_played":
        target = f" → {artefact_name(ev['target'])}" if ev.get("target") else ""
        return _("%(who)s plays %(card)s%(target)s.") % {"who": who(), "card": ev["name"], "target": target}
    if kind == "draw":
        if ev.get("cards"):
            return ngettext("You draw %(n)s card.", "You draw %(n)s cards.", ev["count"]) % {"n": ev["count"]}
        return ngettext("%(who)s draws %(n)s card.", "%(who)s draws %(n)s cards.", ev["count"]) % {
            "who": who(),
            "n": ev["count"],
        }
    if kind == "discard":
        return _("%(who)s discards %(card)s (%(why)s).") % {
            "who": who(),
            "card": ev["name"],
            "why": _why(ev["reason"]),
        }
    if kind == "reshuffle":
        return _("%(who)s shuffles their discard pile into a new deck.") % {"who": who()}
    if kind == "artefact_destroyed":
        return _("%(art)s of %(owner)s is destroyed.") % {
            "art": artefact_name(ev["artefact"]),
            "owner": who("owner"),
        }
    if kind == "artefact_restored":
        return _("%(art)s of %(owner)s is restored.") % {
            "art": artefact_name(ev["artefact"]),
            "owner": who("owner"),
        }
    if kind == "redistributed":
        return _("%(who)s redistributes knights.") % {"who": who()}
    if kind == "advanced":
        return ngettext(
            "%(who)s advances %(n)s knight into %(pos)s.",
            "%(who)s advances %(n)s knights into %(pos)s.",
            ev["knights"],
        ) % {"who": who(), "n": ev["knights"], "pos": ev["pos"]}
    if kind == "conquered":
        return _("%(who)s conquers %(pos)s (%(tile)s).") % {
            "who": who(),
            "pos": ev["pos"],
            "tile": _tile(ev["tile"]),
        }
    if kind == "battle_started":
        return _("Battle for %(pos)s: %(a)s attacks %(d)s.") % {
            "pos": ev["pos"],
            "a": who("attacker"),
            "d": who("defender"),
        }
    if kind == "arena":
        return _("Arena rolls: %(a)s and %(d)s.") % {"a": ev["rolls"][0], "d": ev["rolls"][1]}
    if kind == "window_opened":
        return _("Fracture window for %(targets)s.") % {
            "targets": ", ".join(artefact_name(t) for t in ev["targets"])
        }
    if kind == "crown_announced":
        return _("%(who)s uses the %(crown)s.") % {"who": who(), "crown": artefact_name(ev["crown"])}
    if kind == "crown_negated":
        return _("The crown is fractured and has no effect.")
    if kind == "artefact_applied":
        return _("%(art)s applies.") % {"art": artefact_name(ev["artefact"])}
    if kind == "conflict_chosen":
        if ev.get("card"):
            return _("You place your conflict card face down.")
        return _("%(who)s places a conflict card face down.") % {"who": who()}
    if kind == "conflict_revealed":
        return _("Conflict cards revealed: %(a)s against %(d)s (scores %(sa)s–%(sd)s).") % {
            "a": ev["values"][0],
            "d": ev["values"][1],
            "sa": ev["scores"][0],
            "sd": ev["scores"][1],
        }
    if kind == "support_played":
        return _("%(who)s plays support %(values)s.") % {
            "who": who(),
            "values": " ".join(f"+{v}" for v in ev["values"]),
        }
    if kind == "support_passed":
        return _("%(who)s passes.") % {"who": who()}
    if kind == "battle_result":
        return _("%(who)s wins the battle by %(m)s (%(a)s–%(d)s).") % {
            "who": who("winner"),
            "m": ev["margin"],
            "a": ev["scores"][0],
            "d": ev["scores"][1],
        }
    if kind == "knights_lost":
        if not ev["knights"]:
            return ""
        return ngettext(
            "%(who)s loses %(n)s knight (%(why)s).", "%(who)s loses %(n)s knights (%(why)s).", ev["knights"]
        ) % {"who": who(), "n": ev["knights"], "why": _why(ev["reason"])}
    if kind == "retreat":
        return ngettext(
            "%(who)s retreats %(n)s knight to their castle.",
            "%(who)s retreats %(n)s knights to their castle.",
            ev["knights"],
        ) % {"who": who(), "n": ev["knights"]}
    if kind == "mayhem":
        return ngettext(
            "Mayhem: %(who)s loses %(n)s knight.", "Mayhem: %(who)s loses %(n)s knights.", ev["lost"]
        ) % {"who": who(), "n": ev["lost"]}
    if kind == "mayhem_flip":
        return _("Mayhem flips the result: %(who)s wins.") % {"who": who("winner")}
    if kind == "cut_throat":
        return _("Cut-throat: %(who)s loses %(pos)s (no line of supply).") % {"who": who(), "pos": ev["pos"]}
    if kind == "game_over":
        winners = [names.get(s, "?") for s in ev["winners"]]
        return ngettext("Game over. Winner: %(w)s.", "Game over. Winners: %(w)s.", len(winners)) % {
            "w": ", ".join(winners)
        }
    if kind == "castle_conquered":
        return _("%(who)s conquers the castle of %(o)s!") % {"who": who(), "o": who("owner")}
    if kind == "first_player":
        return _("%(who)s goes first.") % {"who": who()}
    if kind in ("fear_choice",) and ev.get("used"):
        return ngettext(
            "%(who)s fights as though they had %(n)s knight.",
            "%(who)s fights as though they had %(n)s knights.",
            ev["knights"],
        ) % {"who": who(), "n": ev["knights"]}
    if kind == "card_returned":
        return _("%(who)s shuffles %(card)s back into their deck.") % {"who": who(), "card": ev["name"]}
    return ""
