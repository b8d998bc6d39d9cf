"""Issue 15: the rules reference (/rules/), component names and ability texts in four languages, ability
texts wherever a component appears, and refusals that link to the rule that refused the move."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import engine
from games.components import artefact_text, card_text, localized_view, territory_text
from games.messages import ENGINE_MESSAGES, illegal_message
from games.models import Game
from games.rulebook import (
    BATTLE,
    SECTIONS,
    battle_frames,
    link_rules,
    opening_state,
    rule_anchor,
    setup_state,
    supply_state,
)
from games.web.presenters.why_not import why_not
from tests.engine.fixtures import default_content
from tests.web.factories import game_from_state
from tests.web.test_api_http import post_action, token_client
from tests.web.test_pages import HX, active_user, alice, bob, client_for, duel, form_data  # noqa: F401

LANGS = ("en", "sv", "pl", "ko")


def _rules_page(lang: str, spec: str = "") -> str:
    query = {"content": spec} if spec else {}
    response = Client().get(reverse("games:rules"), query, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    return response.content.decode()


def _ids(page: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page))


@pytest.mark.django_db
@pytest.mark.parametrize("spec", ["default", "abbey"])
@pytest.mark.parametrize("lang", LANGS)
def test_every_component_of_the_content_set_is_on_the_rules_page_in_every_language(
    lang: str, spec: str
) -> None:
    """Issue 15: every territory type, artefact and card of the content data appears on /rules/ with its
    name in the page's language and its ability text; the page is generated from the content set (the
    Abbey reading's at ``?content=abbey``), and outside English no ability sentence is left in English."""
    page = _rules_page(lang, "" if spec == "default" else spec)
    content = engine.load_content(spec)
    ids = _ids(page)
    with translation.override("en"):
        english = {art_id: artefact_text(art_id, content)["does"] for art_id in content.artefacts}
        english |= {card.id: card_text(card.id, content) for card in content.cards}
    with translation.override(lang):
        for type_id in content.territory_types:
            assert f"territory-{type_id}" in ids
            assert engine.territory_name(content, type_id, lang) in page
            for sentence in territory_text(type_id, content):
                assert sentence.replace("'", "&#x27;").replace('"', "&quot;") in page, sentence
        for art_id in content.artefacts:
            assert f"artefact-{art_id}" in ids
            assert engine.artefact_name(content, art_id, lang) in page
            does = artefact_text(art_id, content)["does"]
            assert does.replace("'", "&#x27;") in page
            assert lang == "en" or does != english[art_id], (lang, art_id, does)
        for card in content.cards:
            assert f"card-{card.id}" in ids
            assert engine.card_name(content, card.id, lang) in page
            text = card_text(card.id, content)
            assert text.replace("'", "&#x27;") in page
            assert lang == "en" or text != english[card.id], (lang, card.id, text)
    assert f'<html lang="{lang}"' in page


@pytest.mark.django_db
def test_the_rules_page_lists_the_abbey_reading_on_request() -> None:
    """``?content=abbey`` lists the Abbey reading's components (its Shrine has no conquest ability, the
    standard Shrine places a knight); an unknown set is a 404, not a 500."""
    with translation.override("en"):
        standard = " ".join(territory_text("shrine", engine.load_content("default")))
        abbey = " ".join(territory_text("shrine", engine.load_content("abbey")))
    assert standard != abbey

    def shrine(page: str) -> str:
        row = page[page.index('<tr id="territory-shrine">') :]
        return row[: row.index("</tr>")]

    assert standard in shrine(_rules_page("en")) and abbey not in shrine(_rules_page("en"))
    page = _rules_page("en", "abbey")
    assert abbey in shrine(page) and standard not in shrine(page)
    assert 'aria-current="page">Abbey reading' in page
    assert Client().get(reverse("games:rules"), {"content": "nope"}).status_code == 404


