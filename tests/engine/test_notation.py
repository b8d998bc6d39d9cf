"""The move notation (issue 14, ``docs/notation.md``): every legal action has a short text form in four
languages that reads back to the same action; reading is case-insensitive, tolerates spaces and accepts the
rulebook's terms of every edition; a text that is not a move is refused with what was expected and the
legal forms."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import GameState, apply, current_options, legal_actions, new_game, pending
from games.engine import actions as A
from games.engine.bot import choose
from games.engine.names import CARD_NAMES, TERRITORY_NAMES, artefact_name
from games.engine.notation import (
    LANGS,
    NotationError,
    legal_forms,
    move_menu,
    parse_text,
    place_names,
    to_text,
)
from games.engine.notation_terms import ABBREVIATIONS, VERBS
from games.engine.rng import Rng
from tests.engine.fixtures import (
    cid,
    clear_map,
    edit,
    game,
    place,
    set_artefacts,
    set_hand,
    set_tile,
    territories,
)
from tests.engine.test_artefacts_windows import WITH_FRACTURE, three_player_sceptres


def _states(games: int, players: int, options: dict[str, Any]) -> list[GameState]:
    """Every state of ``games`` random-bot games (each decision point once)."""
    out: list[GameState] = []
    for g in range(games):
        s = new_game({"players": players, "seed": 900 + g, "options": {**current_options(), **options}})
        rng = Rng(g)
        while pending(s) and len(out) < 100_000:
            out.append(s)
            seat = pending(s)[0].seat
            action = choose(s, seat, rng)
            assert action is not None
            s = apply(s, seat, action).state
    return out


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {}),
        (3, {"fracture_windows": "in_turn"}),
        (4, {"allegiance": "pairs"}),
        (5, {"castle_siege": True}),
    ],
)
def test_every_legal_action_reads_back_in_all_four_languages(players: int, options: dict[str, Any]) -> None:
    """Issue 14: for every legal action of every seat in every state of sampled games (thousands of states),
    ``parse_text(to_text(a)) == a`` in en, sv, pl and ko."""
    checked = 0
    for s in _states(3, players, options):
        for prompt in pending(s):
            for action in legal_actions(s, prompt.seat):
                for lang in LANGS:
                    text = to_text(s, action, lang)
                    assert parse_text(s, prompt.seat, text, lang) == action, (lang, text, action)
                    checked += 1
    assert checked > 10_000


def _one_forest() -> GameState:
    """2 players, seat 0 to move, an empty map of Grasslands with one Forest (t10) and one Fort (t8) next to
    seat 0's castle (t12)."""
    s = edit(game(2, seed=1))
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "grasslands")
    set_tile(s, 10, "forest")
    set_tile(s, 8, "fort")
    s.players[0].castle = 6
    return s


def test_the_issue_examples_read_as_the_actions_they_name() -> None:
    """Issue 14's examples: ``advance Forest 4``, ``redistribute castle>Fort 2, Fort>Ruins 1``, ``end``."""
    s = _one_forest()
    assert parse_text(s, 0, "advance Forest 4") == A.Advance("t10", 4)
    assert to_text(s, A.Advance("t10", 4)) == "advance Forest 4"
    assert parse_text(s, 0, "end") == A.EndTurn()
    place(s, 8, 0, 2)
    set_tile(s, 4, "ruins")
    place(s, 4, 0, 1)
    moves = (A.Move("castle", "t8", 2), A.Move("t8", "t4", 1))
    assert parse_text(s, 0, "redistribute castle>Fort 2, Fort>Ruins 1") == A.Redistribute(moves)
    assert to_text(s, A.Redistribute(moves)) == "redistribute castle>Fort 2, Fort>Ruins 1"


