"""Issue 29, "How we will know": a newcomer's first game, one person against two normal bots on the default
(daily) clock, played to the end through the page. At every decision along the way:

* nothing irreversible is chosen for the player: no radio button or checkbox of the decision panel is
  ticked, no target list has an entry selected, the advance form's knight count is empty;
* the game never makes the person wait: the panel that each submit's own answer swaps in already holds the
  person's next decision or the end of the game, never "Waiting for …" or "… is thinking". Bots play inside
  the person's request, and at a table with one person nobody waits for the Fracture masking delay
  (``masking_watched``). This is asserted on the page's structure, not on the wall clock (tests may not
  time the machine, tests/test_no_wall_clock.py); ``make bench-first-game`` measures the waits.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from games.models import Game
from tests.browser.conftest import PASSWORD, Player, Web, log_in
from tests.browser.test_play import expect
from tests.web.conftest import create_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The game's seed (the lobby draws it with ``secrets.randbits``; the live server runs in this process): a
#: game of about 45 decisions for Nora with Fracture windows, battles, a Fear choice and confirmations.
#: The bots' moves also draw on the game's id, so another database may take another path.
SEED = 6
#: More decisions than any game of this policy needs (a whole 3-player game is a few hundred at most).
DECISIONS = 800

#: Controls of the decision panel that hold a value before the player chose one: checked radio buttons and
#: checkboxes, target lists with a non-empty entry selected, number fields already filled. Exceptions:
#:
#: * ``insight_order``: the Crown of Insight's order lists show the cards' current order, top first; sending
#:   it unchanged puts the cards back as they were (a choice nobody can make by mistake: it is the order
#:   the player sees);
#: * ``redistribute``: its knight count starts at 1; a redistribution is a step of the player's own turn
#:   that Undo takes back (its source and destination lists start empty anyway).
PRESET = """() => {
  const found = [];
  for (const form of document.querySelectorAll('#decision form.act')) {
    const act = form.dataset.act;
    for (const box of form.querySelectorAll('input[type=radio], input[type=checkbox]')) {
      if (box.checked) found.push(`${act}: ${box.name}=${box.value} is ticked`);
    }
    if (act !== 'insight_order') {
      for (const list of form.querySelectorAll('select')) {
        const picked = list.selectedOptions[0];
        if (picked && picked.value !== '') found.push(`${act}: ${list.name}=${picked.value} is selected`);
      }
    }
    if (act !== 'redistribute') {
      for (const field of form.querySelectorAll('input[type=number]')) {
        if (field.value !== '') found.push(`${act}: ${field.name}=${field.value} is filled in`);
      }
    }
  }
  return found;
}"""

#: The decision panel of an HTML answer (the act's response, as htmx swaps it in): whether it offers the
#: viewer a decision (``mine``), its waiting lines and its text.
ANSWERED = """html => {
  const panel = new DOMParser().parseFromString(html, 'text/html').querySelector('#decision');
  if (!panel) return null;
  return {
    mine: panel.classList.contains('mine'),
    waiting: [...panel.querySelectorAll('.waiting')].map(p => p.textContent.replace(/\\s+/g, ' ').trim()),
    text: panel.textContent.replace(/\\s+/g, ' ').trim(),
  };
}"""


def open_default_table(page: Any, title: str) -> int:
    """Open a table through the "New game" form changing nothing but the title: 3 players, the daily clock,
    secret Fracture windows (the masking delay applies). Returns the game's id (on its lobby page)."""
    page.get_by_role("navigation").get_by_role("link", name="New game").click()
    expect(page.get_by_role("heading", name="New game", level=1)).to_be_visible()
    page.get_by_label("Title", exact=True).fill(title)
    expect(page.get_by_label("Players", exact=True)).to_have_value("3")
    expect(page.get_by_label("Time control", exact=True)).to_have_value("daily")
    secret = page.get_by_role("radio", name="secret — nobody learns who holds Fracture")
    expect(secret).to_be_checked()
    page.get_by_role("button", name="Open the table").click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    expect(page.get_by_text("An open table for 3 players.")).to_be_visible()
    return int(page.url.rstrip("/").rsplit("/", 1)[-1])


def test_a_first_game_against_two_normal_bots_never_waits_and_presets_nothing(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nora logs in, opens a 3-player table with the default options, fills the two empty seats with normal
    bots and plays every decision through the page to the result. Before each decision no irreversible
    control is pre-selected; after each submit its own answer shows her next decision or the end."""
    monkeypatch.setattr(secrets, "randbits", lambda _bits: SEED)  # the lobby's draw of the game seed
    create_user("nora@example.com", display_name="Nora", password=PASSWORD)
    page = web.context().new_page()
    log_in(page, "nora@example.com")
    game_id = open_default_table(page, "Nora's first game")
    page.get_by_label("Bot level").select_option("normal")
    page.get_by_role("button", name="Fill empty seats with bots").click()
    expect(page.locator("#game-header")).to_have_attribute("data-game", str(game_id))
    expect(page.locator("#players")).to_contain_text("Bot 1 (normal)")
    expect(page.locator("#players")).to_contain_text("Bot 2 (normal)")
    game = Game.objects.get(pk=game_id)
    # the table hides who holds Fracture: a seat without one is passed after a masking delay where a
    # person could read the timing (none here: Nora is the only person)
    assert game.time_control == "daily" and game.options["fracture_prompts"] == "all"
    assert game.options["fracture_mask"][0] > 0

    nora = Player("Nora", page)
    checked: dict[str, int] = {}  # form type -> decisions whose controls were checked

    def nothing_preset(player: Player, types: list[str]) -> None:
        preset = player.page.evaluate(PRESET)
        assert not preset, f"decision {len(player.moves) + 1} ({types}) starts with a choice made: {preset}"
        if "advance" in types:
            expect(player.advance_form.get_by_label("Knights")).to_have_value("")
        for kind in set(types):
            checked[kind] = checked.get(kind, 0) + 1

    # the bots seated before Nora played in the request that filled the seats: her first decision is there
    assert nora.has_decision(), "no decision on the first page: " + nora.decision.inner_text()
    for _ in range(DECISIONS):
        if nora.finished():
            break
        assert nora.has_decision(), "the page offers no decision: " + nora.decision.inner_text()
        move = nora.act(before=nothing_preset)
        assert not move.kind.endswith("(stale)"), f"{move}: the game moved on behind the page"
        answered = page.evaluate(ANSWERED, move.answer)
        assert answered is not None, f"{move}: the answer holds no decision panel"
        assert not answered["waiting"], f"{move}: the answer makes Nora wait: {answered['waiting']}"
        assert "Waiting for" not in answered["text"] and "thinking" not in answered["text"], answered["text"]
        assert answered["mine"] or "The game is over." in answered["text"], (
            f"{move}: the answer offers neither Nora's next decision nor the result: {answered['text']}"
        )
    else:
        recent = "\n".join(str(m) for m in nora.moves[-15:])
        raise AssertionError(f"no result within {DECISIONS} decisions; the last ones:\n{recent}")

    confirmed = sum(m.detail.endswith("(confirmed)") for m in nora.moves)
    print(f"\n{len(nora.moves)} decisions ({confirmed} confirmed), forms checked: {checked}")  # information
    assert {"advance", "end_turn", "choose_conflict", "respond"} <= checked.keys(), checked
    result = page.locator("#result")
    expect(result).to_contain_text("Winner")
    expect(result.locator("table.standings tbody tr")).to_have_count(3)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winners
    assert sorted(s.bot_level for s in game.seats.filter(is_bot=True)) == ["normal", "normal"]
    web.assert_clean()
