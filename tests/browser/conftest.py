"""Fixtures and page helpers of the browser tests (Playwright's sync API driving Debian's Chromium against
pytest-django's ``live_server``).

* ``browser`` (module scope): headless ``/usr/bin/chromium``; never a downloaded browser. Outside CI the
  tests are skipped when that binary (or the ``playwright`` package) is missing; with ``CI`` set they must
  run (``.ci/run`` installs chromium).
* ``web``: opens browser contexts on the live server and records every server error (5xx) and JavaScript
  error the pages meet, so a test can assert there were none.
* ``login_context`` opens a context already logged in (no login form); ``play_out`` plays a game of human
  seats forward with the bots' policy, the same moves for the same seed on any database.
* :class:`Player` drives the game page like a person: it reads the decision panel and submits one of the
  forms it offers (the policy: advance into a rival's territory with as many knights as allowed, else into
  an uncontrolled one, else end the turn; pass in windows and support; first conflict card).

Playwright's sync API keeps an asyncio loop running in the test thread, so Django's async-safety check
would refuse the ORM calls of fixtures and of the test itself: ``DJANGO_ALLOW_ASYNC_UNSAFE`` is set while
the browser is open (and restored afterwards).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

#: Debian's Chromium (the ``chromium`` package); ``MASTERY_CHROMIUM`` may point elsewhere.
CHROMIUM = Path(os.environ.get("MASTERY_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Where screenshots go: ``docs/screenshots/`` (the README's) only when asked with
#: ``MASTERY_SCREENSHOTS=1`` (``make screenshots``); otherwise a temporary folder, so running the tests
#: leaves the working copy clean (issue 16).
SCREENSHOTS = (
    Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    if os.environ.get("MASTERY_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "mastery-screenshots"
)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
#: Password of the users the browser tests sign up.
PASSWORD = "a-long-Castle-password-42"


def _unavailable() -> str | None:
    """Why the browser tests cannot run here (``None``: they can). In CI nothing is a reason to skip."""
    if os.environ.get("CI"):
        return None
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium); the browser tests run in CI"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Debian Chromium for the module's tests (skipped outside CI when it is missing)."""
    reason = _unavailable()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as pw:
            chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@dataclass
class Web:
    """Browser contexts on the live server, and the problems their pages met.

    Attributes:
        problems: "500 GET /games/3/" for every 5xx answer and "JS error: ..." for every uncaught
            JavaScript error of any page opened through :meth:`context`.
    """

    browser: Browser
    base_url: str
    contexts: list[BrowserContext] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def context(
        self, viewport: dict[str, int] | None = None, storage_state: Any = None, has_touch: bool = False
    ) -> BrowserContext:
        """A fresh browser context (its own cookies) with ``base_url`` set to the live server; ``has_touch``
        for taps (a phone)."""
        ctx = self.browser.new_context(
            base_url=self.base_url,
            viewport=viewport or DESKTOP,  # type: ignore[arg-type]
            storage_state=storage_state,
            has_touch=has_touch,
            locale="en-GB",
            timezone_id="UTC",
        )
        ctx.set_default_timeout(15_000)
        ctx.on("page", self._watch)
        self.contexts.append(ctx)
        return ctx

    def page(self, viewport: dict[str, int] | None = None, storage_state: Any = None) -> Page:
        """A page in a fresh context (see :meth:`context`)."""
        return self.context(viewport, storage_state).new_page()

    def _watch(self, page: Page) -> None:
        def on_response(response: Any) -> None:
            if response.status >= 500:
                self.problems.append(f"{response.status} {response.request.method} {response.url}")

        page.on("response", on_response)
        page.on("pageerror", lambda error: self.problems.append(f"JS error: {error}"))

    def assert_clean(self) -> None:
        """No page met a server error or a JavaScript error."""
        assert not self.problems, "\n".join(self.problems)


@pytest.fixture
def web(browser: Browser, live_server: Any) -> Iterator[Web]:
    """Open browser contexts on the live server (closed after the test)."""
    session = Web(browser, live_server.url)
    yield session
    for ctx in session.contexts:
        ctx.close()


