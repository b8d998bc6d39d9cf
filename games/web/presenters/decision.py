"""The decision panel of the game page (:func:`decision_model`): one form per kind of legal action, built by
the form builder of its :class:`~games.engine.ActionType` (plain actions are a single button), with the
prompt's headline and key, or who the game waits for."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_stubs_ext import StrPromise

from games import engine
from games.actions_ui import ACTION_KINDS, FormShape
from games.bots import stand_ins
from games.components import DEFAULT_CONTENT, artefact_name, content_of, place_labels, territory_name
from games.engine import ActionType, PromptKind
from games.selectors import GameView
from games.web.presenters.common import (
    LegalActions,
    actions_by_type,
    artefact_owner,
    card_label,
    crown_of,
)
from games.web.presenters.shapes import (
    AdvanceForm,
    AdvanceOption,
    CardStub,
    ChoiceOption,
    CrownForm,
    DecisionForm,
    DecisionModel,
    FearForm,
    InsightForm,
    ProsperityForm,
    RedistributeForm,
    RespondForm,
    TargetOption,
    UndoModel,
    WaitingModel,
    WindowAnswer,
    WindowArtefact,
)
from games.web.presenters.undo import undo_model
from games.web.presenters.why_not import why_not

PROMPT_HEADLINES: dict[str, StrPromise] = {
    PromptKind.TURN: gettext_lazy(
        "Your turn: play resource cards, use your crown, start a manoeuvre or end your turn."
    ),
    PromptKind.MANOEUVRE: gettext_lazy(
        "Your manoeuvre: redistribute knights, then advance or decline to advance."
    ),
    PromptKind.VITALITY: gettext_lazy("Crown of Vitality: redistribute your knights, then finish."),
    PromptKind.RESPONSE: gettext_lazy("A Fracture window is open: fracture an artefact or pass."),
    PromptKind.CONFLICT: gettext_lazy(
        "Battle: choose your conflict card. It stays face down until both have chosen."
    ),
    PromptKind.SUPPORT: gettext_lazy("Battle: your support turn. Play support cards or pass."),
    PromptKind.MAY_DISCARD: gettext_lazy("You may discard any 1 card from your hand."),
    PromptKind.INSIGHT_ORDER: gettext_lazy("Crown of Insight: put the cards back on your deck in any order."),
    PromptKind.PROSPERITY: gettext_lazy("Crown of Prosperity: keep the top card on the deck or discard it."),
    PromptKind.FEAR: gettext_lazy("You may fight as though you had as many knights as your rival."),
}

#: The rule behind a "may discard any 1 card" offer, by what gives it (issue 29): a conquered territory
#: (R86), a crown (Fury, R41) or an orb (Preparation, Cleansing, R75).
_DISCARD_RULES = {"territory": "R86", "crown": "R41", "orb": "R75", "sceptre": "R65"}


def prompt_headline(prompt: Mapping[str, object], view: engine.View) -> str:
    """The headline of the viewer's ``prompt`` (:data:`PROMPT_HEADLINES`). A "may discard" offer says what
    gives it and the rule (issue 29): "You conquered the Fortress, so you may discard any 1 card from your
    hand — R86." (the page links the rule number, ``rule_links``).

    Args:
        prompt: one of ``GameView.my_prompts`` (its ``detail.source`` names the territory type or artefact
            ability of a choice).
        view: the viewer's view (its content set names the source).
    """
    kind = str(prompt["kind"])
    plain = str(PROMPT_HEADLINES.get(kind, _("The game waits for your decision.")))
    detail = prompt.get("detail") or {}  # a dict (``engine.Prompt.to_dict``)
    source = str(detail.get("source", "")) if isinstance(detail, dict) else ""
    content = content_of(str(view.get("content", {}).get("id", DEFAULT_CONTENT)))
    if kind != PromptKind.MAY_DISCARD or not source or content is None:
        return plain
    if source in content.territory_types:
        return _("You conquered the %(tile)s, so you may discard any 1 card from your hand — %(rule)s.") % {
            "tile": territory_name(source, content),
            "rule": _DISCARD_RULES["territory"],
        }
    art = next((a for a in content.artefacts.values() if a.ability == source), None)
    if art is None:
        return plain
    return _("Your %(artefact)s lets you discard any 1 card from your hand — %(rule)s.") % {
        "artefact": artefact_name(art.id, content),
        "rule": _DISCARD_RULES.get(art.type, "R102"),
    }


@dataclass(frozen=True, slots=True)
class _Context:
    """What the form builders read: the viewer's ``view``, seat ``me`` (``None``: spectator), ``names``
    (seat -> name), ``hand`` (card id -> card of the viewer's hand) and ``places`` (territory id ->
    (label, short), :func:`~games.web.presenters.common.place_labels`)."""

    view: engine.View
    me: int | None
    names: dict[int, str]
    hand: dict[str, engine.CardView]
    places: dict[str, tuple[str, str]]

    def name(self, seat: int) -> str:
        """The name of a seat number (``"?"`` when unknown)."""
        return self.names.get(int(seat), "?")


def _location_label(ctx: _Context, loc: str) -> str:
    """A redistribution place as the map names it, with the viewer's knights there: "Your castle (4
    knights)", "Forest (north-west) (2 knights)" (issue 16: never an internal id)."""
    view, seat = ctx.view, ctx.me
    if loc == "castle":
        knights = view["players"][seat]["castle_knights"] if seat is not None else 0
        return _("Castle (%(n)s knights)") % {"n": knights}
    tile = next((t for t in view["map"] if t["id"] == loc), None)
    if tile is None:
        return loc
    return _("%(name)s (%(n)s knights)") % {
        "name": ctx.places.get(loc, (str(tile.get("name", loc)), ""))[0],
        "n": tile.get("knights", 0),
    }