def test_reading_ignores_case_and_spaces_and_accepts_every_edition_s_terms() -> None:
    """Issue 14: case-insensitive, extra spaces tolerated, the rulebook's terms in English, Swedish
    ("framryckning", "borg"), Polish ("przemarsz", "zamek") and Korean ("진군", "숲", "성"). Issue 15: each
    language writes the site's name of the tile (Skog, Las) and reads every language's name."""
    s = _one_forest()
    want = A.Advance("t10", 4)
    for text in (
        "  ADVANCE   forest  4 ",
        "framryckning Forest 4",
        "przemarsz forest 4",
        "framryckning skog 4",
        "przemarsz LAS 4",
        "advance Las 4",
        "진군 숲 4",
        "advance t10 4",
    ):
        assert parse_text(s, 0, text) == want, text
    assert [to_text(s, want, lang) for lang in LANGS] == [
        "advance Forest 4",
        "framryckning Skog 4",
        "przemarsz Las 4",
        "진군 숲 4",
    ]
    place(s, 8, 0, 2)
    move = A.Redistribute((A.Move("castle", "t8", 1),))
    for text in (
        "redistribute castle > fort 1",
        "omfördela borg>Fort 1",
        "przegrupowanie zamek->fort 1",
        "재배치 성>요새 1",
    ):
        assert parse_text(s, 0, text) == move, text


def test_a_name_shared_by_several_territories_takes_its_rank() -> None:
    """Issue 14: "Forest 2" when the name is not unique (rank in position order); the bare name is refused
    as ambiguous, with the legal forms."""
    s = edit(game(2, seed=1))
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    forests = [t for t in territories(s)]
    second = forests[1]
    assert parse_text(s, 0, "advance Forest 2 3") == A.Advance(f"t{second}", 3)
    assert to_text(s, A.Advance("t10", 3)) == f"advance Forest #{forests.index(10) + 1} 3"
    assert parse_text(s, 0, f"advance Forest #{forests.index(10) + 1} 3") == A.Advance("t10", 3)
    with pytest.raises(NotationError) as err:
        parse_text(s, 0, "advance Forest 3")
    assert "not unique" in err.value.message and err.value.legal


def test_cards_by_name_copy_and_value() -> None:
    """Issue 14: cards by name, ``Name n`` for the n-th copy, or by value (``conflict 3``, ``support +2``);
    the card named is the first copy not named yet."""
    play = three_player_sceptres(
        hands={1: ["shield_wall", "shield_wall", "war_banner", "war_banner", "fracture"]}
    )
    for seat in (0, 1, 2):
        play.respond(seat)
    s = play.state
    held = s.players[1].hand
    walls = sorted(c for c in held if s.content.cards[c].id == "shield_wall")
    first, second = cid(1, walls[0]), cid(1, walls[1])
    assert parse_text(s, 1, "conflict Shield Wall") == A.ChooseConflict(first)
    assert parse_text(s, 1, "conflict shield wall 2") == A.ChooseConflict(second)
    assert parse_text(s, 1, "conflict 3") == A.ChooseConflict(first)
    assert to_text(s, A.ChooseConflict(second)) == "conflict Shield Wall 2"
    banners = sorted(c for c in held if s.content.cards[c].id == "war_banner")
    both = A.PlaySupport((cid(1, banners[0]), cid(1, banners[1])))
    assert parse_text(s, 1, "support +2, +2") == both
    assert parse_text(s, 1, "support War Banner, War Banner") == both
    assert to_text(s, both) == "support War Banner, War Banner"


