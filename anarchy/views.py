"""The Anarchy's pages (issue 33): the game's home, today's puzzle, its leaderboard and the planner.

Views are thin: read the request into the engine's values (``forms``), call the service (``puzzles``) or
the engine, and render. What the daily page shows before an answer is built from the position alone,
whose face-down cards have no face: the hidden faces (``puzzles.puzzle_faces``) are read only for a player
who has answered.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.models import User
from anarchy import inbound, puzzles
from anarchy import planner as planner_solves
from anarchy.engine import (
    CORNERS,
    LETTERS,
    SIDES,
    AnarchyError,
    AttackType,
    Card,
    Damage,
    Deployment,
    Move,
    Position,
    Resolution,
    Tactic,
    cards_of,
    deck,
    narrate,
    solve,
    write_deployment,
)

from .forms import (
    CORNER_LABELS,
    KIND_LABELS,
    SIDE_LABELS,
    TACTIC_LABELS,
    TYPE_LABELS,
    DeploymentForm,
    PlannerForm,
)
from .messages import reason

# ----------------------------------------------------------------------------------------------------------
# Shapes: what the templates show
# ----------------------------------------------------------------------------------------------------------


def card_shape(card: Card, values: Sequence[int]) -> dict[str, Any]:
    """A face-up card: id, type, skull, and per attacked side its letter and strength (with ``values``)."""
    strengths = dict(card.strengths(tuple(values)))
    sides = [
        {"side": SIDE_LABELS[SIDES[j]], "letter": letter, "strength": strengths[j]}
        for j, letter in card.sides
    ]
    castle = {"letter": card.castle, "strength": values[LETTERS.index(card.castle)]} if card.castle else None
    return {
        "id": card.id,
        "type": TYPE_LABELS[str(card.type)],
        "type_key": str(card.type),
        "skull": card.skull,
        "sides": sides,
        "castle": castle,
    }


def row_shape(position: Position, faces: Mapping[int, str] | None = None) -> list[dict[str, Any]]:
    """The row left to right. Without ``faces`` a face-down card shows its back's type only; with them (after
    an answer) it shows the revealed face, marked as revealed."""
    cards = deck()
    out = []
    for i, slot in enumerate(position.row):
        card_id = slot.card if slot.card is not None else (faces or {}).get(i)
        out.append(
            {
                "number": i + 1,
                "final": i == 0,
                "back": TYPE_LABELS[str(slot.back)],
                "face_down": slot.face_down,
                "card": card_shape(cards[card_id], position.values) if card_id is not None else None,
            }
        )
    return out


def castle_shape(position: Position) -> dict[str, Any]:
    """The Castle and the player's means: Walls per side, Towers per corner, Gate, Moat, Tactics, Workers,
    Beer, Muster Tokens, Food, and the round's values and Determination."""
    return {
        "round": position.round,
        "values": list(zip(LETTERS, position.values, strict=True)),
        "determination": position.determination,
        "walls": [{"side": SIDE_LABELS[s], "level": w} for s, w in zip(SIDES, position.walls, strict=True)],
        "towers": [
            {"corner": CORNER_LABELS[c], "level": t} for c, t in zip(CORNERS, position.towers, strict=True)
        ],
        "gate": position.gate,
        "moat": position.moat,
        "tactics": [{"name": TACTIC_LABELS[str(t)], "count": position.tactic(t)} for t in Tactic],
        "workers": [
            {"name": KIND_LABELS["craftsmen"], "count": position.craftsmen},
            {"name": KIND_LABELS["soldiers"], "count": position.soldiers},
            {"name": KIND_LABELS["knights"], "count": position.knights},
        ],
        "total_workers": position.workers,
        "beer": position.beer,
        "muster": position.muster,
        "food": position.food,
    }


def deployment_shape(deployment: Deployment) -> list[dict[str, Any]]:
    """A deployment as a table: per side, Craftsmen, Soldiers and Knights."""
    return [
        {"side": SIDE_LABELS[side], "counts": list(counts)}
        for side, counts in zip(SIDES, deployment.sides, strict=True)
    ]