_T = TypeVar("_T")


def _unique(values: Iterable[_T]) -> list[_T]:
    """The values in first-seen order, each once."""
    out: list[_T] = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


def _target_option(ctx: _Context, value: str, owner: int | None, name: str) -> TargetOption:
    """One entry of a target list: ``{"value", "label" ("Sceptre of Rage — Bot 1", or "… (yours)" for the
    viewer's own), "own"}``."""
    own = owner is not None and owner == ctx.me
    who = _("(yours)") if own else (ctx.name(owner) if owner is not None else "?")
    return {"value": value, "label": f"{name} — {who}", "own": own}


def _others_first(options: list[TargetOption]) -> list[TargetOption]:
    """Target options with the viewer's own listed last (issue 29: never the first, never pre-selected)."""
    return sorted(options, key=lambda o: bool(o.get("own")))


def _fracture_form(ctx: _Context, legal: LegalActions) -> list[TargetOption]:
    options = []
    for a in legal.of(engine.Fracture):
        owner, name = artefact_owner(ctx.view, a.target)
        options.append(_target_option(ctx, a.target, owner, name))
    return _others_first(options)


def _crown_form(ctx: _Context, legal: LegalActions) -> CrownForm:
    view, me = ctx.view, ctx.me
    uses = legal.of(engine.UseCrown)
    crown = crown_of(view["players"][me]) if me is not None else None
    form: CrownForm = {"name": crown["name"] if crown else _("your crown"), "mode": "plain"}
    targeted = [(u.player, u.artefact) for u in uses if u.artefact is not None and u.player is not None]
    players = [u.player for u in uses if u.player is not None]
    cards = [u.card for u in uses if u.card is not None]
    if targeted:
        form["mode"] = "corruption"
        form["options"] = _others_first(
            [
                _target_option(ctx, f"{player}:{artefact}", player, artefact_owner(view, artefact)[1])
                for player, artefact in targeted
            ]
        )
    elif players:
        form["mode"] = "player"
        form["options"] = _others_first(
            [{"value": player, "label": ctx.name(player), "own": player == me} for player in players]
        )
    elif cards:
        discard = {c["id"]: c for c in view["players"][me]["discard"]} if me is not None else {}
        form["mode"] = "card"
        card_options: list[ChoiceOption] = [
            {"value": card, "label": _card_label_or_id(discard.get(card), card)} for card in cards
        ]
        form["options"] = card_options
    elif crown is not None and crown["ability"] == "order":
        # the Crown of Order with no card to return does nothing (R101): the form says so, and using it
        # anyway asks first (confirm.py)
        form["idle"] = _("No card was discarded on a previous turn, so using it now changes nothing.")
    return form