def test_windows_crowns_and_passes() -> None:
    """Issue 14's examples ``fracture Orb of Brutality``, ``crown vitality``, ``pass``: in a response
    window "fracture" answers it (ranked targets in a sealed window), outside it plays Fracture in one's
    own free window; a crown is named by its ability; "pass" passes the window."""
    play = three_player_sceptres(hands={2: WITH_FRACTURE})
    s = play.state
    assert parse_text(s, 2, "fracture Sceptre of Rage") == A.Respond(("sceptre_rage",))
    assert parse_text(s, 2, "fracture rage, loyalty") == A.Respond(("sceptre_rage", "sceptre_loyalty"))
    assert parse_text(s, 2, "균열 분노의 홀") == A.Respond(("sceptre_rage",))
    assert parse_text(s, 1, "pass") == A.Respond(())
    assert to_text(s, A.Respond(("sceptre_rage",)), "ko") == "균열 분노의 홀"
    free = edit(game(2, seed=1))
    set_artefacts(free, 0, ["crown_vitality"])
    set_artefacts(free, 1, ["orb_brutality"])
    set_hand(free, 0, WITH_FRACTURE)
    assert parse_text(free, 0, "crown vitality") == A.UseCrown()
    assert to_text(free, A.UseCrown()) == "crown vitality"
    assert parse_text(free, 0, "fracture Orb of Brutality") == A.Fracture("orb_brutality")
    assert to_text(free, A.Fracture("orb_brutality"), "pl") == "pęknięcie Jabłko Brutalności"
    assert to_text(free, A.Fracture("orb_brutality"), "sv") == "spräcka Brutalitetens äpple"
    for text in (
        "pęknięcie jabłko brutalności",
        "fracture Brutalitetens äpple",
        "pęknięcie jabłko 'brutality'",
    ):
        assert parse_text(free, 0, text) == A.Fracture("orb_brutality"), text


def test_a_text_that_is_not_a_move_says_what_was_expected_and_lists_the_legal_forms() -> None:
    """Issue 14: a parse error names what was expected and lists the legal forms at that point (advances
    summed up per target), in the reader's language."""
    s = _one_forest()
    with pytest.raises(NotationError) as err:
        parse_text(s, 0, "attack the forest")
    assert "not a move" in err.value.message
    assert "end" in err.value.legal and "advance Forest 1-6" in err.value.legal
    with pytest.raises(NotationError) as err:
        parse_text(s, 0, "advance Swamp 3")
    assert "no place called" in err.value.message and err.value.expected
    with pytest.raises(NotationError) as err:
        parse_text(s, 0, "end now", "sv")
    assert "avsluta" in err.value.legal
    assert legal_forms(s, 0, "ko")[0] == "종료"
    with pytest.raises(NotationError):
        parse_text(s, 0, 42)  # type: ignore[arg-type]


def test_order_reads_only_the_lookers_own_insight_cards() -> None:
    """R97, R95: the Crown of Insight's look is its holder's alone. Reading ``order <cards>`` for another
    seat fails the same way whether or not the named card is among the looked-at cards, so a reply cannot
    probe the look; the looker's own ``order`` reads as before."""
    s = edit(game(2, seed=1))
    set_artefacts(s, 0, ["crown_insight"])
    set_hand(s, 0, ["war_banner"], deck_top=["ambush", "shield_wall", "rallying_cry", "war_banner"])
    set_hand(s, 1, ["heroic_assault"])
    s = apply(s, 0, A.UseCrown()).state
    if s.window is not None:  # the crown's response window (R37) closes first
        s = apply(s, 1, A.Respond(())).state
    assert s.choice is not None and s.choice.seat == 0 and s.choice.kind == "insight_order"
    looked = [s.content.cards[c].name for c in s.choice.cards]
    assert "Ambush" in looked
    errors = {}
    for name in ("Ambush", "Authority"):  # looked at / not looked at
        with pytest.raises(NotationError) as err:
            parse_text(s, 1, f"order {name}")
        errors[name] = err.value.message.lower().replace(name.lower(), "<card>")
    assert errors["Ambush"] == errors["Authority"]
    order = parse_text(s, 0, "order " + ", ".join(looked))
    assert isinstance(order, A.InsightOrder) and len(order.order) == 4


# ---------------------------------------------------------------------------------------------------------
# Issue 30: tolerant reading, the crown's words, the unambiguous rank, reasons in the reader's language
# ---------------------------------------------------------------------------------------------------------