@pytest.mark.django_db
def test_every_engine_error_code_links_to_a_rule_anchor_that_exists() -> None:
    """Issue 15: every engine error code names a rule whose section exists on /rules/; every rule
    R1..R120 belongs to exactly one section."""
    ids = _ids(_rules_page("en"))
    for code in engine.ErrorCode:
        _text, rule = ENGINE_MESSAGES[code.value]
        anchor = rule_anchor(rule)
        assert anchor and anchor in ids, (code, rule)
    for number in range(1, 121):
        assert sum(s.first <= number <= s.last for s in SECTIONS) == 1, number
        assert f"R{number}" in ids  # /rules/#R46 opens the rule's section
    assert rule_anchor("R46") == "redistribution" and rule_anchor("R53") == "advance"
    assert rule_anchor("") == "" and rule_anchor("R999") == ""
    assert link_rules("No. — R46") == [("No. — ", ""), ("R46", "redistribution")]


@pytest.mark.django_db
def test_a_refused_move_links_to_its_rule(duel: Game) -> None:  # noqa: F811
    """Issue 15: the refusal of an advance into a lake links "R54" to /rules/#advance, with and without
    htmx."""
    user = active_user(duel)
    lake = next(
        t["id"] for t in engine.view_for(engine.from_dict(duel.state), None)["map"] if t["kind"] == "lake"
    )
    client = client_for(user)
    payload = {"type": "advance", "to": lake, "knights": 1}
    body = client.post(reverse("games:act", args=[duel.pk]), form_data(payload, duel.seq), headers=HX)
    assert body.status_code == 422
    assert f'<a href="{reverse("games:rules")}#advance">R54</a>' in body.content.decode()
    response = client.post(reverse("games:act", args=[duel.pk]), form_data(payload, duel.seq))
    page = client.get(response["Location"]).content.decode()
    assert f'<a href="{reverse("games:rules")}#advance">R54</a>' in page


def test_the_worked_example_is_the_rulebooks_battle() -> None:
    """§18 (R62–R80): the example is played by the engine and gives the rulebook's scores step by step:
    6–6, 7–6 after Rage, 12–9 after the conflict cards, 14–12 after support; then the City is conquered
    with 6 knights, the defender keeps 2 (retreated) and the attacker gains 1 knight."""
    frames = battle_frames()
    assert len(frames) == len(BATTLE)
    scores = []
    for _step, state, _events in frames[:-1]:
        battle = engine.view_for(state, None)["battle"]
        assert battle is not None
        scores.append([battle["attacker"]["score"], battle["defender"]["score"]])
    assert scores == [[6, 6], [7, 6], [12, 9], [14, 12], [14, 12]]
    final = engine.view_for(frames[-1][1], None)
    city = next(t for t in final["map"] if t.get("tile") == "city")
    assert (city["owner"], city["knights"]) == (0, 6)
    before = engine.view_for(opening_state(), None)
    assert final["players"][0]["castle_knights"] == before["players"][0]["castle_knights"] - 6 + 1
    assert final["players"][1]["castle_knights"] == before["players"][1]["castle_knights"] + 2
    assert not next(a for a in final["players"][1]["artefacts"] if a["id"] == "sceptre_defiance")["face_up"]


def test_the_supply_diagram_shows_a_territory_cut_off() -> None:
    """R48: in the line-of-supply diagram red's Grasslands have no line of supply; blue's Fort has one."""
    tiles = {t.get("tile"): t for t in engine.view_for(supply_state(), None)["map"]}
    assert tiles["grasslands"]["owner"] == 0 and not tiles["grasslands"]["supplied"]
    assert tiles["fort"]["owner"] == 1 and tiles["fort"]["supplied"]


