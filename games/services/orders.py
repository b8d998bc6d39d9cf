"""Standing orders: answers the server gives for a player in response windows (architecture "Response
windows")."""

from __future__ import annotations

from accounts.models import User
from games.models import Seat, StandingOrder
from games.services.errors import BadPayload, Forbidden, NotFound


def standing_order_add(
    *, user: User, rule: str, artefact: str = "", game_id: int | None = None
) -> StandingOrder:
    """Store a standing order for response windows (for one game the user is seated in, or all games).
    It applies from the next window that opens.

    Raises:
        BadPayload: unknown rule, or a rule that names an artefact without one. Forbidden: no seat in
        ``game_id``.
    """
    if rule not in StandingOrder.Rule.values:
        raise BadPayload("unknown standing order")
    if rule != StandingOrder.Rule.PASS and not artefact:
        raise BadPayload("this order names an artefact")
    if game_id is not None and not Seat.objects.filter(game_id=game_id, user=user).exists():
        raise Forbidden("you have no seat in this game")
    return StandingOrder.objects.create(
        user=user, game_id=game_id, rule=rule, artefact="" if rule == StandingOrder.Rule.PASS else artefact
    )


def standing_order_delete(*, user: User, order_id: int) -> None:
    """Delete one of the user's standing orders. Raises NotFound when it is not theirs."""
    deleted, _rows = StandingOrder.objects.filter(pk=order_id, user=user).delete()
    if not deleted:
        raise NotFound("no such standing order")