def damage_words(damage: Damage) -> str:
    """Who took one side's damage (D11–D13), in the reader's language: e.g. "1 Knight laid down, 2
    Craftsmen or Soldiers spent, 1 Beer"; "none" when the Workers took nothing."""
    parts = []
    if damage.knights:
        parts.append(
            ngettext("%(n)d Knight spent", "%(n)d Knights spent", damage.knights) % {"n": damage.knights}
        )
    if damage.knights_down:
        n = damage.knights_down
        parts.append(ngettext("%(n)d Knight laid down", "%(n)d Knights laid down", n) % {"n": n})
    if damage.men:
        n = damage.men
        parts.append(
            ngettext("%(n)d Craftsman or Soldier spent", "%(n)d Craftsmen or Soldiers spent", n) % {"n": n}
        )
    if damage.men_down:
        n = damage.men_down
        parts.append(
            ngettext("%(n)d Craftsman or Soldier laid down", "%(n)d Craftsmen or Soldiers laid down", n)
            % {"n": n}
        )
    if damage.laid:
        n = damage.laid
        parts.append(ngettext("%(n)d laid-down Worker spent", "%(n)d laid-down Workers spent", n) % {"n": n})
    if damage.beer:
        parts.append(ngettext("%(n)d Beer", "%(n)d Beer", damage.beer) % {"n": damage.beer})
    return ", ".join(parts) or _("none")


#: The kinds of unit a Muster Token moves (``Move.kind``), in the reader's language.
MOVED_KINDS = (
    gettext_lazy("a Craftsman or Soldier"),
    gettext_lazy("a Knight"),
    gettext_lazy("a laid-down Worker"),
)


def move_words(move: Move) -> str:
    """One Muster move (D14) in the reader's language: "a Knight from the left to the top"."""
    return _("%(unit)s from %(source)s to %(target)s") % {
        "unit": MOVED_KINDS[move.kind],
        "source": SIDE_LABELS[SIDES[move.source]],
        "target": SIDE_LABELS[SIDES[move.target]],
    }


def resolution_shape(resolution: Resolution, values: Sequence[int]) -> dict[str, Any]:
    """The resolution step by step (right to left, the Final Escalade last) and its totals."""
    steps = []
    for step in resolution.steps:
        steps.append(
            {
                "number": step.row_index + 1,
                "card": card_shape(step.card, values),
                "moves": [move_words(move) for move in step.moves],
                "sides": [
                    {
                        "side": SIDE_LABELS.get(side.side, side.side),
                        "strength": side.strength,
                        "fortified": side.fortified,
                        "tactics": side.tactics,
                        "beer": side.beer,
                        "workers": damage_words(side.damage),
                        "held": side.held,
                    }
                    for side in step.sides
                ],
                "castle": step.castle,
                "covers": step.covers,
                "defended": step.defended,
                "bravery": step.bravery,
            }
        )
    return {
        "steps": steps,
        "undefended": resolution.undefended,
        "loyalty": resolution.loyalty,
        "discontent": resolution.discontent,
        "food_discontent": resolution.food_discontent,
        "bravery": resolution.bravery,
        "kept": resolution.kept,
        "serfs": resolution.serfs,
    }


def _user(request: HttpRequest) -> User | None:
    user = request.user
    return user if isinstance(user, User) else None


def _parse_day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise Http404(_("No such day.")) from None


