"""issue 5 "Languages": the translation catalogues (``locale/{sv,pl,ko}/LC_MESSAGES/django.po``) are complete
and current, and the site speaks the player's language.

The catalogues are checked as text with the small reader of :mod:`tools.i18n`: every entry translated (every
plural form, the right number of forms per language), nothing fuzzy, the same ``%(name)s`` placeholders and
HTML tags as the English. Staleness: ``manage.py makemessages`` runs over a temporary copy of the project
(so the real catalogues are never touched) and the strings it extracts must be exactly the committed ones;
a string added to the code or templates without a translation fails here. That part needs GNU gettext's
``xgettext`` (``.ci/run`` installs it); outside CI it is skipped when missing.
"""

from __future__ import annotations

import ast
import gettext
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from games import engine
from games.engine.bot import choose, next_decision
from games.engine.rng import Rng
from games.log import describe
from games.messages import ENGINE_MESSAGES, SERVICE_MESSAGES, illegal_message, service_message
from games.models import TIME_CONTROLS
from games.web.forms import TIME_CONTROL_LABELS
from tools.i18n import Entry, mo_bytes, read_po

from .conftest import create_started_game, create_user, seat_users

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
#: Language -> number of plural forms (GNU gettext "Plural forms": Swedish 2, Polish 3, Korean 1).
PLURALS = {"sv": 2, "pl": 3, "ko": 1}
#: Top-level directories with no translatable strings of the site (the Makefile's I18N_IGNORE).
NOT_SCANNED = {"var", "node_modules", "tests", "benchmarks", "tools", "docs", "docker", "static", "locale"}
#: Per language, how the site says "My games" and "Optional rules" (the glossary's word in content.md §5.7).
SAYS = {
    "sv": {"My games": "Mina partier", "Optional rules": "Valfria regler", "Notifications": "Aviseringar"},
    "pl": {"My games": "Moje gry", "Optional rules": "Zasady opcjonalne", "Notifications": "Powiadomienia"},
    "ko": {"My games": "내 게임", "Optional rules": "변형 규칙", "Notifications": "알림"},
}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|%[sdif]")
TAG = re.compile(r"<[^>]+>")


def _catalogue(lang: str) -> list[Entry]:
    return read_po(LOCALE / lang / "LC_MESSAGES" / "django.po")


def _placeholders(text: str) -> list[str]:
    return sorted(m.group(0) for m in PLACEHOLDER.finditer(text.replace("%%", "")))


def _ci() -> bool:
    return bool(os.environ.get("CI"))


# ---------------------------------------------------------------------------------------------------------
# The catalogues


@pytest.mark.parametrize("lang", sorted(PLURALS))
def test_catalogue_is_complete_and_nothing_is_fuzzy(lang: str) -> None:
    entries = _catalogue(lang)
    header, messages = entries[0], entries[1:]
    assert header.msgid == "" and not header.fuzzy, "the header must not be fuzzy"
    assert f"Language: {lang}\n" in header.msgstr[0]
    plural_forms = re.search(r"Plural-Forms: nplurals=(\d+);", header.msgstr[0])
    assert plural_forms and int(plural_forms.group(1)) == PLURALS[lang]
    assert messages, "an empty catalogue"
    problems = []
    for e in messages:
        forms = PLURALS[lang] if e.msgid_plural is not None else 1
        if e.fuzzy:
            problems.append(f"fuzzy: {e.msgid!r}")
        if len(e.msgstr) != forms or not all(s.strip() for s in e.msgstr):
            problems.append(f"untranslated: {e.msgid!r} -> {e.msgstr!r}")
    assert not problems, f"{lang}: " + "; ".join(problems)


@pytest.mark.parametrize("lang", sorted(PLURALS))
def test_translations_keep_placeholders_and_markup(lang: str) -> None:
    problems = []
    for e in _catalogue(lang)[1:]:
        singular = _placeholders(e.msgid)
        every = sorted(set(singular) | set(_placeholders(e.msgid_plural or "")))
        tags = sorted(TAG.findall(e.msgid))
        for index, text in enumerate(e.msgstr):
            found = sorted(set(_placeholders(text)))
            # The singular of a plural message may leave out the count ("one card"), never anything else.
            allowed = {tuple(every)} | ({tuple(sorted(set(singular)))} if index == 0 else set())
            if tuple(found) not in allowed or len(_placeholders(text)) < len(singular):
                problems.append(f"placeholders {e.msgid!r}: {text!r}")
            if sorted(TAG.findall(text)) != tags:
                problems.append(f"markup {e.msgid!r}: {text!r}")
    assert not problems, f"{lang}: " + "; ".join(problems)


