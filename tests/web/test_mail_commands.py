"""issue 30, "Commands, as the email judges had them": a reply's line may be a command instead of a move
(help, status/map, history, orders/clear, undo, resign with a confirmation, away until/back, say and say
@Name), in each of the four languages, whatever its case and accents; and resigning from the game page.

Replies are fed the way ``test_email_play.py`` feeds them (:func:`reply_to` through the receivers' entry,
:func:`games.services.inbox.mail_store`, each as one "request" whose eager tasks run when it returns).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.test import Client
from django.utils import timezone, translation

from accounts.models import User
from games import engine, services
from games.bots import stand_ins
from games.engine import actions as A
from games.models import (
    ActionRecord,
    ChatMessage,
    Game,
    InboundMail,
    Notification,
    RatingChange,
    Seat,
    StandingOrder,
)
from games.notify.position import position_for
from games.selectors import game_view
from games.services import inbox, mail_commands

from .conftest import Writes, create_started_game, create_user, play_until, seat_users, state_of
from .test_email_play import active_turn, decision_email, deliver, reply_to, to_user

LANGS = ("en", "sv", "pl", "ko")

#: A spelling of each command per language as a player might type it: other case, accents left out.
TYPED: dict[str, dict[str, str]] = {
    "help": {"en": "Help", "sv": "HJALP", "pl": "Pomoc", "ko": "도움말"},
    "status": {"en": "STATUS", "sv": "Lage", "pl": "stan", "ko": "상태"},
    "map": {"en": "Map", "sv": "KARTA", "pl": "Mapa", "ko": "지도"},
    "history": {"en": "History 3", "sv": "historik 3", "pl": "HISTORIA 3", "ko": "기록 3"},
    "orders": {"en": "orders", "sv": "Ordrar", "pl": "ROZKAZY", "ko": "명령"},
    "clear": {"en": "CLEAR", "sv": "rensa", "pl": "wyczysc", "ko": "지우기"},
    "undo": {"en": "Undo", "sv": "angra", "pl": "COFNIJ", "ko": "되돌리기"},
    "resign": {"en": "Resign", "sv": "Ge upp", "pl": "poddaje sie", "ko": "기권"},
    "yes": {"en": "YES", "sv": "Ja", "pl": "tak", "ko": "네"},
    "away": {"en": "Away until", "sv": "borta till", "pl": "Nieobecny do", "ko": "부재"},
    "back": {"en": "Back", "sv": "Tillbaka", "pl": "WRACAM", "ko": "복귀"},
    "say": {"en": "Say", "sv": "SAG", "pl": "Powiedz", "ko": "말하기"},
}


def game_in(writes: Writes, lang: str) -> tuple[Game, dict[int, User], int, EmailMultiAlternatives]:
    """A started 2-player game whose players read the site in ``lang``, waiting for its active player: the
    game, its seats' users, the active seat and that player's decision email."""
    users = [create_user(display_name="Åsa Öberg"), create_user(display_name="Bo")]
    User.objects.filter(pk__in=[u.pk for u in users]).update(language=lang)
    game = writes(lambda: create_started_game(humans=users, seed=21))
    seat = active_turn(game)
    return game, seat_users(game), seat, decision_email(_sent(), seat_users(game)[seat])


def _sent() -> list[EmailMultiAlternatives]:
    from django.core import mail

    return mail.outbox  # type: ignore[return-value]


def answer_to(sent: list[EmailMultiAlternatives], user: User) -> EmailMultiAlternatives:
    """The one answer to ``user``'s reply (it has an ``In-Reply-To``)."""
    answers = [m for m in to_user(sent, user) if "In-Reply-To" in m.extra_headers]
    assert len(answers) == 1, [m.subject for m in answers]
    return answers[0]


def commands_of(user: User) -> list[dict[str, object]]:
    """The command outputs of ``user``'s latest answer."""
    n = Notification.objects.filter(recipient=user, kind=Notification.Kind.REPLY).order_by("-pk").first()
    assert n is not None
    return list(n.data.get("commands", []))


# ---------------------------------------------------------------------------------------------------------
# The words
# ---------------------------------------------------------------------------------------------------------