def test_accents_hyphens_abbreviations_and_korean_without_spaces_are_read() -> None:
    """Issue 30: ``monstring``, ``omfordela``, ``Gory`` (accents optional), ``adv``, ``call-to-arms``,
    ``군대동원`` read as the moves they name."""
    s = _one_forest()
    set_tile(s, 4, "mountains")
    for text in ("monstring", "MÖNSTRING", "call-to-arms", "Call-To-Arms", "군대동원", "군대 동원", "cta"):
        assert parse_text(s, 0, text) == A.CallToArms(), text
    for text in ("tactical-advance", "taktisk framryckning", "taktisk-framryckning", "전략적진군", "tac adv"):
        assert parse_text(s, 0, text) == A.TacticalAdvance(), text
    for text in ("adv Forest 4", "adv skog 4", "przemarsz Las 4", "진군 숲 4"):
        assert parse_text(s, 0, text) == A.Advance("t10", 4), text
    for text in ("przemarsz Gory 2", "przemarsz góry 2", "advance GÓRY 2", "framryckning berg 2"):
        assert parse_text(s, 0, text) == A.Advance("t4", 2), text
    place(s, 8, 0, 2)
    move = A.Redistribute((A.Move("castle", "t8", 1),))
    for text in (
        "omfordela borg>Fort 1",
        "omfördela borg > fort 1",
        "redist castle>Fort 1",
        "przegrupuj zamek->fort 1",
    ):
        assert parse_text(s, 0, text) == move, text


def test_swedish_and_polish_crown_moves_use_their_own_ability_words() -> None:
    """Issue 30: ``krona välstånd``, ``korona dobrobyt`` (not ``krona prosperity``); every language's word
    is read, with or without accents."""
    s = edit(game(2, seed=1))
    set_artefacts(s, 0, ["crown_prosperity"])
    crown = A.UseCrown(player=1)
    assert [to_text(s, crown, lang) for lang in LANGS] == [
        "crown prosperity p1",
        "krona välstånd p1",
        "korona dobrobyt p1",
        "왕관 번영 p1",
    ]
    for text in (
        "krona valstand p1",
        "korona dobrobyt p1",
        "krona prosperity p1",
        "crown välstånd p1",
        "왕관 번영 p1",
    ):
        assert parse_text(s, 0, text) == crown, text
    set_artefacts(s, 1, ["sceptre_rage"])
    assert parse_text(s, 0, "fracture vrede") == A.Fracture("sceptre_rage")
    assert parse_text(s, 0, "pęknięcie gniew") == A.Fracture("sceptre_rage")


def test_a_shared_name_has_a_rank_that_cannot_be_read_as_a_count() -> None:
    """Issue 30: with several Arenas, ``Arena #1`` is the first whatever follows, the notation writes that
    form, and the emails' forms with it (``advance Arena #1 6``); ``Arena 1 1`` still reads."""
    s = edit(game(2, seed=1))
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "arena")
    arenas = territories(s)
    first = f"t{arenas[0]}"
    assert parse_text(s, 0, "advance Arena #1 1") == A.Advance(first, 1)
    assert parse_text(s, 0, "advance Arena#1 1") == A.Advance(first, 1)
    assert parse_text(s, 0, "advance Arena 1 1") == A.Advance(first, 1)
    assert to_text(s, A.Advance(first, 1)) == "advance Arena #1 1"
    with pytest.raises(NotationError) as err:
        parse_text(s, 0, "advance Arena #1")  # a rank is never a count
    assert err.value.code == "advance_where"
    _moves, forms = move_menu(s, s.active, "en")
    advances = [f for f in forms if f.startswith("advance ")]
    assert advances and all(re.match(r"advance Arena #[0-9]+ [0-9]+", f) for f in advances), advances
    assert place_names(s, "sv")[first] == "Arena #1"