def _extract_current_msgids(tmp_path: Path) -> set[tuple[str | None, str, str | None]]:
    """Run ``makemessages`` over a copy of the project; return the (context, msgid, plural) it extracts."""
    copy = tmp_path / "project"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for item in ROOT.iterdir():
        if item.name.startswith(".") or item.name in NOT_SCANNED or item.name.endswith(".egg-info"):
            continue
        if item.is_dir():
            shutil.copytree(item, copy / item.name, ignore=ignore)
        elif item.suffix in (".py", ".html", ".txt"):
            shutil.copy2(item, copy / item.name)
    (copy / "locale").mkdir()
    env = {
        **os.environ,
        "MASTERY_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "mastery.settings",
    }
    env.pop("DATABASE_URL", None)
    # makemessages writes into the LOCALE_PATHS of the settings it loads: make sure they are the copy's.
    where = subprocess.run(
        [sys.executable, "-c", "from mastery import settings; print(settings.BASE_DIR)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()) == copy, where.stdout
    result = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "sv", "--keep-pot", "--no-obsolete", "-v0"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    pot = copy / "locale" / "django.pot"
    return {(e.msgctxt, e.msgid, e.msgid_plural) for e in read_po(pot)[1:]}


def test_catalogues_hold_exactly_the_strings_of_the_code(tmp_path: Path) -> None:
    """No string in the code or templates lacks a catalogue entry, and no entry is left over from removed
    code. Fix with ``make makemessages``, then translate the new entries."""
    if shutil.which("xgettext") is None:
        if _ci():
            pytest.fail("xgettext (GNU gettext) is required in CI")
        pytest.skip("xgettext is missing (apt-get install gettext); the staleness check runs in CI")
    current = _extract_current_msgids(tmp_path)
    assert len(current) > 300
    for lang in sorted(PLURALS):
        committed = {(e.msgctxt, e.msgid, e.msgid_plural) for e in _catalogue(lang)[1:]}
        missing = sorted(m[1] for m in current - committed)
        extra = sorted(m[1] for m in committed - current)
        assert not missing, f"{lang}: strings without translation (run `make makemessages`): {missing}"
        assert not extra, f"{lang}: entries no longer in the code (run `make makemessages`): {extra}"


@pytest.mark.parametrize("lang", sorted(PLURALS))
def test_standard_library_compiler_agrees_with_msgfmt(lang: str, tmp_path: Path) -> None:
    """``make messages`` falls back to :mod:`tools.i18n` without GNU gettext: both give the same catalogue."""
    po = LOCALE / lang / "LC_MESSAGES" / "django.po"
    ours = gettext.GNUTranslations(io.BytesIO(mo_bytes(read_po(po))))
    assert ours.ngettext("%(n)s day", "%(n)s days", 1) != "%(n)s day"
    if shutil.which("msgfmt") is None:
        if _ci():
            pytest.fail("msgfmt (GNU gettext) is required in CI")
        pytest.skip("msgfmt is missing")
    mo = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(mo), str(po)], check=True)
    with mo.open("rb") as handle:
        theirs = gettext.GNUTranslations(handle)
    catalogue = {k: v for k, v in ours._catalog.items() if k != ""}  # type: ignore[attr-defined]
    expected = {k: v for k, v in theirs._catalog.items() if k != ""}  # type: ignore[attr-defined]
    assert catalogue == expected
    numbers = (0, 1, 2, 5, 12, 22, 25)
    assert [ours.plural(n) for n in numbers] == [theirs.plural(n) for n in numbers]  # type: ignore[attr-defined]


def test_polish_plural_forms() -> None:
    with translation.override("pl"):
        days = [translation.ngettext("%(n)s day", "%(n)s days", n) % {"n": n} for n in (1, 2, 5, 22, 25)]
    assert days == ["1 dzień", "2 dni", "5 dni", "22 dni", "25 dni"]
    with translation.override("pl"):
        hours = [translation.ngettext("%(n)s hour", "%(n)s hours", n) % {"n": n} for n in (1, 3, 12, 24)]
    assert hours == ["1 godzina", "3 godziny", "12 godzin", "24 godziny"]