def _redistribute_form(ctx: _Context, legal: LegalActions) -> RedistributeForm:
    view, me = ctx.view, ctx.me
    moves = [m for a in legal.of(engine.Redistribute) for m in a.moves]
    sources = _unique(m.src for m in moves)
    dests = _unique(m.dst for m in moves)
    return {
        "sources": [
            {
                "value": s,
                "label": _location_label(ctx, s),
                "dests": " ".join(_unique(m.dst for m in moves if m.src == s)),
            }
            for s in sources
        ],
        "dests": [{"value": d, "label": _location_label(ctx, d)} for d in dests],
        "max": max(
            [view["players"][me]["castle_knights"] if me is not None else 1]
            + [int(t.get("knights", 0)) for t in view["map"] if t["id"] in sources]
        ),
    }


def _card_label_or_id(card: engine.CardView | None, card_id: str) -> str:
    """The label of ``card``, or its id when the viewer cannot see it."""
    return card_id if card is None else card_label(card)


def _advance_form(ctx: _Context, legal: LegalActions) -> AdvanceForm:
    best: dict[str, int] = {}
    for a in legal.of(engine.Advance):
        best[a.to] = max(best.get(a.to, 0), a.knights)
    options: list[AdvanceOption] = []
    for to, most in best.items():
        tile = next((t for t in ctx.view["map"] if t["id"] == to), None)
        owner = tile.get("owner") if tile is not None else None
        castle = tile is not None and tile["kind"] == "castle"
        who = ctx.name(owner) if owner is not None else _("uncontrolled")
        if tile is not None and castle:
            who = ctx.name(tile.get("seat", -1))
        name = ctx.places.get(to, (str(tile.get("name", to)) if tile is not None else to, ""))[0]
        options.append(
            {
                "value": to,
                "label": f"{name} — {who}",
                "max": most,
                "battle": owner is not None or castle,
            }
        )
    return {"options": options, "max": max(best.values())}


def _respond_form(ctx: _Context, legal: LegalActions) -> RespondForm:
    view = ctx.view
    window = view["window"]
    targets = _unique(t for a in legal.of(engine.Respond) for t in a.fracture)
    in_turn = window is not None and window["mode"] == "in_turn"
    answers: list[WindowAnswer] = [
        {
            "who": ctx.name(a["seat"]),
            "target": artefact_owner(view, a["fracture"])[1] if a["fracture"] else None,
        }
        for a in (window["answers"] if window is not None else [])
    ]
    return {
        "kind": window["kind"] if window is not None else None,
        "opener": ctx.name(window["opener"]) if window is not None else "",
        # each artefact of the window with its owner and what it does (issue 15)
        "window_targets": [_window_artefact(ctx, t) for t in window["targets"]] if window else [],
        # in turn (R37, issue 14): one target, played at once, after the answers of the seats before
        "in_turn": in_turn,
        "answers": answers,
        "options": _others_first(
            [
                _target_option(ctx, str(t), artefact_owner(view, t)[0], artefact_owner(view, t)[1])
                for t in targets
            ]
        ),
        "ranks": range(1, 2 if in_turn else len(targets) + 1),
    }


def _window_artefact(ctx: _Context, art_id: str) -> WindowArtefact:
    """An artefact of a response window: ``{"name", "who" (its owner's name), "text" (when and what, as
    :func:`games.components.localized_view` wrote it: to its owner "When you defend …", to anyone else
    "When its owner defends …", issue 29)}``."""
    for player in ctx.view["players"]:
        for art in player["artefacts"]:
            if art["id"] == art_id:
                mine = player["seat"] == ctx.me
                return {
                    "name": art["name"],
                    "who": ctx.name(player["seat"]),
                    "text": str(art.get("text" if mine else "of_owner") or art.get("text", "")),
                }
    return {"name": art_id, "who": "", "text": ""}


def _card(ctx: _Context, card_id: str) -> engine.CardView | CardStub:
    """The viewer's card of that id, or a stand-in named by the id."""
    card = ctx.hand.get(str(card_id))
    return card if card is not None else {"id": card_id, "name": card_id}


def _conflict_form(ctx: _Context, legal: LegalActions) -> list[engine.CardView | CardStub]:
    return [_card(ctx, a.card) for a in legal.of(engine.ChooseConflict)]


