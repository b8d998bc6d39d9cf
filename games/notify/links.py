"""Signed links in notification emails (architecture §3 ``games/notify/``): single-use links that answer a
simple decision after one confirmation click, and ``List-Unsubscribe`` links (RFC 8058), both signed with
Django's ``signing`` and salted per purpose."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import services
from games.actions_ui import EMAIL_LINKS
from games.models import Game, Notification, Prompt

log = logging.getLogger(__name__)


LINK_SALT = "mastery.email-link"


UNSUBSCRIBE_SALT = "mastery.unsubscribe"


#: The name of the link that ends a seat's absence (not an action: :data:`games.actions_ui.EMAIL_LINKS`
#: holds the links that answer a prompt).
BACK = "back"


class LinkError(Exception):
    """A signed link that cannot be used: ``reason`` is ``invalid``, ``expired`` or ``used``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def link_token(notification: Notification, action: str) -> str:
    """A signed, timestamped token naming one notification and one action: an
    :attr:`games.actions_ui.EmailLink.name` or :data:`BACK`."""
    return signing.dumps({"n": notification.pk, "a": action}, salt=LINK_SALT, compress=True)


def link_load(token: str) -> tuple[Notification, str]:
    """Check a link token and return its notification and action name.

    Raises:
        LinkError: ``invalid`` (bad signature or unknown notification), ``expired`` (older than
        ``EMAIL_LINK_MAX_AGE`` seconds) or ``used`` (already acted on once).
    """
    try:
        data = signing.loads(token, salt=LINK_SALT, max_age=settings.EMAIL_LINK_MAX_AGE)
    except signing.SignatureExpired as exc:
        raise LinkError("expired") from exc
    except signing.BadSignature as exc:
        raise LinkError("invalid") from exc
    if not isinstance(data, dict) or not isinstance(data.get("n"), int) or not isinstance(data.get("a"), str):
        raise LinkError("invalid")
    action = data["a"]
    if action not in EMAIL_LINKS and action != BACK:
        raise LinkError("invalid")
    n = Notification.objects.select_related("game", "recipient").filter(pk=data["n"]).first()
    if n is None or n.game is None:
        raise LinkError("invalid")
    if n.link_used_at is not None:
        raise LinkError("used")
    return n, action


def unsubscribe_token(user: User, kind: str) -> str:
    """A signed token that turns off ``kind`` notifications for ``user`` (no expiry: RFC 8058)."""
    return signing.dumps({"u": user.pk, "k": kind}, salt=UNSUBSCRIBE_SALT)


def unsubscribe_load(token: str) -> tuple[User, str]:
    """Check an unsubscribe token; returns the user and kind. Raises ``LinkError("invalid")``."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature as exc:
        raise LinkError("invalid") from exc
    kinds = {k.value for k in Notification.Kind}
    if not isinstance(data, dict) or data.get("k") not in kinds:
        raise LinkError("invalid")
    user_id = data.get("u")
    user = User.objects.filter(pk=user_id).first() if isinstance(user_id, int) else None
    if user is None:
        raise LinkError("invalid")
    return user, str(data["k"])


def absolute_url(path: str) -> str:
    """The absolute URL of a site path (``"/games/3/"`` -> ``"https://example.org/games/3/"``), from
    ``settings.SITE_URL``."""
    return settings.SITE_URL.rstrip("/") + path


def link_still_open(n: Notification, action: str) -> bool:
    """Whether the decision an email link answers is still waiting for its seat (a "back" link always is
    until used): the game is running and the prompt row of its key is still there (issue 16: a passed
    decision says so at once, without a confirmation page first)."""
    if action == BACK:
        return True
    game = n.game
    if game is None or n.seat is None or game.status != Game.Status.ACTIVE:
        return False
    return Prompt.objects.filter(game=game, seat=n.seat, key=n.prompt_key).exists()


def link_act(token: str) -> tuple[Game, str]:
    """Act on a signed email link (its POST): apply the named answer to the named prompt once, as the
    notification's seat, with source ``email``; ``back`` ends the seat's absence.

    Returns:
        The game and the action name.

    Raises:
        LinkError: invalid, expired or used. :class:`games.services.ServiceError`: the decision was already
        made (409) or the rules refuse the answer now (422); nothing is changed and the link stays unused.
    """
    with transaction.atomic():
        n, action = link_load(token)
        n = (
            Notification.objects.select_for_update(of=("self",))
            .select_related("game", "recipient")
            .get(pk=n.pk)
        )
        if n.link_used_at is not None:
            raise LinkError("used")
        assert n.game is not None
        if action == BACK:
            services.seat_return(game_id=n.game.pk, user=n.recipient)
        else:
            assert n.seat is not None
            services.prompt_answer(
                game_id=n.game.pk, seat=n.seat, key=n.prompt_key, action=EMAIL_LINKS[action].action
            )
        n.link_used_at = timezone.now()
        n.save(update_fields=["link_used_at"])
        return n.game, action
