"""The game log in words: one sentence per engine event, from an event already redacted for the viewer
(:func:`games.engine.redact_event`), so nothing here can reveal more than the viewer may know.

Every sentence is translated (``locale/``); territories, artefacts and cards are named in the reader's
language by :mod:`games.components`.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import engine
from games.components import (
    DEFAULT_CONTENT,
    artefact_name,
    card_name_of,
    content_of,
    place_name,
    territory_name,
)

#: Event reasons that are not the id of an artefact ability or territory type.
_REASONS = {
    "turn": gettext_lazy("start of turn"),
    "call_to_arms": gettext_lazy("Call to Arms"),
    "mayhem": gettext_lazy("Mayhem"),
    "battle": gettext_lazy("battle lost"),
    "arena": gettext_lazy("Arena roll"),
}

_tile = territory_name


def _ability_name(ability: str) -> str | None:
    """The name of the artefact with ``ability`` (``"greed"`` -> "Orb of Greed"), ``None`` if none has it."""
    content = content_of(DEFAULT_CONTENT)
    if content is None:
        return None
    art_id = next((a.id for a in content.artefacts.values() if a.ability == ability), None)
    return artefact_name(art_id) if art_id is not None else None


def _why(reason: str) -> str:
    """The cause of a gain, loss or discard: an artefact ability, a territory type or an engine reason."""
    if reason in _REASONS:
        return str(_REASONS[reason])
    content = content_of(DEFAULT_CONTENT)
    if content is not None and reason in content.territory_types:
        return territory_name(reason)
    return _ability_name(reason) or reason.replace("_", " ")


def describe(ev: engine.Event, names: dict[int, str], places: dict[str, str] | None = None) -> str:
    """Return a sentence for a (redacted) event, or ``""`` for bookkeeping events not worth a line.

    Args:
        ev: an event already redacted for the viewer.
        names: seat number -> player name.
        places: position id (``"t10"``) -> tile name (``"Mountains"``); ids are shown when missing.
    """
    if places is not None and isinstance(ev.get("pos"), str):
        ev = {**ev, "pos": place_name(places.get(ev["pos"], ev["pos"]))}
    if places is not None and isinstance(ev.get("moves"), list):
        ev = {**ev, "moves": [_named_move(m, places) for m in ev["moves"] if isinstance(m, dict)]}
    try:
        event_type = engine.EventType(str(ev.get("type")))
    except ValueError:  # an event type this version does not know (an older or newer record)
        return ""
    describer = _DESCRIBERS.get(event_type)
    return describer(ev, names) if describer is not None else ""


def _who(ev: engine.Event, names: dict[int, str], key: str = "seat") -> str:
    """The name of the seat in ``ev[key]`` (``"?"`` when it is not a seat number)."""
    seat = ev.get(key)
    return names.get(seat, "?") if isinstance(seat, int) else "?"


def _turn_started(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Turn %(turn)s: %(who)s's turn.") % {"turn": ev["turn"], "who": _who(ev, names)}


def _knights_gained(ev: engine.Event, names: dict[int, str]) -> str:
    if not ev["knights"] and not ev["lost"]:
        return ""
    text = ngettext(
        "%(who)s places %(n)s knight in their castle (%(why)s).",
        "%(who)s places %(n)s knights in their castle (%(why)s).",
        ev["knights"],
    ) % {"who": _who(ev, names), "n": ev["knights"], "why": _why(ev["reason"])}
    if ev["lost"]:
        text += " " + ngettext(
            "%(n)s knight lost: no dice left.", "%(n)s knights lost: no dice left.", ev["lost"]
        ) % {"n": ev["lost"]}
    return text


def _card_played(ev: engine.Event, names: dict[int, str]) -> str:
    target = f" → {artefact_name(str(ev['target']))}" if ev.get("target") else ""
    return _("%(who)s plays %(card)s%(target)s.") % {
        "who": _who(ev, names),
        "card": card_name_of(ev["name"]),
        "target": target,
    }


def _draw(ev: engine.Event, names: dict[int, str]) -> str:
    if ev.get("cards"):
        return ngettext("You draw %(n)s card.", "You draw %(n)s cards.", ev["count"]) % {"n": ev["count"]}
    return ngettext("%(who)s draws %(n)s card.", "%(who)s draws %(n)s cards.", ev["count"]) % {
        "who": _who(ev, names),
        "n": ev["count"],
    }


def _discard(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s discards %(card)s (%(why)s).") % {
        "who": _who(ev, names),
        "card": card_name_of(ev["name"]),
        "why": _why(ev["reason"]),
    }


def _reshuffle(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s shuffles their discard pile into a new deck.") % {"who": _who(ev, names)}


def _artefact_destroyed(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(art)s of %(owner)s is destroyed.") % {
        "art": artefact_name(ev["artefact"]),
        "owner": _who(ev, names, "owner"),
    }


def _artefact_restored(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(art)s of %(owner)s is restored.") % {
        "art": artefact_name(ev["artefact"]),
        "owner": _who(ev, names, "owner"),
    }


def _named_move(move: engine.MovePart, places: dict[str, str]) -> engine.MovePart:
    """A redistribution move with its places named (``"castle"`` stays, for "their castle")."""
    return {
        "from": place_name(places.get(str(move.get("from")), str(move.get("from")))),
        "to": place_name(places.get(str(move.get("to")), str(move.get("to")))),
        "knights": move.get("knights", 0),
    }


def _end(location: str) -> str:
    return _("their castle") if location == "castle" else location


def _redistributed(ev: engine.Event, names: dict[int, str]) -> str:
    """Issue 16: the log says what moved, with numbers: "Alice redistributes: 2 knights from their castle
    to Fort; 1 knight from Fort to Ruins." (R43)."""
    moves = [
        ngettext(
            "%(n)s knight from %(src)s to %(dst)s",
            "%(n)s knights from %(src)s to %(dst)s",
            int(m.get("knights", 0)),
        )
        % {"n": m.get("knights", 0), "src": _end(str(m.get("from"))), "dst": _end(str(m.get("to")))}
        for m in ev.get("moves") or []
    ]
    if not moves:
        return _("%(who)s redistributes knights.") % {"who": _who(ev, names)}
    return _("%(who)s redistributes: %(moves)s.") % {"who": _who(ev, names), "moves": "; ".join(moves)}