def test_artefact_texts_say_when_they_act() -> None:
    """Issue 15: Sceptre of Rage (attacking) and Sceptre of Loyalty (defending) no longer read the same;
    every artefact names its trigger (R39, R64, R74, R91)."""
    content = engine.load_content("default")
    with translation.override("en"):
        rage, loyalty = artefact_text("sceptre_rage", content), artefact_text("sceptre_loyalty", content)
        assert rage["text"].startswith("When you attack") and loyalty["text"].startswith("When you defend")
        assert rage["text"] != loyalty["text"]
        triggers = {"own_turn": "Once in each of your turns", "win": "When you win", "lose": "When you lose"}
        for art_id, adef in content.artefacts.items():
            if adef.trigger in triggers:
                assert artefact_text(art_id, content)["when"].startswith(triggers[adef.trigger]), art_id
    with translation.override("sv"):
        assert artefact_text("sceptre_rage", content)["when"] != rage["when"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lang", "forest", "rage"),
    [
        ("en", "Forest", "Sceptre of Rage"),
        ("sv", "Skog", "Vredens spira"),
        ("pl", "Las", "Berło Gniewu"),
        ("ko", "숲", "분노의 홀"),
    ],
)
def test_the_game_page_names_and_explains_every_component(lang: str, forest: str, rage: str) -> None:
    """Issue 15: on the game page the map's tiles carry their ability text (tooltip and the "about this
    tile" panel's data), the artefacts their trigger and effect, and the cards in hand their full text,
    all in the reader's language."""
    game = game_from_state(opening_state())
    user = game.seats.get(number=0).user
    assert user is not None
    client = client_for(user)
    client.cookies["django_language"] = lang
    user.language = lang
    user.save(update_fields=["language"])
    page = client.get(reverse("games:detail", args=[game.pk]), HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    content = engine.load_content("default")
    with translation.override(lang):
        fort = " ".join(territory_text("fort", content))
        assert re.search(r'data-about-title="[^"]+"', page)
        assert f'data-about-title="{forest}"' in page
        assert fort in page  # the tile's label, tooltip and about text
        assert rage in page and artefact_text("sceptre_rage", content)["when"] in page
        assert card_text("heroic_assault", content) in page  # a card in hand, in full
        assert 'class="card-text"' in page
    assert 'id="tile-about"' in page and 'aria-live="polite"' in page


def _why(state: engine.GameState, seat: int) -> list[dict[str, str]]:
    view = engine.view_for(state, seat)
    with translation.override("en"):
        return why_not(
            localized_view(view, state.content),
            engine.blocked(state, seat),
            engine.legal_actions(state, seat),
            seat,
        )


def test_why_cant_i_names_each_unavailable_move_with_its_rule() -> None:
    """Issue 15: after its battle the attacker has no manoeuvre left (R28); with the crown used (R39) or
    face down (R93) the crown says why; Fracture without a face-up target says so (R36); nothing is listed
    for a seat whose turn it is not, nor while the move is available."""
    after = battle_frames()[-1][1]
    reasons = _why(after, 0)
    assert [r["rule"] for r in reasons] == ["R28"]
    assert reasons[0]["anchor"] == "turn" and "no manoeuvre left" in reasons[0]["text"]
    assert _why(after, 1) == []  # not blue's turn
    data = engine.to_dict(after)
    data["crown_used"] = True
    assert [r["rule"] for r in _why(engine.from_dict(data), 0)] == ["R28", "R39"]
    data["crown_used"] = False
    for art in data["players"][0]["artefacts"]:
        if art["id"] == "crown_vitality":
            art["face_up"] = False
            art["destroyed_on"] = data["turn"]
    texts = [r["text"] for r in _why(engine.from_dict(data), 0)]
    assert any(t.startswith("Crown of Vitality: face down") for t in texts)
    opening = _why(opening_state(), 0)
    assert opening == []  # advance, crown and Fracture are all available


def test_why_cant_i_explains_redistribution_the_crown_of_order_and_the_battle() -> None:
    """Issue 15: no redistribution with no territory (R43) or with every territory cut off (R46); the Crown
    of Order with no card discarded on a previous turn does nothing (R101, the issue's example); in a
    battle, no conflict card in hand counts as 0 (R68) and no support cards in the Mountains (R71)."""
    start = _why(setup_state(), 1)  # blue's first turn: only its castle
    assert [r["rule"] for r in start] == ["R43", "R101"]
    assert start[0]["text"].startswith("No redistribution: you control no territory yet")
    assert (
        start[1]["text"]
        == "Crown of Order: no card discarded on a previous turn, so using it now does nothing."
    )
    assert start[1]["anchor"] == "cards"
    cut_off = engine.to_dict(supply_state())
    cut_off["active"] = 0  # red holds only the Grasslands, which has no line of supply (R48)
    assert "R46" in [r["rule"] for r in _why(engine.from_dict(cut_off), 0)]
    window = battle_frames()[0][1]  # battle step 3: red attacks the City
    assert _why(window, 0) == [] and _why(window, 1) == []
    data = engine.to_dict(window)
    cards = engine.load_content("default").cards
    data["players"][0]["hand"] = [c for c in data["players"][0]["hand"] if cards[c].kind != "conflict"]
    data["tiles"][2] = "mountains"
    reasons = _why(engine.from_dict(data), 0)
    assert [r["rule"] for r in reasons] == ["R68", "R71"]
    assert [r["anchor"] for r in reasons] == ["battle", "battle"]
    assert [r["rule"] for r in _why(engine.from_dict(data), 1)] == ["R71"]  # blue has conflict cards


@pytest.mark.django_db
def test_cards_and_artefacts_in_a_battle_show_what_they_do() -> None:
    """Issue 15: in a battle the Fracture window lists each artefact with its owner and text, and the
    support cards played show their full text (not only a name and a number)."""
    content = engine.load_content("default")
    window = game_from_state(battle_frames()[0][1])  # the sceptre window, red to answer
    user = window.seats.get(number=0).user
    assert user is not None
    page = client_for(user).get(reverse("games:detail", args=[window.pk])).content.decode()
    with translation.override("en"):
        defiance = artefact_text("sceptre_defiance", content)["text"]
        assert 'class="window-artefacts"' in page and defiance.replace("'", "&#x27;") in page
        support = game_from_state(battle_frames()[3][1])  # both sides' support played
        user = support.seats.get(number=1).user
        assert user is not None
        page = client_for(user).get(reverse("games:detail", args=[support.pk])).content.decode()
        table = page[page.index('<ul class="table-cards">') :]
        table = table[: table.index("</ul>")]
        for card in ("war_banner", "rallying_cry"):
            assert card_text(card, content).replace("'", "&#x27;") in table


@pytest.mark.django_db
def test_the_decision_panel_lists_why_cant_i_with_rule_links() -> None:
    """Issue 15: the game page shows the "Why can't I…?" list next to the decision, each reason linked."""
    game = game_from_state(battle_frames()[-1][1])
    user = game.seats.get(number=0).user
    assert user is not None
    page = client_for(user).get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "Why can&#x27;t I…?" in page or "Why can't I…?" in page
    assert f'<a href="{reverse("games:rules")}#turn">R28</a>' in page


@pytest.mark.django_db
def test_the_api_refusal_carries_the_rule_url(duel: Game) -> None:  # noqa: F811
    """Issue 15: a 422 of the JSON API names the section of the rules reference that explains the rule."""
    user = active_user(duel)
    lake = next(
        t["id"] for t in engine.view_for(engine.from_dict(duel.state), None)["map"] if t["kind"] == "lake"
    )
    body = {"action": {"type": "advance", "to": lake, "knights": 1}, "expected_seq": duel.seq}
    response = post_action(token_client(user), duel.pk, body)
    assert response.status_code == 422
    params = response.json()["params"]
    assert params["engine_code"] == "target_not_enterable"
    assert params["rule_url"] == f"{reverse('games:rules')}#advance"


def test_why_cant_i_reads_the_engines_rules_not_a_copy_of_them() -> None:
    """Issue 31 §2: "no support cards" follows the engine's ``no_support`` flag of the territory type (R71)
    as the view carries it, not the tile's name; the dice refusal says the content set's numbers (R16)."""
    window = battle_frames()[0][1]
    data = engine.to_dict(window)
    tile = data["tiles"][2]
    content = engine.load_content("default")
    assert not content.territory_types[tile].no_support
    assert _why(engine.from_dict(data), 1) == []
    view = engine.view_for(engine.from_dict(data), 1)
    assert view["battle"] is not None and view["battle"]["no_support"] is False
    custom = json.loads(json.dumps(default_content()))  # the same set, with the flag on this tile's type
    next(t for t in custom["territory_types"] if t["id"] == tile)["no_support"] = True
    data["setup"] = {**data["setup"], "content": custom}
    flagged = engine.from_dict(data)
    assert engine.view_for(flagged, 1)["battle"]["no_support"] is True  # type: ignore[index]
    assert [r["rule"] for r in _why(flagged, 1)] == ["R71"]
    with translation.override("en"):
        text = illegal_message({"engine_code": "dice_budget", "dice": 11, "budget": 10, "rule": "R16"})
    assert text == "That would need 11 dice, more than the 10 you have. — R16"
