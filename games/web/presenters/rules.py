"""The page model of the rules reference (``/rules/``, issue 15): the component tables generated from the
content set, the diagrams and the worked battle example drawn by the game's own map renderer
(:func:`~games.web.presenters.board.board_model`)."""

from __future__ import annotations

from typing import cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_stubs_ext import StrPromise

from games import engine
from games.components import (
    OPTION_RULES,
    OPTION_TEXTS,
    TRIGGER_RULES,
    artefact_name,
    artefact_text,
    card_name,
    card_text,
    content_of,
    localized_view,
    territory_name,
    territory_text,
)
from games.log import describe
from games.rulebook import SECTIONS, battle_frames, opening_state, rule_anchor, setup_state, supply_state
from games.web.presenters.board import board_model
from games.web.presenters.common import card_label
from games.web.presenters.shapes import BoardModel, CardRow, ExampleFrame, RulesModel, TerritoryRow


def _names() -> dict[int, str]:
    """The two players of the diagrams."""
    return {0: _("Red"), 1: _("Blue")}


def _diagram(state: engine.GameState, prefix: str, seat: int | None = None, show: str = "") -> BoardModel:
    """A map of ``state`` as ``seat`` sees it (a spectator by default), with the places where the legal
    actions of type ``show`` (``"advance"``, ``"redistribute"``) may go marked."""
    view = localized_view(engine.view_for(state, seat), state.content)
    legal = [a for a in engine.legal_actions(state, seat) if show == a.TYPE] if seat is not None else []
    return board_model(view, _names(), legal, seat, prefix=prefix, roving=True)


def _tile_icon(content: engine.Content, type_id: str, vp: int) -> BoardModel:
    """A territory type drawn alone by the map renderer, as the icon of its row (not focusable)."""
    tile: engine.TileView = {
        "id": "t0",
        "q": 0,
        "r": 0,
        "kind": "territory",
        "tile": type_id,
        "name": territory_name(type_id, content),
        "vp": vp,
        "capacity": content.territory_types[type_id].capacity,
        "owner": None,
        "knights": 0,
        "supplied": True,
        "disputed": False,
    }
    view = cast(engine.View, {"map": [tile], "players": [], "battle": None})
    return board_model(view, {}, prefix=f"icon-{type_id}-", interactive=False)


def _territories(content: engine.Content) -> list[TerritoryRow]:
    vps: dict[str, set[int]] = {}
    for type_id, vp, _count in content.tiles:
        vps.setdefault(type_id, set()).add(vp)
    default = content.n("default_capacity")
    return [
        {
            "id": type_id,
            "name": territory_name(type_id, content),
            "vp": sorted(vps.get(type_id, set())),
            "capacity": tdef.capacity,
            "capacity_differs": tdef.capacity != default,
            "texts": territory_text(type_id, content),
            "icon": _tile_icon(content, type_id, min(vps.get(type_id, {0}))),
        }
        for type_id, tdef in content.territory_types.items()
    ]


def _artefacts(content: engine.Content) -> list[dict[str, str]]:
    return [
        {
            "id": art_id,
            "type": adef.type,
            "name": artefact_name(art_id, content),
            "anchor": rule_anchor(TRIGGER_RULES.get(adef.trigger, "R89")),
            **artefact_text(art_id, content),
        }
        for art_id, adef in content.artefacts.items()
    ]


def _cards(content: engine.Content) -> list[CardRow]:
    seen: dict[str, CardRow] = {}
    for cdef in content.cards:
        if cdef.id in seen:
            seen[cdef.id]["copies"] += 1
            continue
        value: int | str | None = "d6" if cdef.ambush else cdef.value
        name = card_name(cdef.id, content)
        seen[cdef.id] = {
            "id": cdef.id,
            "card": cdef.id,
            "kind": cdef.kind,
            "value": value,
            "name": name,
            "label": card_label(
                {"id": cdef.id, "card": cdef.id, "name": name, "kind": cdef.kind, "value": value}
            ),
            "text": card_text(cdef.id, content),
            "copies": 1,
        }
    return list(seen.values())


def _example() -> list[ExampleFrame]:
    names = _names()
    frames: list[ExampleFrame] = []
    for number, (step, state, events) in enumerate(battle_frames(), start=1):
        view = engine.view_for(state, None)
        places = {t["id"]: t.get("name", t["id"]) for t in view["map"]}
        lines = [describe(engine.redact_event(ev, None), names, places) for ev in events]
        named = localized_view(view, state.content)
        battle = named["battle"]
        frames.append(
            {
                "number": number,
                "caption": step.caption,
                "rules": step.rules,
                "anchor": rule_anchor(step.rules),
                "board": board_model(named, names, prefix=f"ex{number}-", roving=True),
                "scores": None
                if battle is None
                else [battle["attacker"]["score"], battle["defender"]["score"]],
                "lines": [line for line in lines if line],
            }
        )
    return frames


#: The content sets ``/rules/?content=`` can list, with their labels (the shipped sets of
#: :data:`games.engine.content.CONTENT_SETS`).
CONTENT_LABELS: dict[str, StrPromise] = {
    "default": gettext_lazy("Standard"),
    "abbey": gettext_lazy("Abbey reading (Swedish and Polish editions)"),
}


def rules_model(spec: str = "default") -> RulesModel:
    """Everything ``/rules/`` shows, in the active language; the component lists (and the numbers in the
    prose) come from content set ``spec`` (one of :data:`CONTENT_LABELS`), the diagrams from the default
    set's guided-game setup.

    Returns:
        A :class:`~.shapes.RulesModel`:
        ``{"sections": [(anchor, title, "R12–R13")], "territories", "artefacts" (grouped by type:
        ``{"crown": [...], ...}``), "cards", "options", "numbers" (the content's fixed numbers), "deck_size",
        "diagrams": {"map", "advance", "redistribution", "supply"}, "example": [frame], "content" (``spec``),
        "content_sets": [(spec, label)]}``.

    Raises:
        KeyError: ``spec`` is not a shipped content set.
    """
    if spec not in CONTENT_LABELS:
        raise KeyError(spec)
    content = content_of(spec)
    assert content is not None
    artefacts = _artefacts(content)
    return {
        "sections": [
            (s.anchor, s.title, f"R{s.first}–R{s.last}" if s.last != s.first else f"R{s.first}")
            for s in SECTIONS
        ],
        "territories": _territories(content),
        "artefacts": {
            kind: [a for a in artefacts if a["type"] == kind] for kind in ("crown", "sceptre", "orb")
        },
        "cards": _cards(content),
        "options": [
            {"key": key, "text": text, "rule": OPTION_RULES[key]} for key, text in OPTION_TEXTS.items()
        ],
        "numbers": content.numbers,
        "deck_size": len(content.cards),
        "diagrams": {
            "map": _diagram(setup_state(), "d1-"),
            "advance": _diagram(opening_state(), "d2-", seat=0, show="advance"),
            "redistribution": _diagram(opening_state(), "d4-", seat=0, show="redistribute"),
            "supply": _diagram(supply_state(), "d3-"),
        },
        "example": _example(),
        "content": spec,
        "content_sets": list(CONTENT_LABELS.items()),
    }
