"""The panels of the game page besides the map and the decision: players (:func:`players_model`), where the
game stands (:func:`status_model`, with the battle under way) and the final result (:func:`result_model`)."""

from __future__ import annotations

from collections import defaultdict

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_stubs_ext import StrPromise

from games import engine
from games.components import place_labels
from games.models import Game
from games.selectors import GameView
from games.web.presenters.common import seat_style
from games.web.presenters.shapes import (
    BattleModel,
    BattleSideModel,
    PlayerPanel,
    ResultModel,
    ResultRow,
    StatusModel,
    StepItem,
    TeamInfo,
)

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


MOD_LABELS: dict[str, StrPromise] = {
    "knights": gettext_lazy("knights"),
    "conflict": gettext_lazy("conflict"),
    "support": gettext_lazy("support"),
    "rage": gettext_lazy("Sceptre of Rage"),
    "loyalty": gettext_lazy("Sceptre of Loyalty"),
}


def players_model(gv: GameView, names: dict[int, str]) -> list[PlayerPanel]:
    """Player panels: colour, name, VP towards the goal, knights, dice, card counts, discard, artefacts,
    team (:class:`~.shapes.PlayerPanel` each)."""
    view = gv.view
    assert view is not None
    victory = view["victory"]
    teams: dict[int, list[int]] = defaultdict(list)
    for p in view["players"]:
        if p["team"] is not None:
            teams[p["team"]].append(p["seat"])
    bots = {s.number for s in gv.seats if s.is_bot}
    out: list[PlayerPanel] = []
    for p in view["players"]:
        seat = p["seat"]
        threshold = victory.get("player") or 0
        item: PlayerPanel = {
            **p,
            "name": names.get(seat, "?"),
            "style": seat_style(view, seat),
            "is_me": seat == gv.seat,
            "is_bot": seat in bots,
            "is_active": seat == view["active"] and not view["winners"],
            "team_info": _team_info(view, p, teams, names),
            "threshold": threshold,
            "pct": min(100, round(100 * p["vp"] / threshold)) if threshold else 0,
            "artefacts": list(p["artefacts"]),
            "discard": list(reversed(p["discard"])),  # newest first
        }
        item.pop("hand", None)  # the hand is shown in its own panel, to its owner only
        out.append(item)
    return out


def _team_info(
    view: engine.View, player: engine.PlayerView, teams: dict[int, list[int]], names: dict[int, str]
) -> TeamInfo | None:
    """``player``'s Allegiance team (R105, R109) with its VP towards the team goal; ``None`` without a team.
    ``teams``: team number -> its seats."""
    if player["team"] is None:
        return None
    members = teams[player["team"]]
    team_vp = sum(view["players"][m]["vp"] for m in members)
    team_threshold = view["victory"].get("team", {}).get(str(len(members)), 0)
    return {
        "number": player["team"] + 1,
        "mates": [names.get(m, "?") for m in members if m != player["seat"]],
        "vp": team_vp,
        "threshold": team_threshold,
        "pct": min(100, round(100 * team_vp / team_threshold)) if team_threshold else 0,
    }


def _current_turn_steps(view: engine.View) -> set[int]:
    """The one rulebook turn step (1–9, R26) the game is at (issue 16: exactly one is highlighted): a
    battle is step 6; a manoeuvre waiting for its advance step 5; a crown's use, its window or its choice
    step 3 while a manoeuvre is left, else 8; the free window step 2 while a manoeuvre is left, else 7.
    Empty once the game is over."""
    phase = view["phase"]
    window = view["window"]
    before = view["manoeuvres_left"] > 0
    if phase == engine.Phase.OVER:
        return set()
    if view["battle"] is not None:
        return {6}
    if phase == engine.Phase.MANOEUVRE:
        return {5}
    if phase in (engine.Phase.VITALITY, engine.Phase.CHOICE) or (
        phase == engine.Phase.RESPONSE and window is not None and window["kind"] == engine.ArtefactType.CROWN
    ):
        return {3} if before else {8}
    return {2} if before else {7}


