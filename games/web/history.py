"""History pages (issue 5): replays of finished games, game records to download and import, the
leaderboard, player profiles and the archive."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from accounts.models import User
from games import services
from games.components import optional_rule_choices
from games.messages import service_message
from games.models import RATING_POOLS, Game
from games.selectors import archive as select_archive
from games.selectors import game_record, player_profile, replay_seqs, replay_view
from games.selectors import leaderboard as select_leaderboard
from games.web.common import load_game, request_user
from games.web.forms import ArchiveFilterForm, json_loads_strict
from games.web.game_page import page_context
from games.web.presenters import rating_chart


@login_required
@require_safe
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """Step through a finished game (``?step=N``, 0 = the setup; default the end): board, scores and log as
    a spectator saw them, plus the viewer's own hand if they played. Steps count the actions that stand:
    undone steps (issue 16) are left out. 404 for a game not finished."""
    game = load_game(request, game_id)
    if game.status != Game.Status.FINISHED:
        raise Http404(_("Only finished games can be replayed."))
    seqs = replay_seqs(game)
    steps = len(seqs)
    try:
        step = int(request.GET.get("step", steps))
    except ValueError:
        step = steps
    step = max(0, min(step, steps))
    gv = replay_view(game, request.user, seqs[step - 1] if step else 0)
    seat = "spectator" if gv.seat is None else gv.seat
    context = page_context(
        request,
        gv,
        panel_key=f"replay.{game.pk}.{step}.{seat}.{get_language()}.{timezone.get_current_timezone_name()}",
        step=step,
        steps=steps,
        prev_step=max(step - 1, 0),
        next_step=min(step + 1, steps),
    )
    return render(request, "games/replay.html", context)


@login_required
@require_safe
def record(request: HttpRequest, game_id: int) -> HttpResponse:
    """Download a finished game as a game record (``docs/game-record.md``). 404 for a game not finished."""
    game = load_game(request, game_id)
    if game.status != Game.Status.FINISHED:
        raise Http404(_("Only finished games can be exported."))
    response = JsonResponse(game_record(Game.objects.get(pk=game.pk)), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="medieval-mastery-{game.pk}.json"'
    return response


#: Largest game record accepted for import (bytes).
IMPORT_MAX_BYTES = 4_000_000


@login_required
@require_http_methods(["GET", "POST"])
def game_import(request: HttpRequest) -> HttpResponse:
    """Import a finished game record (file upload or pasted JSON) to replay it. A bad record re-renders the
    form with the reason (400) and stores nothing."""
    error = ""
    if request.method == "POST":
        upload = request.FILES.get("file")
        raw = (
            upload.read(IMPORT_MAX_BYTES + 1) if upload is not None else request.POST.get("text", "").encode()
        )
        if not raw.strip():
            error = _("Choose a record file or paste its JSON.")
        elif len(raw) > IMPORT_MAX_BYTES:
            error = _("This record is too large.")
        else:
            try:
                data = json_loads_strict(raw)
                game = services.game_import(user=request_user(request), record=data)
            except (ValueError, UnicodeDecodeError, RecursionError):
                error = _("This is not JSON.")
            except services.ServiceError as exc:
                error = service_message(exc)
            else:
                messages.success(request, _("Record imported. Step through it below."))
                return redirect(reverse("games:replay", args=[game.pk]) + "?step=0")
    return render(request, "games/import.html", {"error": error}, status=400 if error else 200)


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Ratings by conservative value (OpenSkill ``mu - 3 sigma``), overall or by player count
    (``?players=N``)."""
    pool = request.GET.get("players", "all")
    if pool not in RATING_POOLS:
        pool = "all"
    rows = select_leaderboard(pool)
    return render(request, "games/leaderboard.html", {"rows": rows, "pool": pool, "pools": RATING_POOLS})


def player(request: HttpRequest, user_id: int) -> HttpResponse:
    """A player's profile: ratings, rating history chart, games played and won, current games,
    reliability."""
    who = User.objects.filter(pk=user_id, is_active=True).first()
    if who is None:
        raise Http404(_("No such player."))
    profile = player_profile(who, request.user)
    return render(request, "games/player.html", {"profile": profile, "chart": rating_chart(profile.history)})


def archive(request: HttpRequest) -> HttpResponse:
    """Finished games with filters (player count, player, optional rule, rated only), 25 per page. A filter
    that does not validate (:class:`games.web.forms.ArchiveFilterForm`) is ignored with a notice."""
    form = ArchiveFilterForm(request.GET)
    filters = form.filters()
    games = select_archive(viewer=request.user, **filters)
    page = Paginator(games, 25).get_page(request.GET.get("page"))
    query = {k: "1" if v is True else v for k, v in filters.items() if v}  # the pager keeps valid filters
    return render(
        request,
        "games/archive.html",
        {
            "page": page,
            "filters": filters,
            "query": urlencode(query),
            "notices": form.notices,
            "option_choices": optional_rule_choices(),
        },
    )