def test_no_command_word_is_a_move_word_in_any_language() -> None:
    words = [w for langs in mail_commands.COMMANDS.values() for ws in langs.values() for w in ws]
    words += [w for ws in mail_commands.YES.values() for w in ws]
    assert [w for w in words if engine.names_a_move(w)] == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(TYPED))
def test_each_command_is_read_in_each_language_whatever_its_case_and_accents(name: str, lang: str) -> None:
    typed = TYPED[name][lang]
    arg = {"history": "", "away": " 2030-01-02", "say": " hej"}.get(name, "")
    command = mail_commands.read_command(typed + arg, confirming=name == "yes")
    assert command is not None and command.name == name, typed
    first = mail_commands.COMMANDS.get(name, {}).get(lang, ("",))[0]
    if first and name not in ("history", "away", "say"):  # the table's own word reads too
        found = mail_commands.read_command(first)
        assert found is not None and found.name == name


@pytest.mark.parametrize(
    "line",
    ["Back on Monday", "Help me", "away until Monday", "history of the world", "yes", "Cheers, Anna", "end"],
)
def test_lines_that_only_look_like_commands_are_not_commands(line: str) -> None:
    assert mail_commands.read_command(line) is None
    assert not inbox.holds_move([line]) or engine.names_a_move(line)


def test_a_command_holds_something_so_the_hourly_no_move_limit_does_not_swallow_it() -> None:
    assert inbox.holds_move(["help"]) and inbox.holds_move(["say hello"]) and inbox.holds_move(["기록 5"])


