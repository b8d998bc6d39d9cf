"""Abuse of user text and of the site's mail (session 9 security review): titles and names with line breaks or
invisible characters never reach an email header or pass for another player; a bad Message-ID cannot stop
an answer; invitations go to the one player named and are capped per user; imported records stay their
importer's. Each test fails on the problem it names."""

from __future__ import annotations

import json

import pytest
from django.core.mail import EmailMultiAlternatives
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks

from games import services
from games.models import Game, Notification
from games.notify import send as notify_send

from .conftest import Writes, create_started_game, create_user
from .test_ratings import record_of


@pytest.mark.django_db(transaction=False)
def test_title_with_newline_does_not_poison_outbox(sent: list[EmailMultiAlternatives]) -> None:
    """A game title with CR/LF once went into the Subject of every email of that game, where Django refuses
    it (BadHeaderError): every email of the game failed, and before the outbox isolated each row, the
    first failing row blocked everyone's mail. Titles are kept on one line now, and so is every Subject."""
    evil = create_started_game(humans=1, bots=1, title="Hi\r\nBcc: victim@example.com")
    good = create_started_game(humans=1, bots=1, title="Normal game")
    Notification.objects.filter(status=Notification.Status.PENDING).update(send_after=evil.created_at)
    Notification.objects.filter(game=evil, status=Notification.Status.PENDING).update(
        send_after=evil.created_at.replace(year=2000)
    )
    assert Notification.objects.filter(game=good, status=Notification.Status.PENDING).exists()
    notify_send.outbox_flush()  # must not raise
    assert Notification.objects.filter(game=good, status=Notification.Status.SENT).exists()
    # and the game's own players get their mail too
    assert Notification.objects.filter(game=evil, status=Notification.Status.SENT).exists()
    for m in sent:
        assert "\n" not in m.subject and "\r" not in m.subject  # folding the encoded header is fine
        assert "Bcc" not in m.message() and not m.bcc


@pytest.mark.django_db
def test_stranger_display_name_with_newline_blocks_everyones_mail(sent: list[EmailMultiAlternatives]) -> None:
    """Any user can set a display name with CR/LF on the profile page, then join any public lobby. The
    creator's "X joined" email puts the name in its Subject; outbox_flush raises BadHeaderError on that row
    and, since the row stays pending and is first in line, no one else's email is ever sent."""
    attacker = create_user()
    c = Client()
    c.force_login(attacker)
    r = c.post(
        "/accounts/profile/",
        {"display_name": "Mallory\r\nBcc: all@example.com", "language": "en", "time_zone": "UTC"},
    )
    assert r.status_code in (200, 302)
    attacker.refresh_from_db()
    assert "\n" not in attacker.display_name, "profile accepted a display name with a newline"


@pytest.mark.django_db
def test_joined_mail_with_newline_name_does_not_block_outbox(sent: list[EmailMultiAlternatives]) -> None:
    """A name with CR/LF stored before names were kept on one line (here straight in the database): the
    "X joined" email about it still goes out, and so does everyone else's mail."""
    victim = create_user()
    lobby = services.game_create(user=victim, title="Open table", players=3)
    other_game = create_started_game(humans=1, bots=1, title="Unrelated")
    attacker = create_user(display_name="Mallory\r\nX-Evil: 1")
    c = Client()
    c.force_login(attacker)
    c.post(f"/games/{lobby.pk}/join/")
    joined = Notification.objects.filter(game=lobby, kind=Notification.Kind.JOINED)
    assert joined.exists()
    early = other_game.created_at.replace(year=2000)
    joined.update(send_after=early)
    notify_send.outbox_flush()  # must not raise
    assert Notification.objects.filter(game=other_game, status=Notification.Status.SENT).exists()
    assert Notification.objects.get(pk=joined.get().pk).status == Notification.Status.SENT


