"""The "Since your last move" block at the top of the decision panel (issue 29 §3): what touched the viewer
since their own last move, in the game log's own words (:func:`games.log.describe`).

It reads only the viewer's log (``GameView.log``: the newest records with their events already redacted
for the viewer by :func:`games.engine.redact_event`), so it can say nothing the log panel could not: a
face-down card, another seat's hand or who answered a sealed window never appears here.

What counts, newest record last:

* the viewer's battles (they attack or defend), each as one item with every line of its story that changes
  the outcome: who attacks, the Arena's dice, fractured artefacts, discards, the revealed conflict cards
  with both scores, support played, the result with both scores, Mayhem, knights lost, the retreat and the
  conquest (so a territory lost in battle, R76–R78). A battle is shown while it runs and after it, until the
  viewer's next move after its end;
* outside their battles, what happened to the viewer: a card of theirs discarded (with the artefact or
  crown that did it, R102, R41), knights lost (R17), a territory lost to Cut-throat (R116), an artefact of
  theirs destroyed (R90), and the end of the game (R103).

"The viewer's last move" is the newest record of their seat that they made themselves
(``entry["mine"]``: the page, an email or the API, not a timeout move, a bot standing in, a standing order
or the server's pass). Its first event is the move itself (the card placed, the card discarded), which the
viewer knows; what followed from it in the same record (the battle it resolved, the window it closed) counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games import engine
from games.components import place_labels
from games.log import describe
from games.selectors import GameView
from games.web.presenters.shapes import SinceItem, SinceModel

E = engine.EventType

#: Events of the viewer's battle that its item tells, in the log's words (the rest, such as a seat placing
#: a card face down, passing in the support step or drawing, changes nothing the viewer could not see on
#: the battle panel).
BATTLE_LINES = frozenset(
    {
        E.BATTLE_STARTED,
        E.ARENA,
        E.ARTEFACT_DESTROYED,
        E.DISCARD,
        E.CONFLICT_REVEALED,
        E.SUPPORT_PLAYED,
        E.FEAR_CHOICE,
        E.BATTLE_RESULT,
        E.MAYHEM,
        E.MAYHEM_FLIP,
        E.KNIGHTS_LOST,
        E.RETREAT,
        E.CONQUERED,
        E.CASTLE_CONQUERED,
        E.GAME_OVER,
    }
)

#: The lines of a battle that its announcement (the page's live region) reads: who fought, who won and
#: what was taken; the newest line is read besides.
ANNOUNCED = frozenset({E.BATTLE_STARTED, E.BATTLE_RESULT, E.MAYHEM_FLIP, E.CONQUERED, E.CASTLE_CONQUERED})

#: How many items the panel lists at most (the newest); the rest are in the game log.
MOST = 8


@dataclass
class _Item:
    """One item: a battle (its lines so far) or a single event."""

    seq: int
    battle: bool
    lines: list[str] = field(default_factory=list)
    announced: list[str] = field(default_factory=list)
    shown: bool = False  # a battle is shown once one of its events lies after the viewer's last move

    def add(self, ev: engine.Event, line: str, seq: int) -> None:
        """Add ``ev``'s ``line`` (recorded at ``seq``)."""
        if not line:
            return
        self.lines.append(line)
        self.seq = max(self.seq, seq)
        if ev.get("type") in ANNOUNCED:
            self.announced.append(line)

    def as_dict(self, index: int) -> SinceItem:
        """The template's item: ``{"lines", "seq", "battle", "key", "announce"}``."""
        announce = list(self.announced)
        if self.lines and self.lines[-1] not in announce:
            announce.append(self.lines[-1])
        return {
            "lines": self.lines,
            "seq": self.seq,
            "battle": self.battle,
            # what the live region reads once (issue 29 §3), and the key that says it was read
            "key": f"{self.seq}.{index}",
            "announce": " ".join(announce if self.battle else self.lines),
        }


def _places(view: engine.View) -> dict[str, str]:
    """Position id -> the map's name for the log's words: a castle by its name, a territory or lake as the
    map labels it ("Forest (north-west)" when two share a name, never an id)."""
    places = {t["id"]: str(t["name"]) for t in view["map"] if "name" in t}
    places.update({pos: label for pos, (label, _short) in place_labels(view).items()})
    return places


def _touches(ev: engine.Event, seat: int) -> bool:
    """Whether ``ev``, outside the viewer's battles, happened to the viewer (``seat``)."""
    kind = ev.get("type")
    if kind in (E.DISCARD, E.KNIGHTS_LOST, E.CUT_THROAT):
        return bool(ev.get("seat") == seat and (kind != E.KNIGHTS_LOST or ev.get("knights")))
    if kind in (E.ARTEFACT_DESTROYED, E.CASTLE_CONQUERED):
        return bool(ev.get("owner") == seat)
    return kind == E.GAME_OVER


def since_model(gv: GameView, names: dict[int, str]) -> SinceModel:
    """The "Since your last move" block of the viewer's decision panel.

    Args:
        gv: the viewer's view of a started game, with its log (``gv.log``, newest first; redacted for the
            viewer). A spectator has no moves and no battles: nothing is shown to them.
        names: seat number -> public name.

    Returns:
        A :class:`~.shapes.SinceModel`:
        ``{"items": [...], "more": n}``: the newest :data:`MOST` items, oldest first, each ``{"lines" (the
        log's sentences), "seq" (its newest record), "battle" (bool), "key" (unique per item and position),
        "announce" (what the live region reads: a battle's start, result and conquest and its newest line;
        else the item's line)}``; ``more`` counts the older items left out. No items: nothing happened.
    """
    seat = gv.seat
    if seat is None or gv.view is None:
        return {"items": [], "more": 0}
    entries = list(reversed(gv.log))  # oldest first
    mine = {i for i, entry in enumerate(entries) if entry.get("mine", entry.get("seat") == seat)}
    start = max(mine, default=0)
    places = _places(gv.view)
    items: list[_Item] = []
    battle: _Item | None = None  # the viewer's battle under way
    for i, entry in enumerate(entries):
        after = i >= start
        own = i in mine
        for j, ev in enumerate(entry["events"]):
            kind = ev.get("type")
            if kind == E.BATTLE_STARTED:
                involved = seat in (ev.get("attacker"), ev.get("defender"))
                battle = _Item(entry["seq"], battle=True) if involved else None
                if battle is not None:
                    items.append(battle)
            if own and j == 0:
                continue  # the viewer's own move: they know it
            if battle is not None and kind in BATTLE_LINES:
                battle.add(ev, describe(ev, names, places), entry["seq"])
                battle.shown = battle.shown or after
            elif battle is None and after and _touches(ev, seat):
                item = _Item(entry["seq"], battle=False)
                item.add(ev, describe(ev, names, places), entry["seq"])
                items.append(item)
            if kind in (E.BATTLE_ENDED, E.GAME_OVER):
                if battle is not None:
                    battle.shown = battle.shown or after
                battle = None
    shown = [item for item in items if item.lines and (item.shown or not item.battle)]
    if battle is not None and battle.lines:  # a battle under way is shown until it ends
        shown = [*shown, battle] if battle not in shown else shown
    shown.sort(key=lambda item: item.seq)
    kept = shown[-MOST:]
    return {
        "items": [item.as_dict(i) for i, item in enumerate(kept)],
        "more": len(shown) - len(kept),
    }