def shot(page: Page, name: str, at: str | None = None) -> Path:
    """Save a screenshot of the page's viewport as ``<SCREENSHOTS>/<name>.png``: its top, or with the
    element ``at`` (a selector) at the top of the screen."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if at is None:
        page.evaluate("window.scrollTo(0, 0)")
    else:
        page.locator(at).evaluate("el => el.scrollIntoView({block: 'start'})")
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled", caret="hide")
    return path


# ------------------------------------------------------------------------------------------------------
# Accounts
# ------------------------------------------------------------------------------------------------------


def sign_up(page: Page, email: str, name: str, password: str = PASSWORD) -> None:
    """Fill in and send the sign-up form (allauth, with the display name)."""
    from playwright.sync_api import expect

    page.goto("/accounts/signup/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Display name").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password (again)").fill(password)
    page.get_by_role("main").get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()


def confirmation_link(outbox: list[Any], email: str) -> str:
    """The email-confirmation link of the last message sent to ``email``."""
    messages = [m for m in outbox if email in m.to]
    assert messages, f"no email was sent to {email}"
    body = messages[-1].body
    found = re.search(r"https?://\S+/accounts/confirm-email/[^\s/]+/", body)
    assert found, f"no confirmation link in the email to {email}:\n{body}"
    return found.group(0)


def confirm_email(page: Page, link: str) -> None:
    """Open the confirmation link and press its button (allauth confirms on POST)."""
    from playwright.sync_api import expect

    page.goto(link)
    expect(page.get_by_role("heading", name="Confirm your email address")).to_be_visible()
    page.get_by_role("main").get_by_role("button", name="Confirm").click()
    page.wait_for_load_state()


def log_in(page: Page, email: str, password: str = PASSWORD) -> None:
    """Log in through the login page; ends on "My games"."""
    from playwright.sync_api import expect

    page.goto("/accounts/login/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("main").get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="My games", level=1)).to_be_visible()


def login_context(
    web: Web, user: Any, viewport: dict[str, int] | None = None, has_touch: bool = False
) -> BrowserContext:
    """A browser context already logged in as ``user`` (the session cookie of Django's test client's
    ``force_login``), for tests about something other than logging in."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    ctx = web.context(viewport, has_touch=has_touch)
    ctx.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": web.base_url}])
    return ctx


def play_out(game: Any, done: Callable[[Any], bool] | None = None, *, limit: int = 2000) -> Any:
    """Play a game whose seats are all human forward with :func:`games.bots.bot_action` (through
    ``services.action_submit``) until ``done(game)`` or the end; returns the game.

    Unlike ``tests.web.conftest.play_until`` (where server-side bots draw on the game's id), the moves depend
    only on the engine seed, so a seed gives the same game on SQLite and PostgreSQL whatever ids the rows get.
    """
    from games import engine, services
    from games.bots import bot_action
    from games.models import Game
    from tests.web.conftest import seat_users, state_of

    users = seat_users(game)
    for _ in range(limit):
        if game.status != Game.Status.ACTIVE or (done is not None and done(game)):
            return game
        state = state_of(game)
        seat = engine.pending(state)[0].seat
        action = bot_action(state, seat, 0, game.seq)
        result = services.action_submit(
            game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq
        )
        game = result.game
    raise AssertionError(f"neither done nor over within {limit} moves")


# ------------------------------------------------------------------------------------------------------
# The game page
# ------------------------------------------------------------------------------------------------------

#: True once htmx has finished a request and its swap (the requesting form carries ``htmx-request`` until
#: the answer is swapped in; the new panels carry ``htmx-swapping``/``htmx-settling`` for a moment).
_SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def _is_act(response: Any) -> bool:
    return bool(response.request.method == "POST" and response.url.endswith("/act/"))


@dataclass
class Move:
    """One decision taken through the page: the form used and what it said."""

    player: str
    kind: str
    detail: str = ""
    #: The HTML of the game's answer to the submit (after its confirmation, if one was asked): the panels
    #: htmx swapped in.
    answer: str = field(default="", repr=False)

    def __str__(self) -> str:
        return f"{self.player}: {self.kind}{' ' + self.detail if self.detail else ''}"