# ---------------------------------------------------------------------------------------------------------
# Strings built in Python


def test_every_engine_error_code_has_a_translated_sentence() -> None:
    assert {code.value for code in engine.ErrorCode} == set(ENGINE_MESSAGES)
    fallback = "fallback"
    for code in engine.ErrorCode:
        with translation.override("en"):
            english = illegal_message({"engine_code": code.value}, fallback)
        assert english != fallback and english
        for lang in PLURALS:
            with translation.override(lang):
                translated = illegal_message({"engine_code": code.value, "rule": "R46"}, fallback)
            assert (
                translated.endswith(" — R46") and translated.removesuffix(" — R46") != english.split(" — ")[0]
            )


def test_every_fixed_service_error_has_a_translated_sentence() -> None:
    """Pages show :func:`games.messages.service_message`: every literal message a module of
    ``games/services/`` raises must be in :data:`games.messages.SERVICE_MESSAGES`."""
    trees = [
        ast.parse(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "games" / "services").glob("*.py"))
    ]
    errors = {"ServiceError", "NotFound", "Forbidden", "Conflict", "StaleState", "BadPayload", "Illegal"}
    raised = set()
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            args = node.exc.args
            if (
                name in errors
                and args
                and isinstance(args[0], ast.Constant)
                and isinstance(args[0].value, str)
            ):
                raised.add(args[0].value)
    assert raised, "no service errors found"
    assert raised <= set(SERVICE_MESSAGES), sorted(raised - set(SERVICE_MESSAGES))

    class Refused(Exception):
        message = "this table is full"
        params: dict[str, Any] = {}  # noqa: RUF012

    with translation.override("sv"):
        assert service_message(Refused()) == "Bordet är fullt."
    with translation.override("ko"):
        text = service_message(type("E", (), {"message": "x", "params": {"engine_code": "over_capacity"}})())
    assert text.startswith("그만큼의 기사는") and text.endswith("— R12")


def test_time_control_labels_are_marked_for_translation() -> None:
    assert {label for label, _turn, _response in TIME_CONTROLS.values()} <= set(TIME_CONTROL_LABELS)
    with translation.override("pl"):
        assert translation.gettext(TIME_CONTROLS["daily"][0]).startswith("Codzienne")


def _bot_game_events(options: dict[str, Any], seed: int, players: int = 4) -> list[engine.Event]:
    state = engine.new_game({"players": players, "seed": seed, "options": options})
    rng = Rng(seed)
    events: list[engine.Event] = []
    for _ in range(4000):
        seat = next_decision(state)
        if seat is None:
            break
        action = choose(state, seat, rng)
        assert action is not None
        transition = engine.apply(state, seat, action)
        state = transition.state
        events += [engine.redact_event(ev, 0) for ev in transition.events]
    return events


def test_every_game_log_sentence_is_translated() -> None:
    """Full bot games (all optional rules between them): every sentence of the log differs from English in
    each language, and Korean uses the content's Korean artefact and territory names."""
    events = _bot_game_events({"mayhem": True, "cut_throat": True}, 3) + _bot_game_events(
        {"allegiance": "pairs", "skirmish": True}, 5
    )
    events += _bot_game_events({"castle_siege": True}, 8, players=3)
    kinds = {ev["type"] for ev in events}
    assert {"battle_result", "knights_gained", "advanced", "card_played", "game_over"} <= kinds
    names = {seat: f"P{seat}" for seat in range(6)}
    lines = 0
    for ev in events:
        with translation.override("en"):
            english = describe(ev, names)
        if not english:
            continue
        lines += 1
        for lang in PLURALS:
            with translation.override(lang):
                assert describe(ev, names) != english, (lang, ev)
    assert lines > 100
    with translation.override("ko"):
        text = describe(
            {"type": engine.EventType.ARTEFACT_APPLIED, "turn": 1, "artefact": "orb_brutality"}, names
        )
        assert text.startswith("야만성의 오브")
        text = describe(
            {"type": engine.EventType.CONQUERED, "turn": 1, "seat": 0, "pos": "t1", "tile": "mountains"},
            names,
        )
        assert "산지" in text
    with translation.override("sv"):
        text = describe(
            {"type": engine.EventType.ARTEFACT_APPLIED, "turn": 1, "artefact": "orb_brutality"}, names
        )
        assert text == "Brutalitetens äpple tillämpas."  # issue 15: artefact names in the reader's language