def _advanced(ev: engine.Event, names: dict[int, str]) -> str:
    return ngettext(
        "%(who)s advances %(n)s knight into %(pos)s.",
        "%(who)s advances %(n)s knights into %(pos)s.",
        ev["knights"],
    ) % {"who": _who(ev, names), "n": ev["knights"], "pos": ev["pos"]}


def _conquered(ev: engine.Event, names: dict[int, str]) -> str:
    if str(ev["pos"]).startswith(_tile(ev["tile"])):  # named by the map: "Forest", "Forest (north-west)"
        return _("%(who)s conquers %(pos)s.") % {"who": _who(ev, names), "pos": ev["pos"]}
    return _("%(who)s conquers %(pos)s (%(tile)s).") % {
        "who": _who(ev, names),
        "pos": ev["pos"],
        "tile": _tile(ev["tile"]),
    }


def _battle_started(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Battle for %(pos)s: %(a)s attacks %(d)s.") % {
        "pos": ev["pos"],
        "a": _who(ev, names, "attacker"),
        "d": _who(ev, names, "defender"),
    }


def _arena(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Arena rolls: %(a)s and %(d)s.") % {"a": ev["rolls"][0], "d": ev["rolls"][1]}


def _window_opened(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Fracture window for %(targets)s.") % {
        "targets": ", ".join(artefact_name(t) for t in ev["targets"])
    }


def _crown_announced(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s uses the %(crown)s.") % {"who": _who(ev, names), "crown": artefact_name(ev["crown"])}


def _crown_negated(ev: engine.Event, names: dict[int, str]) -> str:
    return _("The crown is fractured and has no effect.")


def _artefact_applied(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(art)s applies.") % {"art": artefact_name(ev["artefact"])}


def _conflict_chosen(ev: engine.Event, names: dict[int, str]) -> str:
    if ev.get("card"):
        return _("You place your conflict card face down.")
    return _("%(who)s places a conflict card face down.") % {"who": _who(ev, names)}


def _conflict_revealed(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Conflict cards revealed: %(a)s against %(d)s (scores %(sa)s–%(sd)s).") % {
        "a": ev["values"][0],
        "d": ev["values"][1],
        "sa": ev["scores"][0],
        "sd": ev["scores"][1],
    }


def _support_played(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s plays support %(values)s.") % {
        "who": _who(ev, names),
        "values": " ".join(f"+{v}" for v in ev["values"]),
    }


def _support_passed(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s passes.") % {"who": _who(ev, names)}


def _battle_result(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s wins the battle by %(m)s (%(a)s–%(d)s).") % {
        "who": _who(ev, names, "winner"),
        "m": ev["margin"],
        "a": ev["scores"][0],
        "d": ev["scores"][1],
    }


def _knights_lost(ev: engine.Event, names: dict[int, str]) -> str:
    if not ev["knights"]:
        return ""
    return ngettext(
        "%(who)s loses %(n)s knight (%(why)s).", "%(who)s loses %(n)s knights (%(why)s).", ev["knights"]
    ) % {"who": _who(ev, names), "n": ev["knights"], "why": _why(ev["reason"])}


def _retreat(ev: engine.Event, names: dict[int, str]) -> str:
    if not ev["knights"]:
        return ""  # nobody left to retreat (issue 16: never "retreats 0 knights")
    return ngettext(
        "%(who)s retreats %(n)s knight to their castle.",
        "%(who)s retreats %(n)s knights to their castle.",
        ev["knights"],
    ) % {"who": _who(ev, names), "n": ev["knights"]}


def _mayhem(ev: engine.Event, names: dict[int, str]) -> str:
    return ngettext(
        "Mayhem: %(who)s loses %(n)s knight.", "Mayhem: %(who)s loses %(n)s knights.", ev["lost"]
    ) % {"who": _who(ev, names), "n": ev["lost"]}


def _mayhem_flip(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Mayhem flips the result: %(who)s wins.") % {"who": _who(ev, names, "winner")}


def _cut_throat(ev: engine.Event, names: dict[int, str]) -> str:
    return _("Cut-throat: %(who)s loses %(pos)s (no line of supply).") % {
        "who": _who(ev, names),
        "pos": ev["pos"],
    }


def _game_over(ev: engine.Event, names: dict[int, str]) -> str:
    winners = [names.get(s, "?") for s in ev["winners"]]
    return ngettext("Game over. Winner: %(w)s.", "Game over. Winners: %(w)s.", len(winners)) % {
        "w": ", ".join(winners)
    }


def _castle_conquered(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s conquers the castle of %(o)s!") % {
        "who": _who(ev, names),
        "o": _who(ev, names, "owner"),
    }


def _first_player(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s goes first.") % {"who": _who(ev, names)}


def _card_returned(ev: engine.Event, names: dict[int, str]) -> str:
    return _("%(who)s shuffles %(card)s back into their deck.") % {
        "who": _who(ev, names),
        "card": card_name_of(ev["name"]),
    }


def _fear_choice(ev: engine.Event, names: dict[int, str]) -> str:
    if not ev.get("used"):
        return ""
    return ngettext(
        "%(who)s fights as though they had %(n)s knight.",
        "%(who)s fights as though they had %(n)s knights.",
        ev["knights"],
    ) % {"who": _who(ev, names), "n": ev["knights"]}


#: Event type -> its sentence (a describer returns ``""`` when the event is not worth a line).
_DESCRIBERS: dict[engine.EventType, Callable[[engine.Event, dict[int, str]], str]] = {
    engine.EventType.TURN_STARTED: _turn_started,
    engine.EventType.KNIGHTS_GAINED: _knights_gained,
    engine.EventType.CARD_PLAYED: _card_played,
    engine.EventType.DRAW: _draw,
    engine.EventType.DISCARD: _discard,
    engine.EventType.RESHUFFLE: _reshuffle,
    engine.EventType.ARTEFACT_DESTROYED: _artefact_destroyed,
    engine.EventType.ARTEFACT_RESTORED: _artefact_restored,
    engine.EventType.REDISTRIBUTED: _redistributed,
    engine.EventType.ADVANCED: _advanced,
    engine.EventType.CONQUERED: _conquered,
    engine.EventType.BATTLE_STARTED: _battle_started,
    engine.EventType.ARENA: _arena,
    engine.EventType.WINDOW_OPENED: _window_opened,
    engine.EventType.CROWN_ANNOUNCED: _crown_announced,
    engine.EventType.CROWN_NEGATED: _crown_negated,
    engine.EventType.ARTEFACT_APPLIED: _artefact_applied,
    engine.EventType.CONFLICT_CHOSEN: _conflict_chosen,
    engine.EventType.CONFLICT_REVEALED: _conflict_revealed,
    engine.EventType.SUPPORT_PLAYED: _support_played,
    engine.EventType.SUPPORT_PASSED: _support_passed,
    engine.EventType.BATTLE_RESULT: _battle_result,
    engine.EventType.KNIGHTS_LOST: _knights_lost,
    engine.EventType.RETREAT: _retreat,
    engine.EventType.MAYHEM: _mayhem,
    engine.EventType.MAYHEM_FLIP: _mayhem_flip,
    engine.EventType.CUT_THROAT: _cut_throat,
    engine.EventType.GAME_OVER: _game_over,
    engine.EventType.CASTLE_CONQUERED: _castle_conquered,
    engine.EventType.FIRST_PLAYER: _first_player,
    engine.EventType.CARD_RETURNED: _card_returned,
    engine.EventType.FEAR_CHOICE: _fear_choice,
}
