"""The allauth account adapter (settings ``ACCOUNT_ADAPTER``): every email allauth sends goes through the
outbox, after the response (issue 28).

allauth sends all its emails through ``DefaultAccountAdapter.send_mail`` (address confirmation, "account
already exists", password reset, "unknown account"; docs.allauth.org "Sending Email": "hook up your own
custom mechanism by overriding the send_mail method of the account adapter"). Sending them inside the
request made a sign-up with a new address (confirmation sent) slower than one with an address that has an
account (its "already exists" email rate-limited, or quicker), which told a stranger which addresses have
accounts. Here the email is rendered in the request, in the page's language, and stored; the outbox sends
it after commit (:func:`games.services.outbox.queue_account_mail`).
"""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import filter_users_by_email
from allauth.core import context as allauth_context
from django.contrib.sites.shortcuts import get_current_site
from django.utils import timezone

from games.notify.account_mail import message_data
from games.services.outbox import queue_account_mail

from .models import User


def address_owner(email: str, context: dict[str, Any]) -> User | None:
    """Whose account an account email is about: the ``user`` allauth put in the email's context
    (confirmation, password reset), else the account that has ``email`` (allauth's
    ``filter_users_by_email``: "account already exists"), else ``None`` ("unknown account")."""
    user = context.get("user")
    if isinstance(user, User) and user.pk is not None:
        return user
    users = filter_users_by_email(email)
    return users[0] if users else None


class AccountAdapter(DefaultAccountAdapter):  # type: ignore[misc]  # allauth ships no type hints
    """allauth's default adapter, but its emails are queued, not sent (docs.allauth.org "Adapter",
    ``send_mail``)."""

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        """Render allauth's email ``template_prefix`` to ``email`` as allauth does (``render_mail`` with the
        context its own ``send_mail`` builds: request, email, current site) and queue it in the outbox
        instead of sending it.

        Args:
            template_prefix: allauth's template name without ``_subject.txt`` / ``_message.txt``.
            email: the address the email goes to (kept as its ``To``, even when it is not yet the user's
                login, as for an address being added).
            context: allauth's template context.

        Raises:
            TemplateDoesNotExist: the email has no text or HTML body (as allauth).
        """
        request = allauth_context.request
        ctx = {"request": request, "email": email, "current_site": get_current_site(request)}
        ctx.update(context)
        msg = self.render_mail(template_prefix, email, ctx)
        owner = address_owner(email, ctx)
        queue_account_mail(
            user_id=owner.pk if owner is not None else None,
            message=message_data(msg, template_prefix),
            now=timezone.now(),
        )