# ---------------------------------------------------------------------------------------------------------
# Each command in each language
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_help_lists_the_commands_in_the_players_language_with_the_moves_legal_now(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    User.objects.filter(pk=users[seat].pk).update(email_play=False)  # help shows the moves anyway
    sent.clear()
    row = deliver(writes, reply_to(msg, TYPED["help"][lang]))
    assert (row.status, row.applied) == (InboundMail.Status.APPLIED, 1), row.reason
    answer = answer_to(sent, users[seat])
    for name in ("status", "history", "undo", "resign", "say", "back"):
        assert mail_commands.COMMANDS[name][lang][0] in answer.body, name
    moves, _forms = engine.move_menu(state_of(Game.objects.get(pk=game.pk)), seat, lang)
    assert f"  1. {moves[0]}\n" in answer.body
    assert "Reply-To" in answer.extra_headers


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["status", "map"])
@pytest.mark.django_db
def test_status_and_map_show_the_players_own_view_and_never_the_other_hand(
    name: str, lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    User.objects.filter(pk__in=[u.pk for u in users.values()]).update(email_play=False)
    sent.clear()
    row = deliver(writes, reply_to(msg, TYPED[name][lang]))
    assert row.status == InboundMail.Status.APPLIED, row.reason
    answer = answer_to(sent, users[seat])
    gv = game_view(Game.objects.get(pk=game.pk), users[seat])
    with translation.override(lang):
        position = position_for(gv.view, gv.names, seat)  # type: ignore[arg-type]
    for line in position.map:
        assert line in answer.body
    other = 1 - seat
    assert "hand" not in engine.view_for(state_of(game), seat)["players"][other]  # the engine hides it
    hand_line = next(line for line in answer.body.splitlines() if position.hand and position.hand[0] in line)
    assert hand_line.endswith(", ".join(position.hand))  # exactly the player's own cards


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_history_n_gives_the_last_n_lines_of_the_log_as_the_seat_reads_it(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    state = state_of(game)
    move = next(a for a in engine.legal_actions(state, seat) if isinstance(a, A.Redistribute))
    writes(
        lambda: services.action_submit(game_id=game.pk, user=users[seat], action=move, expected_seq=game.seq)
    )
    sent.clear()
    row = deliver(writes, reply_to(msg, TYPED["history"][lang]))  # "history 3": a command, not stale
    assert row.status == InboundMail.Status.APPLIED, row.reason
    with translation.override(lang):
        log = game_view(Game.objects.get(pk=game.pk), users[seat]).log
    newest = [line for entry in log for line in reversed(entry["lines"])][:3]
    assert newest
    [output] = commands_of(users[seat])
    assert output["ok"] and output["result"] == {"n": 3}
    body = answer_to(sent, users[seat]).body
    assert "\n".join(f"- {line}" for line in reversed(newest)) in body  # oldest first


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_orders_lists_the_standing_orders_and_clear_removes_this_games(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    me = users[seat]
    services.standing_order_add(user=me, rule="pass", game_id=game.pk)
    services.standing_order_add(user=me, rule="pass")  # for all games: clear leaves it
    sent.clear()
    deliver(writes, reply_to(msg, TYPED["orders"][lang]))
    [listed] = commands_of(me)
    assert listed["ok"] and len(listed["result"]["orders"]) == 2  # type: ignore[index]
    with translation.override(lang):
        label = str(StandingOrder.Rule.PASS.label)
    assert answer_to(sent, me).body.count(f"- {label}") == 2
    sent.clear()
    deliver(writes, reply_to(msg, TYPED["clear"][lang]))
    assert not StandingOrder.objects.filter(user=me, game=game).exists()
    assert StandingOrder.objects.filter(user=me, game__isnull=True).count() == 1
    [cleared] = commands_of(me)
    assert cleared["ok"] and cleared["result"] == {"removed": 1, "pending_removed": 0, "kept": 1}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_undo_takes_back_the_seats_own_step_through_the_pages_undo(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    state = state_of(game)
    move = next(a for a in engine.legal_actions(state, seat) if isinstance(a, A.Redistribute))
    writes(
        lambda: services.action_submit(game_id=game.pk, user=users[seat], action=move, expected_seq=game.seq)
    )
    sent.clear()
    row = deliver(writes, reply_to(msg, TYPED["undo"][lang]))
    assert (row.status, row.applied) == (InboundMail.Status.APPLIED, 1), row.reason
    record = ActionRecord.objects.get(game=game, payload=move.to_dict())
    assert record.undone_in is not None
    assert engine.state_hash(state_of(Game.objects.get(pk=game.pk))) == engine.state_hash(state)
    again = deliver(writes, reply_to(msg, TYPED["undo"][lang]))  # nothing more: the page's rule refuses
    assert again.applied == 0
    [refused] = commands_of(users[seat])
    assert not refused["ok"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_resign_asks_first_and_a_confirmation_reply_resigns_and_a_bot_plays_on(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    me = users[seat]
    sent.clear()
    deliver(writes, reply_to(msg, TYPED["resign"][lang]))
    assert Seat.objects.get(game=game, number=seat).resigned_at is None  # only asked
    question = answer_to(sent, me)
    assert "Reply-To" in question.extra_headers
    assert mail_commands.YES[lang][0] in question.body
    sent.clear()
    row = deliver(writes, reply_to(question, TYPED["yes"][lang]))
    assert row.status == InboundMail.Status.APPLIED, row.reason
    mine = Seat.objects.get(game=game, number=seat)
    assert mine.resigned_at is not None and mine.missed_deadlines >= settings.ABSENT_AFTER_MISSES
    assert stand_ins(list(Seat.objects.filter(game=game)))[seat] == "stand-in"  # the normal bot
    state = state_of(Game.objects.get(pk=game.pk))
    assert not [p for p in engine.pending(state) if p.seat == seat and not p.auto]  # the bot played
    assert ActionRecord.objects.filter(game=game, seat=seat, source="bot").exists()
    with pytest.raises(services.Forbidden):  # for good: the player can no longer act…
        services.action_submit(game_id=game.pk, user=me, action=engine.EndTurn(), expected_seq=game.seq)
    with pytest.raises(services.Conflict):  # …nor take the seat back
        services.seat_return(game_id=game.pk, user=me)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_away_until_a_date_and_back_use_the_profiles_away_period(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _game, users, seat, msg = game_in(writes, lang)
    me = users[seat]
    day = (timezone.now() + timedelta(days=10)).date()
    written = {
        "en": day.isoformat(),
        "sv": day.strftime("%d.%m.%Y"),
        "pl": day.strftime("%d.%m.%Y"),
        "ko": day.strftime("%Y.%m.%d") + "까지",
    }[lang]
    deliver(writes, reply_to(msg, f"{TYPED['away'][lang]} {written}"))
    me.refresh_from_db()
    assert me.away_until is not None and me.away_until.date() == day and me.away_at(timezone.now())
    assert commands_of(me)[0]["ok"]
    deliver(writes, reply_to(msg, TYPED["back"][lang]))
    back = User.objects.get(pk=me.pk)
    assert (back.away_from, back.away_until) == (None, None)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.django_db
def test_say_posts_to_the_table_and_say_at_name_privately_through_the_chat_service(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, lang)
    other = 1 - seat
    other_name = Seat.objects.get(game=game, number=other).name
    typed_name = "asa oberg" if other_name == "Åsa Öberg" else other_name.upper()  # accents and case loose
    deliver(
        writes,
        reply_to(msg, f"{TYPED['say'][lang]} Good luck, all!\n{TYPED['say'][lang]} @{typed_name} Psst"),
    )
    table = ChatMessage.objects.get(game=game, channel=ChatMessage.Channel.TABLE)
    assert (table.text, table.author_seat) == ("Good luck, all!", seat)
    private = ChatMessage.objects.get(game=game, channel=ChatMessage.Channel.PRIVATE)
    assert (private.text, private.author_seat, private.to_seat) == ("Psst", seat, other)
    assert [o["ok"] for o in commands_of(users[seat])] == [True, True]
    deliver(writes, reply_to(msg, f"{TYPED['say'][lang]} @Nobody hi"))  # no such player: refused, told
    assert not commands_of(users[seat])[0]["ok"]
    assert ChatMessage.objects.filter(game=game).count() == 2


# ---------------------------------------------------------------------------------------------------------
# Commands with moves, and the answer limits
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_commands_and_moves_run_in_order_in_one_reply(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = game_in(writes, "en")
    sent.clear()
    row = deliver(writes, reply_to(msg, "say gl hf\nend\n\nCheers,\nAnna"))
    assert row.status == InboundMail.Status.APPLIED and row.applied == 2, row.reason
    assert ActionRecord.objects.filter(game=game, source="email", payload={"type": "end_turn"}).exists()
    assert ChatMessage.objects.filter(game=game, text="gl hf").exists()
    body = answer_to(sent, users[seat]).body
    assert "✓ end" in body and "» say gl hf" in body


@pytest.mark.django_db
def test_a_command_is_answered_even_right_after_an_answer_to_a_mail_without_a_move(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _game, users, seat, msg = game_in(writes, "en")
    deliver(writes, reply_to(msg, "I will play tonight"))  # no move: answered once this hour
    sent.clear()
    row = deliver(writes, reply_to(msg, "status"))
    assert row.status == InboundMail.Status.APPLIED
    assert answer_to(sent, users[seat])  # not held back by the hourly limit


# ---------------------------------------------------------------------------------------------------------
# Resigning on the page
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_resign_on_the_page_asks_then_a_normal_bot_plays_on_and_the_ratings_place_the_player_last(
    writes: Writes,
) -> None:
    game = writes(lambda: create_started_game(humans=2, seed=21))
    users = seat_users(game)
    seat = active_turn(game)
    me = users[seat]
    page = Client()
    page.force_login(me)
    detail = page.get(f"/games/{game.pk}/")
    assert f"/games/{game.pk}/resign/" in detail.content.decode()
    confirm = page.get(f"/games/{game.pk}/resign/")
    assert confirm.status_code == 200 and "A bot will play your seat" in confirm.content.decode()
    assert Seat.objects.get(game=game, number=seat).resigned_at is None  # the GET only asks
    done = writes(lambda: page.post(f"/games/{game.pk}/resign/"))
    assert done.status_code == 302
    assert Seat.objects.get(game=game, number=seat).resigned_at is not None
    assert "You have resigned" in page.get(f"/games/{game.pk}/").content.decode()
    game = Game.objects.get(pk=game.pk)
    assert not [p for p in engine.pending(state_of(game)) if p.seat == seat and not p.auto]
    others = {n: u for n, u in users.items() if n != seat}
    game = writes(lambda: play_until(game, lambda g: False, limit=3000) if others else game)
    assert game.status == Game.Status.FINISHED
    ranks = dict(RatingChange.objects.filter(game=game, pool="all").values_list("user_id", "rank"))
    assert ranks[me.pk] == max(ranks.values()) and ranks[me.pk] > min(ranks.values())  # last, alone
