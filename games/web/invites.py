"""Inviting a player to a table from its lobby, by display name or email address (issue 16), and the
lobby's seat list with who is invited (issue 29)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from games import services
from games.messages import service_message
from games.models import Game, Seat
from games.notify.account_mail import message_data
from games.notify.invitations import invitation_message
from games.services.outbox import queue_account_mail


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
    # through the outbox like every other email (issue 31 §4): an account-kind row of the inviter's, sent
    # to the invitee's address as rendered, and sent by the minute's sweep if its task is lost
    message = invitation_message(game=game, inviter=user, address=address, path=path)
    with transaction.atomic():
        queue_account_mail(
            user_id=user.pk, message=message_data(message, "games/invitation"), now=timezone.now()
        )
    messages.success(request, _("Invitation sent to %(who)s.") % {"who": who})
    return redirect("games:detail", game_id=game.pk)


def invited_labels(game: Game, seats: list[Seat], viewer: User | Any) -> list[str]:
    """Who is invited to the open table and has not taken a seat yet, as ``viewer`` may see it (issue 29).

    An invitation by display name shows the name (display names are public). One by email address shows the
    address to the table's creator, who typed it, and to anyone else only as "someone invited by email", so
    the list never gives an address away. An address is never matched to an account for the list, so it
    never tells whether one exists: it leaves the list once a seated player has that address.

    Args:
        game: the table (``game.invited``, oldest first).
        seats: its seats, with their users.
        viewer: the user looking at the lobby (may be anonymous).

    Returns:
        One label per pending invitation, oldest first.
    """
    creator = getattr(viewer, "pk", None) == game.created_by_id
    seated = {s.user_id for s in seats if s.user_id is not None}
    addresses = {s.user.email.lower() for s in seats if s.user is not None}
    labels: list[str] = []
    for entry in game.invited:
        if entry.get("user") in seated or str(entry.get("address", "")).lower() in addresses:
            continue
        if entry.get("user") is not None:
            labels.append(str(entry.get("name", "")))
        else:
            labels.append(str(entry.get("address", "")) if creator else _("someone invited by email"))
    return labels


def seat_rows(game: Game, seats: list[Seat], viewer: User | Any) -> list[dict[str, Any]]:
    """The lobby's seat list: ``{"seat": the seat or None, "number": 1.., "invited": [labels]}`` per seat,
    taken ones first. The open seats carry the pending invitations (:func:`invited_labels`) one each, in
    order, the last open seat any that remain."""
    rows: list[dict[str, Any]] = [{"seat": s, "number": i + 1, "invited": []} for i, s in enumerate(seats)]
    free: list[dict[str, Any]] = [
        {"seat": None, "number": n + 1, "invited": []} for n in range(len(seats), game.players)
    ]
    for i, label in enumerate(invited_labels(game, seats, viewer) if free else []):
        free[min(i, len(free) - 1)]["invited"].append(label)
    return rows + free
