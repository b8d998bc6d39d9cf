"""Issue 30, "The emails themselves": the map's hexes carry the ids the notation reads and the territory list
names them as moves write them; an answer's subject names the new decision instead of "Re: Re: …"; a
Swedish, Polish or Korean email holds none of the English fragments it used to ("(1-6 knights)", the reason
a line is not a move, "1 knights")."""

from __future__ import annotations

import re

import pytest
from django.core.mail import EmailMultiAlternatives
from django.utils import translation

from accounts.models import User
from games import engine
from games.engine.notation_terms import VERBS
from games.notify.content import decision_subject
from games.notify.position import position_for

from .conftest import Writes, create_started_game, create_user, seat_users, state_of
from .test_email_play import active_turn, decision_email, deliver, reply_to, to_user

#: What a Swedish, Polish or Korean email said in English before issue 30.
ENGLISH = (
    "knights",
    "knight,",
    "e.g.",
    "from>to",
    "no place called",
    "is not a move",
    "on this map",
    "prosperity",
)


def _game_in(writes: Writes, lang: str) -> tuple[engine.GameState, int, User]:
    users = [create_user(), create_user()]
    User.objects.filter(pk__in=[u.pk for u in users]).update(language=lang)
    game = writes(lambda: create_started_game(humans=users, seed=21))
    seat = active_turn(game)
    return state_of(game), seat, seat_users(game)[seat]


@pytest.mark.django_db
def test_each_hex_of_the_email_map_carries_its_id_and_the_list_names_it_as_moves_write_it(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    state, _seat, user = _game_in(writes, "en")
    body = decision_email(sent, user).body
    lines = body.splitlines()
    names = engine.place_names(state, "en")
    assert any("#" in name for name in names.values()), "seed 21 has a name shared by two territories"
    shown: set[str] = set()
    for k, line in enumerate(lines):
        for m in re.finditer(r"\bt[0-9]+\b", line):
            if re.fullmatch(r"[ t0-9]+", line):  # a row of ids under a row of hexes
                above = lines[k - 1]
                assert above[m.start()] not in " ~", (line, above)  # under a territory's cell
                shown.add(m.group())
    assert shown == set(names)  # every territory, once
    for pos, name in names.items():
        assert f"\n{pos} {name} · " in body  # the list: id, then the name a move writes
    assert "Under each territory is its id" in body


@pytest.mark.django_db
def test_the_answer_s_subject_names_the_new_decision(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    state, _seat, user = _game_in(writes, "en")
    msg = decision_email(sent, user)
    for _round in range(2):  # answered twice: the subject never grows "Re: Re: …"
        sent.clear()
        deliver(writes, reply_to(msg, "advance Swamp 2"))
        msg = to_user(sent, user)[-1]
        assert msg.subject == f"[Medieval Mastery] Your turn {state.turn} in “Test game”"
        assert "Re:" not in msg.subject


def _battle_view(active: int) -> engine.View:
    view: dict[str, object] = {
        "turn": 7,
        "active": active,
        "window": None,
        "battle": {"pos": "t5"},
        "map": [{"id": "t5", "q": 0, "r": 0, "kind": "territory", "name": "Fort"}],
    }
    return view  # type: ignore[return-value]  # the part of a view a subject reads


def test_a_battle_subject_says_whose_turn_and_where() -> None:
    with translation.override("en"):
        mine = decision_subject(engine.PromptKind.CONFLICT, _battle_view(0), "Mail table", 0)
        theirs = decision_subject(engine.PromptKind.SUPPORT, _battle_view(1), "Mail table", 0)
    assert mine == "Your turn 7 in “Mail table”: battle for Fort"
    assert theirs == "Turn 7 in “Mail table”: battle for Fort"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["sv", "pl", "ko"])
def test_a_swedish_polish_or_korean_email_holds_no_english_fragments(
    lang: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _state, _seat, user = _game_in(writes, lang)
    msg = decision_email(sent, user)
    sent.clear()
    deliver(writes, reply_to(msg, VERBS["advance"][lang][0] + " Träsk 2"))
    answer = to_user(sent, user)[-1]
    for email in (msg, answer):
        text = email.subject + "\n" + email.body
        for fragment in ENGLISH:
            assert fragment not in text, (lang, fragment, [ln for ln in text.splitlines() if fragment in ln])
        assert not answer.subject.startswith(("[Medieval Mastery] Re:", "[Medieval Mastery] Sv:"))
    assert "'träsk'" in answer.body  # the reason, in the reader's words, quotes what they wrote


def test_one_knight_is_singular_in_english_and_stays_translated_elsewhere() -> None:
    """ "1 knights" is gone in English; a language whose catalog has only the older plural entry keeps its
    own words meanwhile."""
    view: dict[str, object] = {
        "map": [
            {
                "id": "t3",
                "q": 0,
                "r": 0,
                "kind": "territory",
                "name": "Fort",
                "vp": 1,
                "capacity": 6,
                "owner": 0,
                "knights": 1,
                "supplied": True,
            },
        ],
        "players": [],
        "battle": None,
    }
    with translation.override("en"):
        en = position_for(view, {0: "Anna"}, None, {"t3": "Fort"})  # type: ignore[arg-type]
    with translation.override("sv"):
        sv = position_for(view, {0: "Anna"}, None, {"t3": "Fort"})  # type: ignore[arg-type]
    assert en.territories == ["t3 Fort · 1 VP · holds 6 · Anna, 1 knight"]
    assert "knight" not in sv.territories[0] and "riddare" in sv.territories[0]