@pytest.mark.django_db
def test_new_game_form_rejects_title_with_newline() -> None:
    user = create_user()
    c = Client()
    c.force_login(user)
    c.post(
        "/games/new/",
        {
            "title": "Hi\r\nBcc: x@example.com",
            "players": "3",
            "fracture_prompts": "all",
            "time_control": "daily",
        },
    )
    titles = list(Game.objects.filter(created_by=user).values_list("title", flat=True))
    assert titles, "form did not create a game"
    assert all("\n" not in t and "\r" not in t for t in titles), titles


@pytest.mark.django_db
def test_invitation_with_newline_display_name_does_not_crash(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """inviter.name goes raw into the invitation Subject (games/notify/invitations.py:21): the on_commit
    send raises BadHeaderError (a 500 for the inviter after the invitation was already counted)."""
    inviter = create_user(display_name="Eve\nBcc: spam@example.com")
    game = services.game_create(user=inviter, title="T", players=3)
    c = Client()
    c.force_login(inviter)
    with django_capture_on_commit_callbacks(execute=True):
        r = c.post(f"/games/{game.pk}/invite/", {"who": "friend@example.com"})
    assert r.status_code == 302, r.status_code


# ------------------------------------------------------------------------------------------------------
# visibility and abuse
# ------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_imported_game_not_readable_by_other_users() -> None:
    """selectors.archive says imported games "show only to whoever imported them", but visible_to (and so
    load_game / the API) treats them as public: any logged-in user reads another user's imported record
    by walking ids (/games/<id>/replay/, /games/<id>/record.json, /api/games/<id>)."""
    owner, stranger = create_user(), create_user()
    rec = record_of()
    rec["title"] = "my private notes"
    rec["players"] = ["Alice <b>x</b>", "Bob"]
    owner_c = Client()
    owner_c.force_login(owner)
    r = owner_c.post("/games/import/", {"text": json.dumps(rec)})
    assert r.status_code == 302, r.content[:300]
    game = Game.objects.get(imported=True)
    c = Client()
    c.force_login(stranger)
    codes = {
        url: c.get(url).status_code
        for url in (
            f"/games/{game.pk}/replay/",
            f"/games/{game.pk}/record.json",
            f"/api/games/{game.pk}",
            f"/games/{game.pk}/",
        )
    }
    assert all(code == 404 for code in codes.values()), codes


@pytest.mark.django_db
def test_invitation_by_name_cannot_be_hijacked_by_a_copied_display_name(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks, sent: list[EmailMultiAlternatives]
) -> None:
    """Display names are not unique (accounts/models.py:104) and invitation_address picks
    ``User.objects.filter(display_name__iexact=who).first()`` (games/services/lobby.py:220). An older account
    that renames itself to a popular player's name receives that player's invitations, including the
    private table's secret invite link."""
    mallory = create_user()
    anna = create_user(display_name="Anna")
    c = Client()
    c.force_login(mallory)
    c.post("/accounts/profile/", {"display_name": "anna", "language": "en", "time_zone": "UTC"})
    mallory.refresh_from_db()
    creator = create_user()
    game = services.game_create(user=creator, title="Friends only", players=3, private=True)
    cc = Client()
    cc.force_login(creator)
    with django_capture_on_commit_callbacks(execute=True):
        cc.post(f"/games/{game.pk}/invite/", {"who": "Anna"})
    assert sent, "no invitation sent"
    assert sent[-1].to == [anna.email], f"the invitation (with {game.invite_token}) went to {sent[-1].to}"


@pytest.mark.django_db
def test_reply_with_encoded_newline_in_message_id_does_not_poison_outbox(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """mastery/mail_reading.py:117 keeps the decoded Message-ID of an inbound reply; an RFC 2047
    encoded word decodes to CR/LF. games/notify/content.py puts it in the answer's In-Reply-To header:
    BadHeaderError in outbox_flush, the answer row stays pending first in line and blocks the whole outbox.
    Any player can do it by replying to their own decision email."""
    from .test_email_play import deliver, my_turn, reply_to

    _game, users, seat, msg = my_turn(writes, sent)
    raw = reply_to(msg, "1", message_id="PLACEHOLDER@client.example")
    raw = raw.replace(b"PLACEHOLDER@client.example", b"=?utf-8?q?abc=0D=0ABcc=3A_victim=40example.com?=")
    try:
        deliver(writes, raw)
    except Exception as exc:
        pytest.fail(f"processing the reply crashed the send task: {exc!r}")
    other = create_started_game(humans=1, bots=1, title="Unrelated")
    notify_send.outbox_flush()  # must not raise
    assert Notification.objects.filter(game=other, status=Notification.Status.SENT).exists()
    answer = Notification.objects.filter(kind=Notification.Kind.REPLY, recipient=users[seat]).last()
    assert answer is not None and answer.status == Notification.Status.SENT, answer and (
        answer.status,
        answer.skip_reason,
        answer.send_after,
    )


@pytest.mark.django_db
def test_invitations_per_user_are_capped_not_only_per_table() -> None:
    """MAX_INVITATIONS (games/services/lobby.py:190) is per table, and opening tables is unlimited: one
    account sends any number of emails to arbitrary addresses, each carrying its own 80-character title
    (spam relay through the site's mail domain)."""
    spammer = create_user()
    sent_ok = 0
    for t in range(5):
        game = services.game_create(user=spammer, title=f"CHEAP PILLS at spam.example #{t}", players=6)
        for k in range(20):
            try:
                services.invitation_address(game_id=game.pk, user=spammer, who=f"victim{t}-{k}@example.org")
            except services.ServiceError:
                break
            sent_ok += 1
    assert sent_ok <= 40, f"one fresh account sent {sent_ok} invitations to strangers"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Anna\u200b", "\u202eannA", "\u200b", "Bot 1 (hard)"])
def test_profile_refuses_deceptive_display_names(name: str) -> None:
    """Display names accept zero-width and bidi-override characters, invisible-only names and bot names:
    a player can look exactly like another player (or a bot) in the lobby, chat and emails."""
    create_user(display_name="Anna")
    user = create_user()
    c = Client()
    c.force_login(user)
    c.post("/accounts/profile/", {"display_name": name, "language": "en", "time_zone": "UTC"})
    user.refresh_from_db()
    assert user.display_name != name, f"accepted {name!r}"


@pytest.mark.django_db
def test_an_invitation_to_a_name_two_older_accounts_share_is_refused_not_guessed() -> None:
    """Names are unique from now on, but two accounts may share one from before: an invitation by that name
    is refused (invite by email address) rather than sent to whichever account the database lists first."""
    create_user(display_name="Twin")
    create_user(display_name="twin")
    creator = create_user()
    lobby = services.game_create(user=creator, title="T", players=3)
    with pytest.raises(services.ServiceError) as refused:
        services.invitation_address(game_id=lobby.pk, user=creator, who="TWIN")
    assert "several players" in refused.value.message
    assert Game.objects.get(pk=lobby.pk).invitations_sent == 0


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Anna", "Botond", "Bo Tanner", ""])
def test_a_player_keeps_or_takes_an_ordinary_name(name: str) -> None:
    """The checks refuse only what they name: one's own name may be saved again, a name merely starting
    with "Bot" is a name, and an empty one falls back to the address's local part as before."""
    user = create_user(display_name="Anna")
    c = Client()
    c.force_login(user)
    c.post("/accounts/profile/", {"display_name": name, "language": "en", "time_zone": "UTC"})
    user.refresh_from_db()
    assert user.display_name == name


@pytest.mark.django_db
def test_a_name_two_older_accounts_share_can_still_be_kept_while_other_settings_change() -> None:
    """Names became unique in session 9; an account whose name another account already had keeps it when
    it saves its profile unchanged (a language or time zone change is not refused over the name)."""
    create_user(display_name="Twin")
    twin = create_user(display_name="Twin")
    c = Client()
    c.force_login(twin)
    c.post("/accounts/profile/", {"display_name": "Twin", "language": "sv", "time_zone": "UTC"})
    twin.refresh_from_db()
    assert (twin.display_name, twin.language) == ("Twin", "sv")
    c.post("/accounts/profile/", {"display_name": "twin", "language": "sv", "time_zone": "UTC"})
    twin.refresh_from_db()
    assert twin.display_name == "Twin"  # a change to the other account's name (in any case) is refused
