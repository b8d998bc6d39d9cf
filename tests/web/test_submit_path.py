"""issue 13 "Layers without cycles": "A submit goes from the HTMX view to the engine and back through at
most five modules of the project."

The test follows a real HTMX submit (``POST /games/<id>/act/``) with :func:`sys.setprofile` and, at every
call into the project made by the write (while the play service is on the stack: lock, apply, store,
queue), reads which project modules are on the call stack. The engine counts as one module: it is a
package with one entry point, ``games.engine.apply``. The publish of the notification task is stubbed (a
worker sends the email, not the request). Rendering the answer afterwards reads a fresh view through the
presenters and selectors, which never write.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from django.test import Client

from games import tasks
from games.models import Game

from .conftest import as_apply_async
from .test_pages import active_user

ROOT = Path(__file__).resolve().parent.parent.parent
PROJECT = ("games/", "accounts/", "mastery/")
SERVICE = "games/services/play.py"


def _module(frame: FrameType) -> str | None:
    """The project module a frame runs in (``"games/engine"`` for any module of the engine), or ``None``."""
    try:
        path = Path(frame.f_code.co_filename).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    if not path.startswith(PROJECT):
        return None
    return "games/engine" if path.startswith("games/engine/") else path


def _stack_modules(frame: FrameType | None) -> tuple[str, ...]:
    """The distinct project modules on the stack, outermost first."""
    found: list[str] = []
    while frame is not None:
        module = _module(frame)
        if module is not None and module not in found:
            found.append(module)
        frame = frame.f_back
    return tuple(reversed(found))


def traced_submit(client: Client, game: Game, profile: Callable[[FrameType, str, Any], None]) -> Any:
    """POST the active seat's end of turn as htmx does, with ``profile`` as the profiler meanwhile
    (:func:`sys.setprofile`); returns the response."""
    sys.setprofile(profile)
    try:
        return client.post(
            f"/games/{game.pk}/act/",
            {"type": "end_turn", "expected_seq": game.seq, "confirmed": "1"},
            HTTP_HX_REQUEST="true",
        )
    finally:
        sys.setprofile(None)


def test_an_htmx_submit_passes_through_at_most_five_project_modules(
    client: Client, two_player_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = two_player_game
    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(lambda **_kw: None))
    client.force_login(active_user(game))
    deepest: tuple[str, ...] = ()
    reached_engine = False

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal deepest, reached_engine
        if event != "call" or _module(frame) is None:
            return
        stack = _stack_modules(frame)
        if SERVICE not in stack:
            return
        reached_engine = reached_engine or stack[-1] == "games/engine"
        if len(stack) > len(deepest):
            deepest = stack

    response = traced_submit(client, game, profile)
    assert response.status_code == 200
    before = game.seq
    game.refresh_from_db()
    assert game.seq == before + 1  # the submit was applied
    assert reached_engine
    assert len(deepest) <= 5, " -> ".join(deepest)


#: docs/architecture.md states how many project modules outside the engine a submit enters; this test
#: measures it and holds the code to that figure (issue 31 §7: the map is true).
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def stated_bound() -> int:
    """The figure docs/architecture.md states ("**N project modules outside the engine**")."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    match = re.search(r"\*\*(\d+) project modules outside\s+the engine\*\*", text)
    assert match, "docs/architecture.md states the submit's module count"
    return int(match.group(1))


def test_an_htmx_submit_enters_no_more_project_modules_than_the_map_states(
    client: Client, two_player_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every project module outside the engine whose functions a real HTMX submit enters, from the request
    to the rendered answer (the imports and the URLconf warmed by one page load first), counted once."""
    game = two_player_game
    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(lambda **_kw: None))
    client.force_login(active_user(game))
    client.get(f"/games/{game.pk}/")  # warm: imports, URLconf, caches of the content set
    entered: set[str] = set()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":
            return
        module = _module(frame)
        if module is not None and module != "games/engine":
            entered.add(module)

    response = traced_submit(client, game, profile)
    assert response.status_code == 200
    assert "games/web/actions.py" in entered and "games/services/play.py" in entered
    assert len(entered) <= stated_bound(), "\n".join(sorted(entered))