def test_email_forms_and_reasons_are_in_the_reader_s_language() -> None:
    """Issue 30: no English inside a Swedish, Polish or Korean email: the knight range and the
    redistribution form of the move menu, and the reason a line is not a move."""
    s = _one_forest()
    place(s, 8, 0, 2)
    english = ("knights", "e.g.", "from>to", "no place", "not a move", "prosperity")
    for lang in ("sv", "pl", "ko"):
        moves, forms = move_menu(s, 0, lang)
        assert forms, lang
        for line in moves + forms:
            assert not any(word in line for word in english), (lang, line)
        for text in ("advance Swamp 3", "attack the forest", "advance Forest", "end now", "support Nothing"):
            with pytest.raises(NotationError) as err:
                parse_text(s, 0, text, lang)
            assert err.value.code, text
            assert err.value.message != parse_error(s, text, "en"), (lang, text)
            assert not any(word in err.value.message for word in english), (lang, err.value.message)
    assert "(1-6 knights)" in " ".join(move_menu(s, 0, "en")[1])
    assert "riddare" in " ".join(move_menu(s, 0, "sv")[1])


def parse_error(s: GameState, text: str, lang: str) -> str:
    with pytest.raises(NotationError) as err:
        parse_text(s, 0, text, lang)
    return err.value.message


# -- The round trip, through the tolerant forms a reader may write ------------------------------------------


@functools.cache
def _samples() -> list[tuple[GameState, int, A.Action]]:
    """Legal actions of sampled positions: 3 players with in-turn windows, 5 with Castle Siege (castles of
    rivals, shared names)."""
    out = []
    for players, options in ((3, {"fracture_windows": "in_turn"}), (5, {"castle_siege": True})):
        for s in _states(1, players, options):
            for prompt in pending(s):
                out += [(s, prompt.seat, a) for a in legal_actions(s, prompt.seat)]
    return out


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.replace("ł", "l").replace("Ł", "L"))
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


@functools.cache
def _korean_terms() -> list[str]:
    """Korean verbs and names of more than one word, longest first."""
    terms = [t for names in VERBS.values() for t in names["ko"]]
    terms += [n["ko"] for table in (TERRITORY_NAMES, CARD_NAMES) for n in table.values()]
    s = game(2, seed=1)
    terms += [artefact_name(s.content, a, "ko") for a in s.content.artefacts]
    return sorted({t for t in terms if " " in t}, key=len, reverse=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_tolerant_form_of_a_written_move_reads_back(data: st.DataObject) -> None:
    """Issue 30's round trip: a legal action written in any language, then rewritten as a reader may (any
    case, accents dropped, hyphens for spaces, Korean terms without their spaces, an abbreviation, ``Name
    n`` for ``Name #n``), reads back to the same action."""
    samples = _samples()
    s, seat, action = samples[data.draw(st.integers(0, len(samples) - 1), label="sample")]
    lang = data.draw(st.sampled_from(LANGS), label="lang")
    text = to_text(s, action, lang)
    if data.draw(st.booleans(), label="no accents"):
        text = _strip_accents(text)
    if data.draw(st.booleans(), label="hyphens"):
        text = re.sub(r"(?<=[^\W\d_]) (?=[^\W\d_])", "-", text)
    if lang == "ko" and data.draw(st.booleans(), label="korean without spaces"):
        for term in _korean_terms():
            text = text.replace(term, term.replace(" ", ""))
    if data.draw(st.booleans(), label="rank without #"):
        text = re.sub(r" #([0-9])", r" \1", text)
    for verb, shorts in ABBREVIATIONS.items():
        full = VERBS[verb]["en"][0]
        if text.startswith(full + " ") or text == full:
            if data.draw(st.booleans(), label="abbreviation"):
                text = shorts[0] + text[len(full) :]
            break
    text = data.draw(st.sampled_from([text, text.upper(), text.lower(), text.swapcase()]), label="case")
    assert parse_text(s, seat, text, lang) == action, (lang, text, action)
