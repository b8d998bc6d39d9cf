"""The game log in words: one sentence per engine event, from an event already redacted for the viewer
(:func:`games.engine.redact_event`), so nothing here can reveal more than the viewer may know."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


def _art(art_id: str | None) -> str:
    if not art_id:
        return ""
    kind, _sep, ability = art_id.partition("_")
    return f"{kind.capitalize()} of {ability.capitalize()}"


def describe(ev: dict[str, Any], names: dict[int, str], places: dict[str, str] | None = None) -> str:
    """Return a sentence for a (redacted) event, or ``""`` for bookkeeping events not worth a line.

    Args:
        ev: an event already redacted for the viewer.
        names: seat number -> player name.
        places: position id (``"t10"``) -> tile name (``"Mountains"``); ids are shown when missing.
    """
    if places is not None and isinstance(ev.get("pos"), str):
        ev = {**ev, "pos": places.get(ev["pos"], ev["pos"])}

    def who(key: str = "seat") -> str:
        seat = ev.get(key)
        return names.get(seat, "?") if isinstance(seat, int) else "?"

    kind = ev.get("type")
    if kind == "turn_started":
        return _("Turn %(turn)s: %(who)s's turn.") % {"turn": ev["turn"], "who": who()}
    if kind == "knights_gained":
        if not ev["knights"] and not ev["lost"]:
            return ""
        text = _("%(who)s places %(n)s knight(s) in their castle (%(why)s).") % {
            "who": who(),
            "n": ev["knights"],
            "why": ev["reason"].replace("_", " "),
        }
        if ev["lost"]:
            text += " " + _("%(n)s knight(s) lost: no dice left.") % {"n": ev["lost"]}
        return text
    if kind == "card_played":
        target = f" → {_art(ev['target'])}" if ev.get("target") else ""
        return _("%(who)s plays %(card)s%(target)s.") % {"who": who(), "card": ev["name"], "target": target}
    if kind == "draw":
        cards = ev.get("cards")
        if cards:
            return _("You draw %(n)s card(s).") % {"n": ev["count"]}
        return _("%(who)s draws %(n)s card(s).") % {"who": who(), "n": ev["count"]}
    if kind == "discard":
        return _("%(who)s discards %(card)s (%(why)s).") % {
            "who": who(),
            "card": ev["name"],
            "why": ev["reason"].replace("_", " "),
        }
    if kind == "reshuffle":
        return _("%(who)s shuffles their discard pile into a new deck.") % {"who": who()}
    if kind == "artefact_destroyed":
        return _("%(art)s of %(owner)s is destroyed.") % {"art": _art(ev["artefact"]), "owner": who("owner")}
    if kind == "artefact_restored":
        return _("%(art)s of %(owner)s is restored.") % {"art": _art(ev["artefact"]), "owner": who("owner")}
    if kind == "redistributed":
        return _("%(who)s redistributes knights.") % {"who": who()}
    if kind == "advanced":
        return _("%(who)s advances %(n)s knight(s) into %(pos)s.") % {
            "who": who(),
            "n": ev["knights"],
            "pos": ev["pos"],
        }
    if kind == "conquered":
        return _("%(who)s conquers %(pos)s (%(tile)s).") % {
            "who": who(),
            "pos": ev["pos"],
            "tile": ev["tile"].capitalize(),
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
        return _("Fracture window for %(targets)s.") % {"targets": ", ".join(_art(t) for t in ev["targets"])}
    if kind == "crown_announced":
        return _("%(who)s uses the %(crown)s.") % {"who": who(), "crown": _art(ev["crown"])}
    if kind == "crown_negated":
        return _("The crown is fractured and has no effect.")
    if kind == "artefact_applied":
        return _("%(art)s applies.") % {"art": _art(ev["artefact"])}
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
        return _("%(who)s loses %(n)s knight(s) (%(why)s).") % {
            "who": who(),
            "n": ev["knights"],
            "why": ev["reason"].replace("_", " "),
        }
    if kind == "retreat":
        return _("%(who)s retreats %(n)s knight(s) to their castle.") % {"who": who(), "n": ev["knights"]}
    if kind == "mayhem":
        return _("Mayhem: %(who)s loses %(n)s knight(s).") % {"who": who(), "n": ev["lost"]}
    if kind == "mayhem_flip":
        return _("Mayhem flips the result: %(who)s wins.") % {"who": who("winner")}
    if kind == "cut_throat":
        return _("Cut-throat: %(who)s loses %(pos)s (no line of supply).") % {"who": who(), "pos": ev["pos"]}
    if kind == "game_over":
        return _("Game over. Winner(s): %(w)s.") % {"w": ", ".join(names.get(s, "?") for s in ev["winners"])}
    if kind == "castle_conquered":
        return _("%(who)s conquers the castle of %(o)s!") % {"who": who(), "o": who("owner")}
    if kind == "first_player":
        return _("%(who)s goes first.") % {"who": who()}
    if kind in ("fear_choice",) and ev.get("used"):
        return _("%(who)s fights as though they had %(n)s knights.") % {"who": who(), "n": ev["knights"]}
    if kind == "card_returned":
        return _("%(who)s shuffles %(card)s back into their deck.") % {"who": who(), "card": ev["name"]}
    return ""