def status_model(gv: GameView, names: dict[int, str]) -> StatusModel:
    """Where we are: the nine turn steps with the current ones marked and, during a battle, the nine battle
    steps and both combat scores broken down by source.

    Returns:
        A :class:`~.shapes.StatusModel`: ``{"turn", "active_name", "steps": [{"n", "name", "current"}],
        "battle": battle dict or None, "manoeuvres_left"}``.
    """
    view = gv.view
    assert view is not None
    current = _current_turn_steps(view)
    steps: list[StepItem] = [
        {"n": i + 1, "name": name, "current": i + 1 in current} for i, name in enumerate(TURN_STEPS)
    ]
    battle = view["battle"]
    return {
        "turn": view["turn"],
        "active_name": names.get(view["active"], "?"),
        "steps": steps,
        "battle": _battle_model(gv, battle, names) if battle is not None else None,
        "manoeuvres_left": view["manoeuvres_left"],
    }


def _battle_model(gv: GameView, battle: engine.BattleView, names: dict[int, str]) -> BattleModel:
    """The battle under way: position, steps, both sides, support turn, result and cards on the table."""
    view = gv.view
    assert view is not None
    tile = next((t for t in view["map"] if t["id"] == battle["pos"]), None)
    label = place_labels(view).get(battle["pos"])  # the map's name, never the id (issue 29)
    return {
        "pos": battle["pos"],
        "tile": label[0] if label else str(tile.get("name", "")) if tile else "",
        "castle": battle["castle"],
        "step": battle["step"],
        "steps": [
            {"n": i + 1, "name": name, "current": i + 1 == battle["step"], "done": i + 1 < battle["step"]}
            for i, name in enumerate(BATTLE_STEPS)
        ],
        "sides": [
            _battle_side(gv, battle["attacker"], "attacker", names),
            _battle_side(gv, battle["defender"], "defender", names),
        ],
        "support_turn": _name_or_none(names, battle["support_turn"]),
        "winner": _name_or_none(names, battle["winner"]),
        "margin": battle["margin"],
        "table": [{**c, "who": names.get(c["seat"], "?")} for c in battle["table"]],
    }


def _name_or_none(names: dict[int, str], seat: int | None) -> str | None:
    """The public name of ``seat`` (``None`` when there is no seat, or no such name)."""
    return None if seat is None else names.get(seat)


def _battle_side(
    gv: GameView, side: engine.BattleSideView, role: str, names: dict[int, str]
) -> BattleSideModel:
    """One ``side`` of a battle (``role``: ``"attacker"`` or ``"defender"``): who, knights, score parts,
    conflict card."""
    seat = side["seat"]
    conflict = side["conflict"]
    return {
        "role": role,
        "seat": seat,
        "name": names.get(seat, "?"),
        "style": seat_style(gv.view, seat),
        "knights": side["knights"],
        "score": side["score"],
        "parts": [{"label": _part_label(p["source"], names), "value": p["value"]} for p in side["parts"]],
        "chosen": conflict["chosen"],
        "card": conflict.get("card"),
        "value": conflict.get("value"),
        "revealed": "value" in conflict,
        "mine": seat == gv.seat,
    }


def _part_label(source: str, names: dict[int, str]) -> str:
    """The label of a combat score part: "support from Ada", "knights", "Sceptre of Rage", …"""
    if source.startswith("support_s") and source[9:].isdigit():
        return _("support from %(who)s") % {"who": names.get(int(source[9:]), "?")}
    return str(MOD_LABELS.get(source, source.replace("_", " ").capitalize()))


def result_model(gv: GameView) -> ResultModel | None:
    """The final result (``None`` while the game runs): winners and every seat's place and VP."""
    game = gv.game
    if game.status != Game.Status.FINISHED:
        return None
    winners = set(game.winners or [])
    rows: list[ResultRow] = sorted(
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
