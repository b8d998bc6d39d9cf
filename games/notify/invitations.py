"""The invitation email a table's creator sends from the lobby (issue 16): who invites, to which table,
and the link to join it. The same email goes to an address whether or not it has an account here, so an
invitation never tells the inviter who is a member."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Game
from games.notify.links import absolute_url
from mastery.text import single_line


def invitation_message(*, game: Game, inviter: User, address: str, path: str) -> EmailMessage:
    """The invitation to ``address``, in the inviter's language (the site does not know the invitee's),
    with the absolute link to ``path`` (the table, or its private invite link). It is sent through the
    outbox (:func:`games.services.outbox.queue_account_mail`, issue 31 §4), like every other email.

    Returns:
        The rendered message (plain text), addressed to ``address``.
    """
    with translation.override(inviter.language or "en"):
        invites = _("%(who)s invites you to their table “%(title)s”")
        # the site's tag first, as on every other email of the site (issue 29)
        subject = settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + invites % {"who": inviter.name, "title": game.title}
        body = "\n\n".join(
            [
                _("%(who)s invites you to their table “%(title)s” (%(players)s players).")
                % {"who": inviter.name, "title": game.title, "players": game.players},
                _("Join it here (sign up or log in first if you have not yet):"),
                absolute_url(path),
                _("Medieval Mastery is a board game of feudal conquest, played in the browser or by email."),
            ]
        )
    return EmailMessage(
        subject=single_line(subject), body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[address]
    )