def _support_form(ctx: _Context, legal: LegalActions) -> list[engine.CardView | CardStub]:
    return [_card(ctx, c) for c in _unique(c for a in legal.of(engine.PlaySupport) for c in a.cards)]


def _discard_form(ctx: _Context, legal: LegalActions) -> list[engine.CardView | CardStub]:
    return [_card(ctx, a.card) for a in legal.of(engine.DiscardChoice) if a.card]


def _insight_form(ctx: _Context, legal: LegalActions) -> InsightForm:
    choice = ctx.view["choice"]
    look = choice.get("cards", []) if choice is not None else []
    return {"cards": look, "positions": list(range(len(look)))}


def _prosperity_form(ctx: _Context, legal: LegalActions) -> ProsperityForm:
    choice = ctx.view["choice"]
    if choice is None:
        return {"cards": [], "target": ""}
    target = choice.get("target")
    return {"cards": choice.get("cards", []), "target": ctx.name(target) if target is not None else ""}


def _fear_form(ctx: _Context, legal: LegalActions) -> FearForm:
    battle = ctx.view["battle"]
    rival = None
    if battle is not None:
        sides = (battle["attacker"], battle["defender"])
        for mine, theirs in (sides, sides[::-1]):
            if mine["seat"] == ctx.me:
                rival = theirs["knights"]
    return {"rival_knights": rival}


#: The form builder of every action type that is not :attr:`~games.actions_ui.FormShape.PLAIN` (a plain
#: one is a button: its form is ``True``): ``(context, the legal actions) -> what the template shows``; each
#: reads its own type's actions (``legal.of(engine.Advance)``).
FORM_BUILDERS: dict[ActionType, Callable[[_Context, LegalActions], DecisionForm]] = {
    ActionType.FRACTURE: _fracture_form,
    ActionType.USE_CROWN: _crown_form,
    ActionType.REDISTRIBUTE: _redistribute_form,
    ActionType.ADVANCE: _advance_form,
    ActionType.RESPOND: _respond_form,
    ActionType.CHOOSE_CONFLICT: _conflict_form,
    ActionType.PLAY_SUPPORT: _support_form,
    ActionType.DISCARD_CHOICE: _discard_form,
    ActionType.INSIGHT_ORDER: _insight_form,
    ActionType.PROSPERITY_CHOICE: _prosperity_form,
    ActionType.FEAR_CHOICE: _fear_form,
}


def decision_forms(gv: GameView, names: dict[int, str]) -> dict[str, Literal[True] | DecisionForm]:
    """The viewer's forms: action type (its string value) -> what its form shows, for every type with at
    least one legal action, in :data:`games.actions_ui.ACTION_KINDS` order (empty for a spectator or a
    seat the game does not wait for)."""
    view = gv.view
    assert view is not None
    me = gv.seat
    hand = {c["id"]: c for c in view["players"][me].get("hand", [])} if me is not None else {}
    ctx = _Context(view, me, names, hand, place_labels(view))
    groups = actions_by_type(gv.legal)
    forms: dict[str, Literal[True] | DecisionForm] = {}
    for kind in ACTION_KINDS.values():
        if kind.type in groups:
            forms[kind.type.value] = (
                True if kind.shape == FormShape.PLAIN else FORM_BUILDERS[kind.type](ctx, groups)
            )
    return forms