# ----------------------------------------------------------------------------------------------------------
# Pages
# ----------------------------------------------------------------------------------------------------------


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    """The game's home: today's puzzle, the planner, and how it works."""
    day = puzzles.today()
    puzzle = puzzles.puzzle_for(day)
    position = puzzles.puzzle_position(puzzle)
    user = _user(request)
    answer = puzzles.answer_of(puzzle, user)
    return render(
        request,
        "anarchy/index.html",
        {
            "day": day,
            "position": castle_shape(position),
            "cards": len(position.row),
            "face_down": len(position.face_down()),
            "answer": answer,
            "streak": puzzles.streak(user, day) if user is not None else None,
            "mailing": _mailing(user),
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
def daily(request: HttpRequest) -> HttpResponse:
    """Today's puzzle. GET: the position (face-down cards show their back only), the deployment form, and
    after an answer the reveal, the resolution, the score and then the solver's best. POST (signed in):
    answer once; a second answer changes nothing and shows the first one's result."""
    day = puzzles.today()
    puzzle = puzzles.puzzle_for(day)
    position = puzzles.puzzle_position(puzzle)
    user = _user(request)
    answer = puzzles.answer_of(puzzle, user)
    form: DeploymentForm | None = None
    status = 200
    if request.method == "POST":
        if user is None:
            return redirect_to_login(request.get_full_path())
        if answer is not None:
            messages.info(request, _("You have already answered today's puzzle: here is your result."))
            return redirect(reverse("anarchy:daily") + "#result")
        form = DeploymentForm(request.POST, position=position)
        if form.is_valid():
            try:
                puzzles.answer_submit(puzzle, user, form.cleaned_data["deployment"])
            except AnarchyError as error:  # the form checked it; the engine has the last word
                form.add_error(None, reason(error))
                status = 400
            else:
                return redirect(reverse("anarchy:daily") + "#result")
        else:
            status = 400
    elif answer is None:
        form = DeploymentForm(position=position)
    context: dict[str, Any] = {
        "day": day,
        "castle": castle_shape(position),
        "form": form,
        "answer": answer,
        "row": row_shape(position),
        "revealed": None,
        "result": None,
        "best": None,
        "yours": None,
        "mailing": _mailing(user),
    }
    if answer is not None:  # only now may the hidden faces and the solver's result be read
        resolution = puzzles.answer_resolution(answer)
        best = puzzles.puzzle_best(puzzle)
        context.update(
            revealed=row_shape(position, puzzles.puzzle_faces(puzzle)),
            result=resolution_shape(resolution, position.values),
            yours=deployment_shape(puzzles.answer_read(puzzle, answer.deployment)),
            best=None if best is None else {**best, "table": deployment_shape(Deployment.of(best["sides"]))},
        )
    return render(request, "anarchy/daily.html", context, status=status)


@require_safe
def leaderboard(request: HttpRequest, day: str | None = None) -> HttpResponse:
    """The answers to one day's puzzle, best first (Loyalty, Bravery, workers kept, earliest)."""
    today = puzzles.today()
    date = today if day is None else _parse_day(day)
    if date > today:
        raise Http404(_("That puzzle is not out yet."))
    rows = list(puzzles.leaderboard(date)[:200])
    user = _user(request)
    return render(
        request,
        "anarchy/leaderboard.html",
        {
            "day": date,
            "is_today": date == today,
            "rows": rows,
            "me": user.pk if user is not None else None,
            "previous": date - datetime.timedelta(days=1),
            "next": date + datetime.timedelta(days=1) if date < today else None,
        },
    )


def _faces_choices(position: Position) -> list[dict[str, Any]]:
    """For each face-down card, the faces it may show (cards of its type not face up in the row)."""
    seen = {slot.card for slot in position.row if slot.card is not None}
    return [
        {
            "index": i,
            "number": i + 1,
            "back": TYPE_LABELS[str(position.row[i].back)],
            "choices": [card.id for card in cards_of(position.row[i].back) if card.id not in seen],
        }
        for i in position.face_down()
    ]


def _chosen_faces(request: HttpRequest, choices: list[dict[str, Any]]) -> dict[int, str]:
    """The reveal the owner chose to step through (``face_<row index>``), else the first possible cards."""
    faces: dict[int, str] = {}
    for slot in choices:
        wanted = request.GET.get(f"face_{slot['index']}", "")
        free = [c for c in slot["choices"] if c not in faces.values()]
        pick = wanted if wanted in slot["choices"] else (free[0] if free else "")
        slot["chosen"] = pick
        if pick:
            faces[slot["index"]] = pick
    return faces


@require_safe
def planner(request: HttpRequest) -> HttpResponse:
    """The planner for owners of the board game (GET only, no login): the position as on their table; the
    best deployment over the face-down cards' faces, and a step-through for a chosen reveal."""
    status = 200
    result: dict[str, Any] | None = None
    if "final" in request.GET:
        form = PlannerForm(request.GET)
        if form.is_valid():
            position: Position = form.cleaned_data["position"]
            if form.cleaned_data["background"]:
                solution = planner_solves.solution_of(planner_solves.solve_request(position))
                if solution is None:  # a worker is on it: the page asks again until it is done
                    waiting = {"url": request.get_full_path()}
                    return render(
                        request, "anarchy/planner.html", {"form": form, "result": None, "waiting": waiting}
                    )
            else:
                solution = solve(position)
            choices = _faces_choices(position)
            faces = _chosen_faces(request, choices)
            try:
                narration: dict[str, Any] | None = resolution_shape(
                    narrate(position, solution.deployment, faces), position.values
                )
                reveal_error = ""
            except AnarchyError as error:
                narration, reveal_error = None, reason(error)
            result = {
                "notation": write_deployment(solution.deployment),
                "table": deployment_shape(solution.deployment),
                "expectation": solution.expectation,
                "deployments": solution.deployments,
                "row": row_shape(position, faces),
                "choices": choices,
                "narration": narration,
                "reveal_error": reveal_error,
                "hidden": [(k, v) for k, v in request.GET.items() if not k.startswith("face_")],
            }
        else:
            status = 400
    else:
        try:
            round_ = int(request.GET.get("round", "3"))
        except ValueError:
            round_ = 3
        round_ = round_ if 1 <= round_ <= 5 else 3
        initial = {**PLANNER_START, **PlannerForm.practice_initial(round_)}
        for space, back in enumerate(_default_backs(round_), start=1):
            initial[f"back_{space}"] = back
        form = PlannerForm(initial=initial)
    return render(
        request, "anarchy/planner.html", {"form": form, "result": result, "waiting": None}, status=status
    )


#: The planner's first position besides the practice values: a modest Castle the owner overwrites.
PLANNER_START: dict[str, Any] = {
    **{f"wall_{side}": 1 for side in SIDES},
    "craftsmen": 2,
    "soldiers": 1,
    "knights": 1,
    "beer": 1,
    "tactic_rocks": 1,
}


def _default_backs(round_: int) -> list[str]:
    """A first row for the planner's form: Ladders on every space (the owner changes them)."""
    return [str(AttackType.LADDERS)] * round_


# ----------------------------------------------------------------------------------------------------------
# The daily puzzle email: on, off, and the email's unsubscribe link
# ----------------------------------------------------------------------------------------------------------


def _mailing(user: User | None) -> bool:
    """Whether ``user`` gets the daily puzzle email."""
    return inbound.mailing_active(user)


@login_required
@require_POST
def mail_optin(request: HttpRequest) -> HttpResponse:
    """Turn the daily puzzle email on (``active=1``) or off (``active=0``), then go back to ``next``."""
    user = _user(request)
    assert user is not None  # login_required
    active = request.POST.get("active") == "1"
    inbound.mailing_set(user, active)
    if active:
        messages.success(request, _("You will get the daily puzzle by email. Reply to it to answer."))
    else:
        messages.info(request, _("You will get no more daily puzzle emails."))
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        target = reverse("anarchy:daily")
    return redirect(target)


@csrf_exempt  # the signed token is the proof; a mail client's one-click POST (RFC 8058) has no CSRF token
@require_http_methods(["GET", "HEAD", "POST"])
def mail_stop(request: HttpRequest, token: str) -> HttpResponse:
    """The puzzle email's unsubscribe link: GET asks to confirm, POST turns the daily email off (also the
    one-click ``List-Unsubscribe-Post`` of RFC 8058). A forged or damaged token is a 404."""
    user_id = inbound.unsubscribe_user_id(token)
    user = User.objects.filter(pk=user_id).first() if user_id is not None else None
    if user is None:
        raise Http404(_("This link is not valid."))
    done = request.method == "POST"
    if done:
        inbound.mailing_set(user, False)
    return render(request, "anarchy/email/unsubscribe.html", {"done": done})