def test_templates_do_not_hard_code_date_formats() -> None:
    """Dates follow the active language's formats, and one of them (issue 16): ``|date`` takes
    ``DATETIME_FORMAT`` for a moment, ``DATE_FORMAT`` for a day, or ISO ``c`` / ``U`` for machines."""
    bad = []
    for path in (ROOT / "templates").rglob("*.*"):
        for match in re.finditer(r"\|(date|time):['\"]([^'\"]+)['\"]", path.read_text(encoding="utf-8")):
            if match.group(2) not in {"DATETIME_FORMAT", "DATE_FORMAT", "c", "U"}:
                bad.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert not bad, bad


# ---------------------------------------------------------------------------------------------------------
# Pages in each language, and choosing the language


def _client_for(lang: str) -> tuple[Client, User]:
    user = create_user()
    user.language = lang
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client, user


@pytest.mark.django_db
@pytest.mark.parametrize("lang", sorted(PLURALS))
def test_pages_render_in_the_profile_language(lang: str) -> None:
    client, _user = _client_for(lang)
    says = SAYS[lang]
    pages = {
        reverse("home"): [],
        reverse("games:my_games"): [],
        reverse("games:new"): [says["Optional rules"]],
        reverse("accounts:profile"): [says["Notifications"]],
    }
    for url, expected in pages.items():
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")  # the profile wins over the browser
        assert response.status_code == 200, url
        page = response.content.decode()
        assert f'<html lang="{lang}">' in page, url
        assert response["Content-Language"] == lang
        assert says["My games"] in page and ">My games<" not in page, url
        for text in expected:
            assert text in page, (url, text)


@pytest.mark.django_db
def test_anonymous_visitors_get_the_browser_language_then_the_switcher_choice() -> None:
    client = Client()
    page = client.get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE="sv,en;q=0.5").content.decode()
    assert '<html lang="sv">' in page and "Logga in" in page
    assert 'action="/accounts/language/"' in page and 'name="language"' in page
    response = client.post(reverse("accounts:language"), {"language": "ko", "next": "/accounts/login/"})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    page = client.get(reverse("account_login"), HTTP_ACCEPT_LANGUAGE="sv").content.decode()
    assert '<html lang="ko">' in page and "로그인" in page


@pytest.mark.django_db
def test_the_switcher_saves_the_choice_to_the_profile() -> None:
    client, user = _client_for("sv")
    response = client.post(
        reverse("accounts:language"), {"language": "pl", "next": reverse("games:my_games")}
    )
    assert response.status_code == 302 and response["Location"] == reverse("games:my_games")
    user.refresh_from_db()
    assert user.language == "pl"
    other = Client()  # another browser without the cookie: the profile still decides
    other.force_login(user)
    page = other.get(reverse("games:my_games")).content.decode()
    assert '<html lang="pl">' in page and "Moje gry" in page
    # An unknown language changes nothing.
    client.post(reverse("accounts:language"), {"language": "xx", "next": "/"})
    user.refresh_from_db()
    assert user.language == "pl"
    assert client.get(reverse("accounts:language")).status_code == 405


@pytest.mark.django_db
def test_the_switcher_lists_every_language_in_its_own_name() -> None:
    page = Client().get(reverse("home")).content.decode()
    switcher = page[page.index('class="language-switcher"') :]
    for code, _name in settings.LANGUAGES:
        assert f'value="{code}"' in switcher
    for own in ("English", "Svenska", "Polski", "한국어"):
        assert own in switcher
    assert '<button type="submit"' in switcher  # works without JavaScript


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["sv", "pl"])
def test_the_map_keeps_machine_numbers_in_languages_with_a_decimal_comma(lang: str) -> None:
    game = create_started_game(humans=1, bots=1)
    user = next(iter(seat_users(game).values()))
    user.language = lang
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert f'<html lang="{lang}">' in page and "<svg" in page
    numeric = r'\b(?:x|y|cx|cy|r|width|height|transform|viewBox|aria-valuenow|style)="[^"]*\d,\d[^"]*"'
    assert re.findall(numeric, page) == []
    # Polygon points are "x,y" pairs: each pair must be two dot-decimal numbers.
    pair = r"-?\d+(?:\.\d+)?,-?\d+(?:\.\d+)?"
    for points in re.findall(r'\bpoints="([^"]*)"', page):
        assert re.fullmatch(rf"{pair}(?: {pair})*", points.strip()), points