def decision_model(gv: GameView, names: dict[int, str], now: datetime) -> DecisionModel:
    """The viewer's decision: one form per kind of legal action (grouped by ``type``), with the prompt key
    and ``expected_seq`` to post back; or who the game waits for and their deadline.

    Args:
        gv: the viewer's view of a started game.
        names: seat number -> public name.
        now: the current time (deadlines are shown relative to it).

    Returns:
        A :class:`~.shapes.DecisionModel`:
        ``{"forms" (:func:`decision_forms`), "has_forms", "prompt" (the viewer's first prompt dict or
        ``None``), "prompt_key", "headline", "my_deadline", the keys of :func:`waiting_model`, "spectator",
        "sig" (12 hex digits that change when the decision does), "now", "why_not"
        (:func:`.why_not.why_not`), "undo" (:func:`.undo.undo_model`)}``.
    """
    view = gv.view
    assert view is not None
    me = gv.seat
    prompt = gv.my_prompts[0] if gv.my_prompts else None
    forms = decision_forms(gv, names)
    waiting_seats = sorted({int(p["seat"]) for p in view.get("prompts", []) if p["seat"] != me})
    waits = waiting_model(gv, waiting_seats, names)
    headline = ""
    if prompt is not None:
        headline = prompt_headline(prompt, view)
    undo = undo_model(gv, names)
    return {
        "forms": forms,
        "has_forms": bool(forms),
        "prompt": prompt,
        "prompt_key": str(prompt["key"]) if prompt else "",
        "headline": headline,
        "my_deadline": gv.deadlines.get(me) if me is not None and prompt is not None else None,
        **waits,
        "spectator": me is None,
        "sig": _signature(gv, waiting_seats, undo),
        "now": now,
        "why_not": why_not(view, gv.blocked, gv.legal, me),
        "undo": undo,
    }


def waiting_model(gv: GameView, waiting_seats: list[int], names: dict[int, str]) -> WaitingModel:
    """Who the viewer waits for, in words that say no more than the viewer may know (issue 29 §1).

    * In a Fracture window nobody is named: "Waiting for the other players" (a bot that thinks there, or
      a person's pass held for the masking delay, would otherwise tell who holds Fracture).
    * A seat a bot plays is never waited for with a deadline: it is "thinking" (a hard bot plays after the
      request, :data:`games.services.play.DEFERRED_LEVELS`; the other levels answer inside it).
    * People are named with the nearest deadline of theirs.

    Args:
        gv: the viewer's view. waiting_seats: the seats the game waits for, the viewer's own left out.
        names: seat -> public name.

    Returns:
        A :class:`~.shapes.WaitingModel`:
        ``{"waiting_window" (bool), "thinking_names", "waiting_names" (lists of names), "waiting_deadline"
        (datetime or ``None``), "own_auto" (the sentence for a decision the server takes for the viewer,
        or ""), "rest_of_turn" (bool: it is the viewer's own turn, interrupted by what others decide, so
        the rest of it can be written as pending orders, issue 30)}``.
    """
    assert gv.view is not None
    bots = stand_ins(gv.seats)
    window = gv.view["window"] is not None and bool(waiting_seats)
    people = [s for s in waiting_seats if s not in bots]
    thinking = [] if window else [s for s in waiting_seats if s in bots]
    deadlines = [gv.deadlines[s] for s in (waiting_seats if window else people) if s in gv.deadlines]
    own_auto = ""
    if PromptKind.CONFLICT in gv.auto_kinds:
        own_auto = _("You hold one kind of conflict card, so it is placed face down for you (R68).")
    return {
        "waiting_window": window,
        "thinking_names": [names.get(s, "?") for s in thinking],
        "waiting_names": [] if window else [names.get(s, "?") for s in people],
        "waiting_deadline": min(deadlines) if deadlines else None,
        "own_auto": own_auto,
        "rest_of_turn": rest_of_turn(gv),
    }


def rest_of_turn(gv: GameView) -> bool:
    """Whether it is the viewer's own turn, interrupted (a battle, a window, a choice: no plain turn
    decision of theirs is open), so the rest of it can be written now as pending orders (issue 30, as
    :func:`games.services.pending.can_queue` allows)."""
    if gv.seat is None or gv.view is None or gv.view["active"] != gv.seat or gv.view["winners"]:
        return False
    return not any(p["kind"] == PromptKind.TURN for p in gv.my_prompts)


def _signature(gv: GameView, waiting_seats: list[int], undo: UndoModel | None) -> str:
    """12 hex digits of what the panel shows: the legal actions, the viewer's prompt keys, the seats waited
    for, the undo offer and whether the game is over (the page's poll swaps the panel only when they
    change; without the winners, a game that ended while the viewer had nothing to decide kept saying
    "Nothing to decide right now")."""
    assert gv.view is not None
    sig_source = json.dumps(
        {
            "legal": [a.to_dict() for a in gv.legal],
            "keys": [p["key"] for p in gv.my_prompts],
            "waiting": waiting_seats,
            "undo": undo,
            "winners": gv.view["winners"],
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha1(sig_source.encode(), usedforsecurity=False).hexdigest()[:12]
