"""Page models for the game templates: turn a :class:`games.selectors.GameView` into plain dicts that the
partials render (map geometry, seat colours and patterns, the decision forms grouped by action type).

Everything here reads only ``GameView`` (the engine's per-viewer ``view_for`` dict, the viewer's legal
actions and prompts, redacted log lines) and the public content set (names and ability texts,
:mod:`games.components`). Nothing reads ``Game.state``, so nothing here can show another seat's hand, a
deck order or a face-down card.

One module per part: :mod:`.common` (seat styles, card labels), :mod:`.board` (the map), :mod:`.panels`
(players, status, result), :mod:`.decision` (the decision forms) and :mod:`.charts` (rating chart). This
package's :class:`PageModel` puts them together for the game page.
"""

from __future__ import annotations

import copy
import hashlib
from datetime import datetime
from functools import cached_property

from django.core.cache import cache
from django.utils.translation import get_language

from games import engine
from games.components import content_of, localized_view
from games.models import Game
from games.selectors import GameView, LogEntry
from games.web.presenters.board import HEX_SIZE, board_model
from games.web.presenters.charts import rating_chart
from games.web.presenters.common import (
    SEAT_COLOURS,
    SEAT_PATTERNS,
    actions_by_type,
    card_label,
    seat_style,
)
from games.web.presenters.decision import PROMPT_HEADLINES, decision_model
from games.web.presenters.panels import (
    BATTLE_STEPS,
    MOD_LABELS,
    TURN_STEPS,
    players_model,
    result_model,
    status_model,
)
from games.web.presenters.recent import since_model
from games.web.presenters.shapes import (
    BoardModel,
    DecisionModel,
    HandCard,
    Hint,
    PlayerPanel,
    ResultModel,
    SinceModel,
    StatusModel,
    TeamInfo,
)
from games.web.presenters.tutorial import SEAT as TUTORIAL_SEAT
from games.web.presenters.tutorial import overview_steps, tutorial_model

__all__ = [
    "BATTLE_STEPS",
    "HEX_SIZE",
    "MOD_LABELS",
    "PROMPT_HEADLINES",
    "SEAT_COLOURS",
    "SEAT_PATTERNS",
    "TURN_STEPS",
    "PageModel",
    "board_model",
    "card_label",
    "decision_model",
    "page_model",
    "players_model",
    "rating_chart",
    "result_model",
    "seat_style",
    "status_model",
]


class PageModel:
    """Everything the game page and its partials show, each part built on first use (``page.board`` in a
    template) and then kept (``functools.cached_property``). The panels are cached per position
    (``{% cache %}``), so a panel whose cached HTML is used never builds its part. An exception raised
    while building a part propagates to the request (a 500 in production, a failing test), instead of being
    read by the template engine as a missing variable.

    Args:
        gv: the viewer's :class:`~games.selectors.GameView` of a started game (``gv.view`` is not ``None``).
        now: the current time (deadlines are shown relative to it).
    """

    def __init__(self, gv: GameView, now: datetime) -> None:
        assert gv.view is not None, "the page model needs a started game's view"
        # a named copy: the context's ``view`` stays the engine's own
        view = localized_view(gv.view, content_of(gv.game.content))
        gv = copy.copy(gv)  # keeps a log already read (replays set it)
        gv.view = view
        self.gv = gv
        self.now = now
        self.view: engine.View = view
        #: Seat number -> public name.
        self.names = gv.names
        #: The viewer's own player entry of the view (``None`` for a spectator).
        self.me: engine.PlayerView | None = self.view["players"][gv.seat] if gv.seat is not None else None
        self.my_style = seat_style(self.view, gv.seat) if gv.seat is not None else None
        self.active_name = self.names.get(self.view["active"], "?")
        self.finished = gv.game.status == Game.Status.FINISHED

    @cached_property
    def board(self) -> BoardModel:
        """The map (:func:`board_model`, looked up in this package when first used, so a test may replace
        ``games.web.presenters.board_model``)."""
        return board_model(self.view, self.names, self.gv.legal, self.gv.seat)

    @cached_property
    def board_choosing(self) -> bool:
        """Whether the viewer picks a territory on the map now (an advance or a redistribution)."""
        groups = actions_by_type(self.gv.legal)
        return bool(groups.of(engine.Advance) or any(a.moves for a in groups.of(engine.Redistribute)))

    @cached_property
    def players(self) -> list[PlayerPanel]:
        """The players panel (:func:`players_model`)."""
        return players_model(self.gv, self.names)

    @cached_property
    def my_team(self) -> TeamInfo | None:
        """The viewer's Allegiance team entry, or ``None`` (R105)."""
        return next((p.get("team_info") for p in self.players if p["is_me"]), None)

    @cached_property
    def hand(self) -> list[HandCard]:
        """The viewer's hand, each card with its label."""
        hand = self.me.get("hand", []) if self.me is not None else []
        return [{**c, "label": card_label(c)} for c in hand]

    @cached_property
    def status(self) -> StatusModel:
        """The status panel (:func:`status_model`); in the guided game, its turn overview highlights the
        hint's step (:func:`.tutorial.overview_steps`, issue 29)."""
        status = status_model(self.gv, self.names)
        return {**status, "steps": overview_steps(status["steps"], self.tutorial)}

    @cached_property
    def decision(self) -> DecisionModel:
        """The decision panel (:func:`decision_model`)."""
        return decision_model(self.gv, self.names, self.now)

    @property
    def has_log(self) -> bool:
        """Whether the view was read with its log (a confirmation's panel is built without it)."""
        return self.gv.log_loader is not None

    @cached_property
    def since(self) -> SinceModel:
        """The "Since your last move" block at the top of the decision panel (:func:`.recent.since_model`,
        issue 29). It reads the log (``gv.log``), so it is cached like the panels: per game, position, seat,
        language and players' names (a warm page view reads no log). Empty, and not cached, for a view read
        without its log (a confirmation's panel)."""
        if not self.has_log:
            return {"items": [], "more": 0}
        names = hashlib.blake2s(repr(sorted(self.names.items())).encode(), digest_size=8).hexdigest()
        game = self.gv.game
        key = f"since:{game.pk}:{game.seq}:{self.gv.seat}:{get_language()}:{names}"
        found: SinceModel | None = cache.get(key)
        if found is None:
            found = since_model(self.gv, self.names)
            cache.set(key, found, 900)
        return found

    @cached_property
    def log(self) -> list[LogEntry]:
        """The log entries that have lines to show, newest first."""
        return [entry for entry in self.gv.log if entry["lines"]]

    @cached_property
    def tutorial(self) -> Hint | None:
        """The guided first game's hint for its newcomer (:func:`.tutorial.tutorial_model`), else ``None``."""
        if not self.gv.game.tutorial or self.gv.seat != TUTORIAL_SEAT:
            return None
        return tutorial_model(self.view, self.gv.legal, self.names, lambda: self.gv.log)

    @cached_property
    def result(self) -> ResultModel | None:
        """The result panel of a finished game (:func:`result_model`)."""
        return result_model(self.gv)


def page_model(gv: GameView, now: datetime) -> PageModel:
    """The :class:`PageModel` of the game page for ``gv`` at ``now``."""
    return PageModel(gv, now)
