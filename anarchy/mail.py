"""Castle Defence's emails (issue 33): the daily puzzle email, sent to the players who asked for it, and
the answer to a reply (:mod:`anarchy.inbound`).

The puzzle email is built from the position alone, whose face-down cards have no face: a face-down card
shows only its back's type, never the hidden face (``puzzles.puzzle_faces`` is read only for the answer
to a player who has answered). Every email is in the player's language, text and HTML.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User
from anarchy import inbound, puzzles
from anarchy.engine import Deployment
from anarchy.inbound import Outcome, puzzle_address
from anarchy.models import DailyPuzzle, PuzzleAnswer, PuzzleMailSent
from anarchy.views import castle_shape, deployment_shape, resolution_shape, row_shape

log = logging.getLogger(__name__)

#: How to write a deployment, shown in every email.
NOTATION_EXAMPLE = "T:2C1K R:1S B:2K"


def site_url(path: str) -> str:
    """``path`` as an absolute URL of the site (``SITE_URL``)."""
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_url(user_id: int) -> str:
    """The absolute URL that turns ``user_id``'s daily puzzle email off."""
    return site_url(reverse("anarchy:mail_stop", args=[inbound.unsubscribe_token(user_id)]))


# -- The daily puzzle email ----------------------------------------------------------------------------------


def puzzle_email(user: User, puzzle: DailyPuzzle) -> EmailMultiAlternatives:
    """The daily puzzle email of ``puzzle`` to ``user``, in their language: the Castle, its Tactics and the
    Workers to deploy, the row (face-up cards with their strengths per side; face-down cards with their back's
    type only), how to answer by reply, with ``Reply-To`` the player's puzzle address."""
    position = puzzles.puzzle_position(puzzle)
    with translation.override(user.language or settings.LANGUAGE_CODE):
        context: dict[str, Any] = {
            "user": user,
            "day": puzzle.day,
            "castle": castle_shape(position),
            "row": row_shape(position),
            "notation": NOTATION_EXAMPLE,
            "daily_url": site_url(reverse("anarchy:daily")),
            "unsubscribe_url": unsubscribe_url(user.pk),
        }
        subject = _("[Castle Defence] The puzzle of %(day)s") % {"day": puzzle.day.isoformat()}
        text = render_to_string("anarchy/email/puzzle.txt", context)
        html = render_to_string("anarchy/email/puzzle.html", context)
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        to=[user.email],
        reply_to=[puzzle_address(user.pk, puzzle.day)],
        headers={
            "Auto-Submitted": "auto-generated",
            "List-Unsubscribe": f"<{context['unsubscribe_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def recipients(day: datetime.date) -> list[User]:
    """The players to email the puzzle of ``day``: the daily email on, a verified primary email, not yet
    answered, not yet emailed that day."""
    verified = EmailAddress.objects.filter(verified=True).values("user_id")
    answered = PuzzleAnswer.objects.filter(puzzle__day=day).values("user_id")
    sent = PuzzleMailSent.objects.filter(day=day).values("user_id")
    return list(
        User.objects.filter(anarchy_mailing__active=True, is_active=True, pk__in=verified)
        .exclude(pk__in=answered)
        .exclude(pk__in=sent)
        .order_by("pk")
    )


def mails_send(day: datetime.date | None = None) -> int:
    """Send the puzzle of ``day`` (default: today) to every player who asked for it (:func:`recipients`),
    once per player and day: the :class:`~anarchy.models.PuzzleMailSent` row is written first, and only
    the process that wrote it sends (a failed send removes it, so the next run tries again). Returns how
    many were sent."""
    day = puzzles.today() if day is None else day
    puzzle = puzzles.puzzle_for(day)
    count = 0
    for user in recipients(day):
        try:
            with transaction.atomic():
                _row, created = PuzzleMailSent.objects.get_or_create(user=user, day=day)
        except IntegrityError:
            continue
        if not created:
            continue
        try:
            puzzle_email(user, puzzle).send()
        except Exception:
            log.exception("could not send the puzzle of %s to user %s", day, user.pk)
            PuzzleMailSent.objects.filter(user=user, day=day).delete()
            continue
        count += 1
    return count


# -- The answer to a reply -----------------------------------------------------------------------------------


def answer_email(outcome: Outcome) -> EmailMultiAlternatives:
    """The one answer to a reply (:class:`anarchy.inbound.Outcome`), in the player's language: the score,
    the reveal and the steps for a new or earlier answer; the reason and the notation for a line that could
    not be read; a polite refusal for a day that is over. ``In-Reply-To`` and ``References`` name the
    reply, ``Auto-Submitted: auto-replied`` (RFC 3834)."""
    user = outcome.user
    assert user is not None and outcome.kind is not None
    with translation.override(user.language or settings.LANGUAGE_CODE):
        context: dict[str, Any] = {
            "kind": outcome.kind,
            "user": user,
            "day": outcome.puzzle.day if outcome.puzzle is not None else None,
            "answer": outcome.answer,
            "error": outcome.error,
            "line": outcome.line,
            "notation": NOTATION_EXAMPLE,
            "daily_url": site_url(reverse("anarchy:daily")),
            "revealed": None,
            "result": None,
            "yours": None,
        }
        answer, puzzle = outcome.answer, outcome.puzzle
        if answer is not None and puzzle is not None:
            position = puzzles.puzzle_position(puzzle)
            deployment: Deployment = puzzles.answer_read(puzzle, answer.deployment)
            context.update(
                revealed=[s for s in row_shape(position, puzzles.puzzle_faces(puzzle)) if s["face_down"]],
                result=resolution_shape(puzzles.answer_resolution(answer), position.values),
                yours=deployment_shape(deployment),
            )
        subject = outcome.subject or _("[Castle Defence] Your answer")
        if not subject.lower().startswith("re:"):
            subject = "Re: " + subject
        text = render_to_string("anarchy/email/answer.txt", context)
        html = render_to_string("anarchy/email/answer.html", context)
    headers = {"Auto-Submitted": "auto-replied"}
    if outcome.in_reply_to and not outcome.in_reply_to.startswith("sha256:"):
        headers["In-Reply-To"] = f"<{outcome.in_reply_to}>"
        headers["References"] = f"<{outcome.in_reply_to}>"
    message = EmailMultiAlternatives(subject=subject[:200], body=text, to=[user.email], headers=headers)
    message.attach_alternative(html, "text/html")
    return message


def send_answer(outcome: Outcome) -> bool:
    """Send the answer of ``outcome`` (nothing when it has none). A failure is logged: the mail is processed
    already, and its answer is never sent twice. Returns whether an answer went."""
    if outcome.kind is None or outcome.user is None:
        return False
    try:
        answer_email(outcome).send()
    except Exception:
        log.exception("could not send the answer to a puzzle reply of user %s", outcome.user.pk)
        return False
    return True


def reply_process(mail_id: int) -> bool:
    """Process the stored reply ``mail_id`` once (:func:`anarchy.inbound.mail_process`) and send its one
    answer after the row is written (the task's body). Returns whether an answer went."""
    return send_answer(inbound.mail_process(mail_id))