@dataclass
class Player:
    """A person in front of the game page: reads the decision panel and submits one of its forms.

    Attributes:
        name: the display name (for messages).
        page: the open game page.
        moves: every decision this player took.
    """

    name: str
    page: Page
    moves: list[Move] = field(default_factory=list)

    @property
    def decision(self) -> Locator:
        """The decision panel."""
        return self.page.locator("#decision")

    @property
    def advance_form(self) -> Locator:
        """The fields of the advance form ("Advance from your castle")."""
        return self.decision.get_by_role("group", name="Advance from your castle")

    def seq(self) -> int:
        """The position (``seq``) the page shows."""
        return int(self.page.locator("#game-header").get_attribute("data-seq") or -1)

    def has_decision(self) -> bool:
        """Does the panel offer this player a decision now?"""
        return self.page.locator("#decision.mine").count() > 0

    def finished(self) -> bool:
        """Does the page show the final result?"""
        return self.page.locator("#result.result").count() > 0

    def form_types(self) -> list[str]:
        """The action type of every form of the decision panel."""
        fields = self.page.locator("#decision form.act input[name=type]")
        return list(fields.evaluate_all("inputs => inputs.map(i => i.value)"))

    def in_battle(self) -> bool:
        """Does the status panel show a battle?"""
        return self.page.locator("#status .scores").count() > 0

    def log_text(self) -> str:
        """The game log as shown."""
        return self.page.locator("#log").inner_text()

    def advance_options(self) -> list[dict[str, Any]]:
        """The advance form's targets: value, label, most knights allowed, and whether it is a battle."""
        options = (
            self.advance_form.get_by_label("Advance into")
            .locator("option")
            .evaluate_all(
                "os => os.filter(o => o.value)"
                ".map(o => ({value: o.value, label: o.textContent.trim(), max: +o.dataset.max}))"
            )
        )
        for option in options:
            option["battle"] = "⚔" in option["label"]
        return list(options)

    def submit(self, button: Locator, kind: str, detail: str = "") -> Move:
        """Press ``button`` and wait until the game answered it.

        Raises:
            AssertionError: the game refused the move (the reason shown is in the message), except for a
                stale form (409), which only refreshes the panels.
        """
        with self.page.expect_response(_is_act) as answer:
            button.click()
        status = answer.value.status
        self.page.wait_for_function(_SETTLED)
        confirm = self.decision.locator("#confirm-yes")
        if status == 200 and confirm.count():  # an act that cannot be taken back asks first (issue 16)
            with self.page.expect_response(_is_act) as answer:
                confirm.click()
            status = answer.value.status
            self.page.wait_for_function(_SETTLED)
            detail = f"{detail} (confirmed)".strip()
        if status != 200:
            text = self.decision.locator(".error").inner_text()
            assert status == 409, f"{self.name}: {kind} {detail} refused ({status}): {text}"
            kind = f"{kind} (stale)"
        move = Move(self.name, kind, detail, answer=answer.value.text())
        self.moves.append(move)
        return move

    def act(
        self, *, use_map: bool = False, before: Callable[[Player, list[str]], None] | None = None
    ) -> Move:
        """Take the decision the panel offers, with the policy of the module docstring.

        Args:
            use_map: pick the advance target by clicking its tile on the map (else with the select).
            before: called with the player and the panel's form types just before the form is sent (for
                screenshots).
        """
        d = self.decision
        types = self.form_types()
        if before is not None:
            before(self, types)
        if "respond" in types:
            return self.submit(d.get_by_role("button", name="Pass", exact=True), "respond", "pass")
        if "choose_conflict" in types:
            card = d.get_by_role("group", name="Your conflict card").get_by_role("radio").first
            card.check()
            return self.submit(d.get_by_role("button", name="Place face down"), "choose_conflict")
        if "pass_support" in types:
            return self.submit(d.get_by_role("button", name="Pass", exact=True), "pass_support")
        if "fear_choice" in types:
            return self.submit(d.get_by_role("button", name="Keep my own knight count"), "fear_choice")
        if "discard_choice" in types:
            return self.submit(d.get_by_role("button", name="Keep all my cards"), "discard_choice", "keep")
        if "insight_order" in types:
            return self.submit(d.get_by_role("button", name="Put the cards back"), "insight_order")
        if "prosperity_choice" in types:
            return self.submit(d.get_by_role("button", name="Leave it on top"), "prosperity_choice")
        if "finish_redistribution" in types:
            return self.submit(d.get_by_role("button", name="Finish the redistribution"), "finish")
        if "advance" in types:
            options = self.advance_options()
            battles = [o for o in options if o["battle"]]
            choice = max(battles, key=lambda o: o["max"]) if battles else options[0]
            into = self.advance_form.get_by_label("Advance into")
            if use_map:
                self.page.locator(f"#tile-{choice['value']}").click()
            else:
                into.select_option(choice["value"])
            from playwright.sync_api import expect

            expect(into).to_have_value(choice["value"])
            knights = self.advance_form.get_by_label("Knights")
            most = self.advance_form.locator("#advance-all")
            if most.count() and most.is_visible():  # "all 6" fills the most that can go there (issue 29)
                most.click()
                expect(knights).to_have_value(str(choice["max"]))
            else:
                knights.fill(str(choice["max"]))
            detail = f"{choice['max']} into {choice['label']}"
            return self.submit(d.get_by_role("button", name="Advance", exact=True), "advance", detail)
        if "decline_advance" in types:
            return self.submit(d.get_by_role("button", name="Do not advance (end the manoeuvre)"), "decline")
        if "end_turn" in types:
            return self.submit(d.get_by_role("button", name="End my turn"), "end_turn")
        raise AssertionError(f"{self.name}: no form I know in the decision panel:\n{d.inner_text()}")
