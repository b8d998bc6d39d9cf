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


def send_invitation(*, game: Game, inviter: User, address: str, path: str) -> None:
    """Send the invitation to ``address``, in the inviter's language (the site does not know the
    invitee's), with the absolute link to ``path`` (the table, or its private invite link)."""
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
    EmailMessage(subject=single_line(subject), body=body, to=[address]).send()
