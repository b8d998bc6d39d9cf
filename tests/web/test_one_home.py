"""Issue 31 §2, one home for each rule item the web shows: the optional rules are listed once, by the
engine (``games.engine.OPTIONAL_RULES``); the words about them (games.components), the new-game form, the
lobby, the archive's filter and the command line read that list instead of restating it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from games import engine, services
from games.components import OPTION_NAMES, OPTION_RULES, OPTION_TEXTS, optional_rules_on
from games.engine import __main__ as cli
from games.web.forms import ARCHIVE_OPTIONS, GameCreateForm

from .conftest import create_user


def test_the_optional_rules_have_one_list_and_every_word_about_them_follows_it() -> None:
    assert engine.OPTIONAL_RULES == ("allegiance", "castle_siege", "cut_throat", "skirmish", "mayhem")
    for table in (OPTION_NAMES, OPTION_TEXTS, OPTION_RULES):
        assert tuple(table) == engine.OPTIONAL_RULES
    assert ARCHIVE_OPTIONS == engine.OPTIONAL_RULES
    assert set(engine.OPTIONAL_RULES) <= set(GameCreateForm.base_fields)
    assert cli._FLAGS == engine.OPTION_FLAGS
    for flag in engine.OPTION_FLAGS:
        assert engine.OPTION_DEFAULTS[flag] is False  # every flag is an option, off by default


def test_the_lobby_lists_the_rules_a_table_plays_from_the_one_list() -> None:
    assert optional_rules_on({}) == []
    on = optional_rules_on({"skirmish": True, "allegiance": "pairs", "mayhem": False})
    assert [name for name, _text in on] == ["Allegiance: teams of two", "Skirmish (11 VP)"]
    assert on[1][1] == str(OPTION_TEXTS["skirmish"])


@pytest.mark.django_db
def test_the_lobby_and_the_archive_filter_render_the_rules_from_the_list() -> None:
    user = create_user()
    client = Client()
    client.force_login(user)
    game = services.game_create(
        user=user, title="Siege", players=2, options={"castle_siege": True}, time_control="daily"
    )
    lobby = client.get(f"/games/{game.pk}/").content.decode()
    assert "Castle Siege" in lobby and "Basic rules" not in lobby
    archive = client.get("/games/archive/").content.decode()
    for key in engine.OPTIONAL_RULES:
        assert f'<option value="{key}"' in archive


def test_the_turn_kinds_are_the_engines_and_nobody_restates_them() -> None:
    """Issue 31 §2: ``engine.TURN_KINDS`` is the one list of a turn's own prompt kinds (R27, R28, R41); the
    services, the emails and the engine's undo read it instead of writing the kinds out again."""
    from pathlib import Path

    assert {
        engine.PromptKind.TURN,
        engine.PromptKind.MANOEUVRE,
        engine.PromptKind.VITALITY,
    } == engine.TURN_KINDS
    root = Path(__file__).resolve().parents[2] / "games"
    written_out = re.compile(
        r"[{(][^{}()]*(PromptKind\.TURN|\"turn\")[^{}()]*(PromptKind\.MANOEUVRE|\"manoeuvre\")"
    )
    restated = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "kinds.py" and written_out.search(path.read_text(encoding="utf-8"))
    ]
    assert restated == []


def test_holding_fracture_is_asked_of_the_engine_only() -> None:
    """Issue 31 §2: "does this seat hold Fracture" is ``engine.holds_fracture`` (R32, R36, R37); the
    windows, the prompts and the standing orders (games/standing.py) ask it instead of looking in the hand."""
    root = Path(__file__).resolve().parents[2] / "games"
    looks = re.compile(
        r'effect_index(\["fracture"\]|\.get\("fracture"\))\s+(not\s+)?in\b'  # a look in the hand
        r'|\.get\("fracture"\)$'  # or the card's index fetched to look later
    )
    found = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if looks.search(line)
    ]
    assert found == ["engine/rules/core.py"], found  # once: the body of holds_fracture


def test_the_decision_forms_name_their_action_through_the_engines_enum() -> None:
    """Issue 31 §3: the game page's decision forms name their action type (``data-act`` and the posted
    ``type``) through the ``action_type`` filter (``ActionType``), never as a string next to the enum."""
    template = (Path(__file__).resolve().parents[2] / "templates" / "games" / "detail.html").read_text()
    literal = {
        m.group(1)
        for m in re.finditer(r'data-act="([a-z_]+)"', template)
        if m.group(1) in {t.value for t in engine.ActionType}
    }
    assert literal == set()
    assert template.count('data-act="{{ "') >= 17
