"""Inviting a player to a table from its lobby, by display name or email address (issue 16). A separate
module from :mod:`games.web.views`, which is at its size limit."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from games import services
from games.messages import service_message
from games.notify.invitations import send_invitation


@login_required
@require_POST
def invite_player(request: HttpRequest, game_id: int) -> HttpResponse:
    """POST ``who`` (a display name or an email address): email that person an invitation to the table,
    creator only. The answer is the same whether or not an address has an account here."""
    user = request.user
    assert isinstance(user, User)
    who = (request.POST.get("who") or "").strip()[:200]
    try:
        game, address = services.invitation_address(game_id=game_id, user=user, who=who)
    except services.ServiceError as exc:
        messages.error(request, service_message(exc))
        return redirect("games:detail", game_id=game_id)
    path = (
        reverse("games:invite", args=[game.pk, game.invite_token])
        if game.private
        else reverse("games:detail", args=[game.pk])
    )
    transaction.on_commit(partial(send_invitation, game=game, inviter=user, address=address, path=path))
    messages.success(request, _("Invitation sent to %(who)s.") % {"who": who})
    return redirect("games:detail", game_id=game.pk)
