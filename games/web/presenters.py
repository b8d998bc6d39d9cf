"""Page models for the game templates: turn a :class:`games.selectors.GameView` into plain dicts that the
partials render (map geometry, seat colours and patterns, the decision forms grouped by action type).

Everything here reads only ``GameView`` (the engine's per-viewer ``view_for`` dict, the viewer's legal
actions and prompts, redacted log lines) and the public content set (tile and artefact texts). Nothing reads
``Game.state``, so nothing here can show another seat's hand, a deck order or a face-down card.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from datetime import datetime
from functools import cached_property
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games import engine
from games.log import artefact_name, place_name
from games.models import Game
from games.selectors import GameView

#: Hex circumradius in SVG units (pointy-top axial layout: x = √3·(q + r/2), y = 1.5·r).
HEX_SIZE = 46

#: Content colour name -> (fill, light tint). Chosen to stay distinct under the common colour-vision
#: deficiencies (Okabe–Ito based); every seat also gets a pattern and an initial, so colour is never the
#: only signal (ui.md).
SEAT_COLOURS: dict[str, tuple[str, str]] = {
    "red": ("#b8430f", "#f3d2bf"),
    "blue": ("#1f5f99", "#c8dcef"),
    "yellow": ("#b07d00", "#f4e2a8"),
    "green": ("#0b7a5a", "#bfe3d4"),
    "purple": ("#8e4a87", "#e6cde2"),
    "black": ("#2b2b2b", "#cfcac0"),
}

#: Pattern of seat n (drawn in the seat colour over its tint).
SEAT_PATTERNS = ("diagonal", "dots", "horizontal", "crosshatch", "vertical", "checks")

TURN_STEPS = (
    gettext_lazy("Place three knights"),
    gettext_lazy("Play resource cards"),
    gettext_lazy("Use crowns"),
    gettext_lazy("Redistribute knights"),
    gettext_lazy("Make an advance"),
    gettext_lazy("Battle"),
    gettext_lazy("Play resource cards"),
    gettext_lazy("Use crowns"),
    gettext_lazy("Restore artefacts"),
)

BATTLE_STEPS = (
    gettext_lazy("Start-of-battle territory abilities"),
    gettext_lazy("Draw up to five"),
    gettext_lazy("Sceptre abilities"),
    gettext_lazy("Play conflict cards"),
    gettext_lazy("Play support cards"),
    gettext_lazy("Battle result"),
    gettext_lazy("Orb abilities"),
    gettext_lazy("Lose knights and retreat"),
    gettext_lazy("Conquest territory abilities"),
)

PROMPT_HEADLINES: dict[str, Any] = {
    "turn": gettext_lazy(
        "Your turn: play resource cards, use your crown, start a manoeuvre or end your turn."
    ),
    "manoeuvre": gettext_lazy("Your manoeuvre: redistribute knights, then advance or decline to advance."),
    "vitality": gettext_lazy("Crown of Vitality: redistribute your knights, then finish."),
    "response": gettext_lazy("A Fracture window is open: fracture an artefact or pass."),
    "conflict": gettext_lazy("Battle: choose your conflict card. It stays face down until both have chosen."),
    "support": gettext_lazy("Battle: your support turn. Play support cards or pass."),
    "may_discard": gettext_lazy("You may discard any 1 card from your hand."),
    "insight_order": gettext_lazy("Crown of Insight: put the cards back on your deck in any order."),
    "prosperity": gettext_lazy("Crown of Prosperity: keep the top card on the deck or discard it."),
    "fear": gettext_lazy("You may fight as though you had as many knights as your rival."),
}

MOD_LABELS: dict[str, Any] = {
    "knights": gettext_lazy("knights"),
    "conflict": gettext_lazy("conflict"),
    "support": gettext_lazy("support"),
    "rage": gettext_lazy("Sceptre of Rage"),
    "loyalty": gettext_lazy("Sceptre of Loyalty"),
}


def seat_style(view: dict[str, Any] | None, seat: int) -> dict[str, Any]:
    """Colour, tint, pattern id and initial of ``seat`` (the initial is its castle's, unique per seat)."""
    colour = "red"
    castle = "?"
    if view is not None and 0 <= seat < len(view["players"]):
        colour = view["players"][seat]["colour"]
        castle = view["players"][seat]["castle"]
    fill, tint = SEAT_COLOURS.get(colour, ("#555555", "#dddddd"))
    return {
        "seat": seat,
        "colour": fill,
        "tint": tint,
        "colour_name": colour,
        "pattern": SEAT_PATTERNS[seat % len(SEAT_PATTERNS)],
        "pattern_id": f"pat-s{seat}",
        "initial": castle[:1].upper(),
        "castle": castle,
    }


def _content_texts(game: Game) -> tuple[dict[str, str], dict[str, str]]:
    """Public rule texts of territory types and artefacts of the game's content set."""
    try:
        raw = engine.load_content(game.content).raw
    except engine.ContentError:
        return {}, {}
    tiles = {t["id"]: t.get("text", "") for t in raw.get("territory_types", [])}
    arts = {a["id"]: a.get("text", "") for a in raw.get("artefacts", [])}
    return tiles, arts


def _by_type(legal: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for action in legal:
        groups[str(action["type"])].append(action)
    return groups


def card_label(card: dict[str, Any]) -> str:
    """The label of a card: "War Banner (+2)", "Ambush (d6)", "Shield Wall (3)" or "Fracture"."""
    value = card.get("value")
    if value is None:
        return str(card["name"])
    if card.get("kind") == "support":
        return f"{card['name']} (+{value})"
    return f"{card['name']} ({value})"


def _hex_points(x: float, y: float, size: float) -> str:
    pts = []
    for i in range(6):
        angle = math.radians(60 * i - 30)
        pts.append(f"{x + size * math.cos(angle):.1f},{y + size * math.sin(angle):.1f}")
    return " ".join(pts)


def board_model(gv: GameView, names: dict[int, str], tile_texts: dict[str, str]) -> dict[str, Any]:
    """The SVG map: per position its geometry, labels, owner style, supply, dispute and whether the viewer
    may pick it now (advance target or redistribution location)."""
    view = gv.view
    assert view is not None
    groups = _by_type(gv.legal)
    targets = {str(a["to"]) for a in groups.get("advance", [])}
    redis: set[str] = set()
    for a in groups.get("redistribute", []):
        for m in a["moves"]:
            redis.update((str(m["from"]), str(m["to"])))
    battle = view.get("battle")
    tiles: list[dict[str, Any]] = []
    xs: list[float] = []
    ys: list[float] = []
    root3 = math.sqrt(3)
    for pos in view["map"]:
        q, r = int(pos["q"]), int(pos["r"])
        x = HEX_SIZE * root3 * (q + r / 2)
        y = HEX_SIZE * 1.5 * r
        xs.append(x)
        ys.append(y)
        tile: dict[str, Any] = {
            "id": pos["id"],
            "kind": pos["kind"],
            "x": round(x, 1),
            "y": round(y, 1),
            "points": _hex_points(x, y, HEX_SIZE - 1.5),
            "inner": _hex_points(x, y, HEX_SIZE - 6),
            "target": pos["id"] in targets,
            "pickable": False,
            "disputed": bool(pos.get("disputed")),
        }
        if pos["kind"] == "lake":
            tile["label"] = _("Lake (%(id)s): cannot be entered; links the territories around it.") % {
                "id": pos["id"]
            }
        elif pos["kind"] == "castle":
            seat = int(pos["seat"])
            style = seat_style(view, seat)
            tile.update(
                name=pos["name"],
                seat=seat,
                style=style,
                knights=pos["knights"],
                pickable=seat == gv.seat and "castle" in redis,
                loc="castle" if seat == gv.seat else pos["id"],
            )
            tile["label"] = _("Castle %(name)s of %(who)s: %(n)s knights") % {
                "name": pos["name"],
                "who": names.get(seat, "?"),
                "n": pos["knights"],
            }
        else:
            owner = pos.get("owner")
            owner_style = seat_style(view, int(owner)) if owner is not None else None
            capacity = int(pos.get("capacity") or 6)
            tile.update(
                name=pos["name"],
                tile=pos["tile"],
                vp=pos["vp"],
                pips=range(int(pos["vp"] or 0)),
                capacity=capacity if capacity != 6 else None,
                owner=owner,
                style=owner_style,
                knights=pos["knights"],
                unsupplied=owner is not None and not pos.get("supplied"),
                pickable=pos["id"] in redis or pos["id"] in targets,
                loc=pos["id"],
                text=tile_texts.get(str(pos["tile"]), ""),
            )
            parts = [f"{pos['name']} ({pos['id']})", _("%(vp)s VP") % {"vp": pos["vp"]}]
            if capacity != 6:
                parts.append(_("capacity %(n)s") % {"n": capacity})
            if owner is None:
                parts.append(_("uncontrolled"))
            else:
                parts.append(
                    _("%(who)s, %(n)s knights") % {"who": names.get(int(owner), "?"), "n": pos["knights"]}
                )
                if tile["unsupplied"]:
                    parts.append(_("no line of supply"))
            if tile["disputed"]:
                parts.append(_("in dispute"))
            if tile["target"]:
                parts.append(_("you may advance here"))
            if tile["text"]:
                parts.append(tile["text"])
            tile["label"] = "; ".join(str(p) for p in parts)
        if tile["disputed"] and battle is not None:
            attacker = battle["attacker"]
            tile["attacker"] = {
                "style": seat_style(view, int(attacker["seat"])),
                "knights": attacker["knights"],
            }
        tiles.append(tile)
    pad = HEX_SIZE + 4
    width = (max(xs) - min(xs)) + 2 * pad if xs else 100
    height = (max(ys) - min(ys)) + 2 * pad if ys else 100
    viewbox = (
        f"{(min(xs) if xs else 0) - pad:.1f} {(min(ys) if ys else 0) - pad:.1f} {width:.1f} {height:.1f}"
    )
    seats = [seat_style(view, p["seat"]) for p in view["players"]]
    return {
        "tiles": tiles,
        "viewbox": viewbox,
        "seats": seats,
        "choosing": bool(targets or redis),
    }


def players_model(gv: GameView, names: dict[int, str], art_texts: dict[str, str]) -> list[dict[str, Any]]:
    """Player panels: colour, name, VP towards the goal, knights, dice, card counts, discard, artefacts,
    team."""
    view = gv.view
    assert view is not None
    victory = view.get("victory", {})
    teams: dict[int, list[int]] = defaultdict(list)
    for p in view["players"]:
        if p.get("team") is not None:
            teams[int(p["team"])].append(int(p["seat"]))
    bots = {s.number for s in gv.seats if s.is_bot}
    out: list[dict[str, Any]] = []
    for p in view["players"]:
        seat = int(p["seat"])
        item = dict(p)
        item.pop("hand", None)  # the hand is shown in its own panel, to its owner only
        item["name"] = names.get(seat, "?")
        item["style"] = seat_style(view, seat)
        item["is_me"] = seat == gv.seat
        item["is_bot"] = seat in bots
        item["is_active"] = seat == view.get("active") and not view.get("winners")
        threshold = int(victory.get("player") or 0)
        if p.get("team") is not None:
            members = teams[int(p["team"])]
            team_vp = sum(int(view["players"][m]["vp"]) for m in members)
            team_threshold = int(victory.get("team", {}).get(str(len(members)), 0))
            item["team_info"] = {
                "number": int(p["team"]) + 1,
                "mates": [names.get(m, "?") for m in members if m != seat],
                "vp": team_vp,
                "threshold": team_threshold,
                "pct": min(100, round(100 * team_vp / team_threshold)) if team_threshold else 0,
            }
        item["threshold"] = threshold
        item["pct"] = min(100, round(100 * int(p["vp"]) / threshold)) if threshold else 0
        item["artefacts"] = [a | {"text": art_texts.get(str(a["id"]), "")} for a in p["artefacts"]]
        item["discard"] = list(reversed(p["discard"]))  # newest first
        out.append(item)
    return out


def _current_turn_steps(view: dict[str, Any]) -> set[int]:
    phase = view.get("phase")
    if phase == "over":
        return set()
    if view.get("battle") is not None:
        return {6}
    if phase == "manoeuvre":
        return {4, 5}
    if phase in ("vitality", "choice") or (
        phase == "response" and (view.get("window") or {}).get("kind") == "crown"
    ):
        return {3, 8}
    return {2, 3, 7, 8}


def status_model(gv: GameView, names: dict[int, str]) -> dict[str, Any]:
    """Where we are: the nine turn steps with the current ones marked and, during a battle, the nine battle
    steps and both combat scores broken down by source."""
    view = gv.view
    assert view is not None
    current = _current_turn_steps(view)
    steps = [{"n": i + 1, "name": name, "current": i + 1 in current} for i, name in enumerate(TURN_STEPS)]
    battle = view.get("battle")
    battle_model: dict[str, Any] | None = None
    if battle is not None:
        tile = next((t for t in view["map"] if t["id"] == battle["pos"]), None)
        sides = []
        for role in ("attacker", "defender"):
            side = battle[role]
            seat = int(side["seat"])
            parts = []
            for part in side["parts"]:
                source = str(part["source"])
                if source.startswith("support_s") and source[9:].isdigit():
                    label = _("support from %(who)s") % {"who": names.get(int(source[9:]), "?")}
                else:
                    label = str(MOD_LABELS.get(source, source.replace("_", " ").capitalize()))
                parts.append({"label": label, "value": part["value"]})
            conflict = side["conflict"]
            sides.append(
                {
                    "role": role,
                    "seat": seat,
                    "name": names.get(seat, "?"),
                    "style": seat_style(view, seat),
                    "knights": side["knights"],
                    "score": side["score"],
                    "parts": parts,
                    "chosen": bool(conflict.get("chosen")),
                    "card": conflict.get("card"),
                    "value": conflict.get("value"),
                    "revealed": "value" in conflict,
                    "mine": seat == gv.seat,
                }
            )
        battle_model = {
            "pos": battle["pos"],
            "tile": tile.get("name") if tile else battle["pos"],
            "castle": battle.get("castle"),
            "step": battle["step"],
            "steps": [
                {"n": i + 1, "name": name, "current": i + 1 == battle["step"], "done": i + 1 < battle["step"]}
                for i, name in enumerate(BATTLE_STEPS)
            ],
            "sides": sides,
            "support_turn": names.get(battle["support_turn"])
            if battle.get("support_turn") is not None
            else None,
            "winner": names.get(battle["winner"]) if battle.get("winner") is not None else None,
            "margin": battle.get("margin"),
            "table": [c | {"who": names.get(int(c["seat"]), "?")} for c in battle.get("table", [])],
        }
    active = view.get("active")
    return {
        "turn": view.get("turn"),
        "active_name": names.get(int(active), "?") if active is not None else "",
        "steps": steps,
        "battle": battle_model,
        "manoeuvres_left": view.get("manoeuvres_left"),
    }


def _artefact_owner(view: dict[str, Any], art_id: str) -> tuple[int | None, str]:
    for p in view["players"]:
        for a in p["artefacts"]:
            if a["id"] == art_id:
                return int(p["seat"]), str(a["name"])
    return None, art_id


def _location_label(view: dict[str, Any], seat: int | None, loc: str) -> str:
    if loc == "castle":
        knights = view["players"][seat]["castle_knights"] if seat is not None else 0
        return _("Castle (%(n)s knights)") % {"n": knights}
    tile = next((t for t in view["map"] if t["id"] == loc), None)
    if tile is None:
        return loc
    return _("%(name)s %(id)s (%(n)s knights)") % {
        "name": tile.get("name", ""),
        "id": loc,
        "n": tile.get("knights", 0),
    }


def decision_model(gv: GameView, names: dict[int, str], now: datetime) -> dict[str, Any]:
    """The viewer's decision: one form per kind of legal action (grouped by ``type``), with the prompt key
    and ``expected_seq`` to post back; or who the game waits for and their deadline."""
    view = gv.view
    assert view is not None
    groups = _by_type(gv.legal)
    me = gv.seat
    hand = {c["id"]: c for c in view["players"][me].get("hand", [])} if me is not None else {}
    prompt = gv.my_prompts[0] if gv.my_prompts else None
    forms: dict[str, Any] = {}
    for simple in (
        "end_turn",
        "call_to_arms",
        "tactical_advance",
        "decline_advance",
        "finish_redistribution",
        "pass_support",
    ):
        if simple in groups:
            forms[simple] = True
    if "fracture" in groups:
        options = []
        for a in groups["fracture"]:
            owner, name = _artefact_owner(view, str(a["target"]))
            options.append(
                {
                    "value": a["target"],
                    "label": f"{name} — {names.get(owner, '?') if owner is not None else '?'}",
                }
            )
        forms["fracture"] = options
    if "use_crown" in groups:
        crown = (
            next((a for a in view["players"][me]["artefacts"] if a["type"] == "crown"), None)
            if me is not None
            else None
        )
        uses = groups["use_crown"]
        crown_form: dict[str, Any] = {"name": crown["name"] if crown else _("your crown"), "mode": "plain"}
        if any("artefact" in u for u in uses):
            crown_form["mode"] = "corruption"
            crown_form["options"] = [
                {
                    "value": f"{u['player']}:{u['artefact']}",
                    "label": _artefact_owner(view, str(u["artefact"]))[1]
                    + " — "
                    + names.get(int(u["player"]), "?"),
                }
                for u in uses
                if "artefact" in u
            ]
        elif any("player" in u for u in uses):
            crown_form["mode"] = "player"
            crown_form["options"] = [
                {"value": u["player"], "label": names.get(int(u["player"]), "?")}
                for u in uses
                if "player" in u
            ]
        elif any("card" in u for u in uses):
            discard = {c["id"]: c for c in view["players"][me]["discard"]} if me is not None else {}
            crown_form["mode"] = "card"
            crown_form["options"] = [
                {"value": u["card"], "label": card_label(discard.get(str(u["card"]), {"name": u["card"]}))}
                for u in uses
                if "card" in u
            ]
        forms["use_crown"] = crown_form
    if "redistribute" in groups:
        sources: list[str] = []
        dests: list[str] = []
        for a in groups["redistribute"]:
            for m in a["moves"]:
                if m["from"] not in sources:
                    sources.append(m["from"])
                if m["to"] not in dests:
                    dests.append(m["to"])
        forms["redistribute"] = {
            "sources": [{"value": s, "label": _location_label(view, me, s)} for s in sources],
            "dests": [{"value": d, "label": _location_label(view, me, d)} for d in dests],
            "max": max(
                [view["players"][me]["castle_knights"] if me is not None else 1]
                + [int(t.get("knights", 0)) for t in view["map"] if t["id"] in sources]
            ),
        }
    if "advance" in groups:
        best: dict[str, int] = {}
        for a in groups["advance"]:
            best[str(a["to"])] = max(best.get(str(a["to"]), 0), int(a["knights"]))
        options = []
        for to, most in best.items():
            tile: dict[str, Any] = next((t for t in view["map"] if t["id"] == to), {})
            owner = tile.get("owner")
            who = names.get(int(owner), "?") if owner is not None else _("uncontrolled")
            if tile.get("kind") == "castle":
                who = names.get(int(tile.get("seat", -1)), "?")
            options.append(
                {
                    "value": to,
                    "label": f"{tile.get('name', to)} {to} — {who}",
                    "max": most,
                    "battle": owner is not None or tile.get("kind") == "castle",
                }
            )
        forms["advance"] = {"options": options, "max": max(best.values())}
    if "respond" in groups:
        window = view.get("window") or {}
        targets = []
        for a in groups["respond"]:
            for t in a["fracture"]:
                if t not in targets:
                    targets.append(t)
        forms["respond"] = {
            "kind": window.get("kind"),
            "opener": names.get(int(window["opener"]), "?") if window.get("opener") is not None else "",
            "window_targets": [_artefact_owner(view, str(t))[1] for t in window.get("targets", [])],
            "options": [
                {
                    "value": t,
                    "label": _artefact_owner(view, t)[1]
                    + " — "
                    + names.get(_artefact_owner(view, t)[0] or 0, "?"),
                }
                for t in targets
            ],
            "ranks": range(1, len(targets) + 1),
        }
    if "choose_conflict" in groups:
        forms["choose_conflict"] = [
            hand.get(str(a["card"]), {"id": a["card"], "name": a["card"]}) for a in groups["choose_conflict"]
        ]
    if "play_support" in groups:
        cards: list[str] = []
        for a in groups["play_support"]:
            for c in a["cards"]:
                if c not in cards:
                    cards.append(c)
        forms["play_support"] = [hand.get(c, {"id": c, "name": c}) for c in cards]
    if "discard_choice" in groups:
        forms["discard_choice"] = [
            hand.get(str(a["card"]), {"id": a["card"], "name": a["card"]})
            for a in groups["discard_choice"]
            if a["card"]
        ]
    choice = view.get("choice") or {}
    if "insight_order" in groups:
        look = choice.get("cards") or []
        forms["insight_order"] = {"cards": look, "positions": list(range(len(look)))}
    if "prosperity_choice" in groups:
        target = choice.get("target")
        forms["prosperity_choice"] = {
            "cards": choice.get("cards") or [],
            "target": names.get(int(target), "?") if target is not None else "",
        }
    if "fear_choice" in groups:
        battle = view.get("battle") or {}
        rival = None
        for role, other in (("attacker", "defender"), ("defender", "attacker")):
            if battle.get(role, {}).get("seat") == me:
                rival = battle.get(other, {}).get("knights")
        forms["fear_choice"] = {"rival_knights": rival}
    waiting_seats = sorted({int(p["seat"]) for p in view.get("prompts", []) if p["seat"] != me})
    deadlines = [gv.deadlines[s] for s in waiting_seats if s in gv.deadlines]
    my_deadline = gv.deadlines.get(me) if me is not None and prompt is not None else None
    headline = ""
    if prompt is not None:
        headline = str(PROMPT_HEADLINES.get(str(prompt["kind"]), _("The game waits for your decision.")))
    sig_source = json.dumps(
        {"legal": gv.legal, "keys": [p["key"] for p in gv.my_prompts], "waiting": waiting_seats},
        sort_keys=True,
        default=str,
    )
    return {
        "forms": forms,
        "has_forms": bool(forms),
        "prompt": prompt,
        "prompt_key": prompt["key"] if prompt else "",
        "headline": headline,
        "my_deadline": my_deadline,
        "waiting_names": [names.get(s, "?") for s in waiting_seats],
        "waiting_deadline": min(deadlines) if deadlines else None,
        "spectator": me is None,
        "sig": hashlib.sha1(sig_source.encode(), usedforsecurity=False).hexdigest()[:12],
        "now": now,
    }


def result_model(gv: GameView) -> dict[str, Any] | None:
    """The final result (``None`` while the game runs): winners and every seat's place and VP."""
    game = gv.game
    if game.status != Game.Status.FINISHED:
        return None
    winners = set(game.winners or [])
    rows: list[dict[str, Any]] = sorted(
        (
            {
                "name": s.name,
                "rank": s.final_rank,
                "vp": s.final_vp,
                "winner": s.number in winners,
                "style": seat_style(gv.view, s.number),
            }
            for s in gv.seats
        ),
        key=lambda row: (int(row["rank"] or 99), -int(row["vp"] or 0)),
    )
    return {
        "winners": [r["name"] for r in rows if r["winner"]],
        "rows": rows,
        "finished_at": game.finished_at,
    }


def _localize_names(view: dict[str, Any]) -> None:
    """Give tiles and artefacts of a freshly built view their names in the active language (the content's
    ``name_ko`` in Korean; the other languages keep the printed English names, content.md §5), so the map,
    the panels and the log (``games.log``) name things alike."""
    if not (get_language() or "").startswith("ko"):
        return
    for tile in view["map"]:
        if "name" in tile and tile.get("kind") == "territory":
            tile["name"] = place_name(str(tile["name"]))
    for player in view["players"]:
        for art in player["artefacts"]:
            art["name"] = artefact_name(str(art["id"]))


class PageModel:
    """Everything the game page and its partials show, each part built on first use (``page.board`` in a
    template) and then kept (``functools.cached_property``). The panels are cached per position
    (``{% cache %}``), so a panel whose cached HTML is used never builds its part. An exception raised
    while building a part propagates to the request (a 500 in production, a failing test), instead of being
    read by the template engine as a missing variable.

    Args:
        gv: the viewer's :class:`~games.selectors.GameView` of a started game (``gv.view`` is not ``None``).
        now: the current time (deadlines are shown relative to it).
    """

    def __init__(self, gv: GameView, now: datetime) -> None:
        assert gv.view is not None, "the page model needs a started game's view"
        _localize_names(gv.view)
        self.gv = gv
        self.now = now
        self.view: dict[str, Any] = gv.view
        #: Seat number -> public name.
        self.names = gv.names
        #: The viewer's own player entry of the view (``None`` for a spectator).
        self.me: dict[str, Any] | None = self.view["players"][gv.seat] if gv.seat is not None else None
        self.my_style = seat_style(self.view, gv.seat) if gv.seat is not None else None
        active = self.view.get("active")
        self.active_name = self.names.get(int(active), "?") if active is not None else ""
        self.finished = gv.game.status == Game.Status.FINISHED

    @cached_property
    def texts(self) -> tuple[dict[str, str], dict[str, str]]:
        """(territory texts, artefact texts) of the game's content set, in the active language."""
        return _content_texts(self.gv.game)

    @cached_property
    def board(self) -> dict[str, Any]:
        """The map (:func:`board_model`)."""
        return board_model(self.gv, self.names, self.texts[0])

    @cached_property
    def board_choosing(self) -> bool:
        """Whether the viewer picks a territory on the map now (an advance or a redistribution)."""
        groups = _by_type(self.gv.legal)
        return bool(groups.get("advance") or any(a["moves"] for a in groups.get("redistribute", [])))

    @cached_property
    def players(self) -> list[dict[str, Any]]:
        """The players panel (:func:`players_model`)."""
        return players_model(self.gv, self.names, self.texts[1])

    @cached_property
    def my_team(self) -> Any:
        """The viewer's Allegiance team entry, or ``None`` (R105)."""
        return next((p.get("team_info") for p in self.players if p["is_me"]), None)

    @cached_property
    def hand(self) -> list[dict[str, Any]]:
        """The viewer's hand, each card with its label."""
        return [c | {"label": card_label(c)} for c in (self.me or {}).get("hand", [])]

    @cached_property
    def status(self) -> dict[str, Any]:
        """The status panel (:func:`status_model`)."""
        return status_model(self.gv, self.names)

    @cached_property
    def decision(self) -> dict[str, Any]:
        """The decision panel (:func:`decision_model`)."""
        return decision_model(self.gv, self.names, self.now)

    @cached_property
    def log(self) -> list[dict[str, Any]]:
        """The log entries that have lines to show, newest first."""
        return [entry for entry in self.gv.log if entry["lines"]]

    @cached_property
    def result(self) -> dict[str, Any] | None:
        """The result panel of a finished game (:func:`result_model`)."""
        return result_model(self.gv)


def page_model(gv: GameView, now: datetime) -> PageModel:
    """The :class:`PageModel` of the game page for ``gv`` at ``now``."""
    return PageModel(gv, now)


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
