"""Issue 29 §3 "What happened while I was away, in view": the decision panel's "Since your last move" (what
touched the viewer since their own last move, in the log's own words, from their redacted log), the reason
and rule of a "may discard" offer, the battle's scores while choosing a conflict card, and the header's
"your turn" counter."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from games import engine
from games.components import place_labels
from games.log import describe
from games.models import ActionRecord, Game
from games.selectors import GameView, LogEntry
from games.web.presenters.recent import since_model
from tests.engine import fixtures as F

from .conftest import create_user, state_of
from .factories import PLAIN, Step, before_battle, conflict_step, game_from_state

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}
#: When a hand-built log entry was made (:class:`LogEntry` ``at``; the "since" block does not show it).
AT = datetime(2025, 1, 1, tzinfo=UTC)


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _steps(state: engine.GameState, moves: Sequence[tuple[int, dict[str, Any]]]) -> list[Step]:
    """Apply ``moves`` (seat, payload) in order from ``state``, as a log for :func:`game_from_state`."""
    steps = []
    for seat, payload in moves:
        transition = engine.apply(state, seat, engine.parse_action(payload))
        steps.append(Step(seat, engine.parse_action(payload), transition))
        state = transition.state
    return steps


def _since(html: str) -> str | None:
    """The "Since your last move" block of a page or panel (``None`` when there is none)."""
    found = re.search(r'<section class="since" id="since".*?</section>', html, re.S)
    return found.group(0) if found else None


def _battle_now(html: str) -> str | None:
    found = re.search(r'<div class="battle-now".*?</div>', html, re.S)
    return found.group(0) if found else None


def _conflict_card(state: engine.GameState, seat: int, name: str) -> str:
    return F.cid(seat, next(c for c in state.players[seat].hand if state.content.cards[c].id == name))


def _bot_attacks_alice(
    hands: dict[int, list[str]] | None = None, bot_card: str = "audacious_charge"
) -> list[Step]:
    """3 players. On turn 1 the bot in seat 0 attacks Alice's Forest (seat 1) with its Sceptre of Influence,
    which discards a random card of hers (R65, R102); Alice and Carol (seat 2) hold no Fracture, so the
    server passes for them in the sceptre window; the bot places ``bot_card`` face down. Alice is to choose
    her conflict card."""
    state, attack = before_battle(3, arts={0: ["sceptre_influence"]}, hands=hands)
    passes: list[tuple[int, dict[str, Any]]] = [
        (seat, {"type": "respond", "fracture": []}) for seat in (1, 2)
    ]
    steps = _steps(state, [(0, attack), *passes])
    after = steps[-1].transition.state
    steps += _steps(after, [(0, {"type": "choose_conflict", "card": _conflict_card(after, 0, bot_card)})])
    assert [(p.seat, p.kind) for p in engine.pending(steps[-1].transition.state)] == [(1, "conflict")]
    return steps


def _stored(steps: list[Step], alice: User, carol: User) -> Game:
    """The game after ``steps`` with Alice in seat 1, Carol in seat 2 and a bot in seat 0. In a real game
    the server passes for a seat without Fracture (issue 14): those records are no move of the player's."""
    game = game_from_state(steps[-1].transition.state, users={1: alice, 2: carol}, bots=[0], log=steps)
    passes = [i for i, step in enumerate(steps, start=1) if step.action.TYPE == engine.ActionType.RESPOND]
    ActionRecord.objects.filter(game=game, seq__in=passes).update(source=ActionRecord.Source.SERVER)
    return game


def _bot_took_the_forest() -> tuple[Game, User, User, list[Step]]:
    """:func:`_bot_attacks_alice`, then Alice places her Probing Attack, the bot wins, takes the Forest and
    ends its turn. Turn 2 is Alice's."""
    steps = _bot_attacks_alice()
    after = steps[-1].transition.state
    card = _conflict_card(after, 1, "probing_attack")
    steps += _steps(after, [(1, {"type": "choose_conflict", "card": card}), (0, {"type": "end_turn"})])
    end = steps[-1].transition.state
    assert end.active == 1 and end.battle is None
    alice = create_user(display_name="Alice")
    carol = create_user(display_name="Carol")
    return _stored(steps, alice, carol), alice, carol, steps


def test_since_lists_the_bots_battle_and_the_discard_until_the_next_move() -> None:
    """After the bot's turn, Alice's panel lists the battle for her Forest in the log's words: the start,
    her card the Sceptre of Influence discarded, both conflict values and scores, the result with both
    scores, her losses and the conquest (R65, R68, R73, R76, R78). Her own next move clears it."""
    game, alice, _carol, steps = _bot_took_the_forest()
    names = {s.number: s.name for s in game.seats.all()}
    events = [ev for step in steps for ev in step.transition.events]

    places = {pos: label for pos, (label, _short) in place_labels(engine.view_for(state_of(game), 1)).items()}

    def line(kind: str) -> str:
        ev = next(e for e in events if e["type"] == kind)
        return describe(engine.redact_event(ev, 1), names, places)

    with translation.override("en"):
        page = _client(alice).get(reverse("games:detail", args=[game.pk])).content.decode()
        since = _since(page)
        assert since is not None, "the block is shown"
        assert "Since your last move" in since
        discard = line("discard")
        assert "(Sceptre of Influence)" in discard and f"{names[1]} discards" in discard
        told = [line(kind) for kind in ("battle_started", "discard", "conflict_revealed", "battle_result")]
        told += [line("knights_lost"), line("conquered")]
        assert re.findall(r"<p>(.*?)</p>", since) == told
        assert re.search(r"revealed: \d+ against \d+ \(scores \d+–\d+\)", told[2])
        assert re.search(r"wins the battle by \d+ \(\d+–\d+\)", told[3])
        # the player's own conflict card is no news to them, nor is the bot's turn change
        assert "places your conflict card" not in since and "Turn 2" not in since
        # the live region reads the newest item once: who attacked, who won and what was taken
        announce = re.search(r'data-announce="([^"]*)"', since)
        assert announce is not None
        assert announce.group(1).replace("&#x27;", "'") == " ".join([told[0], told[3], told[5]])
        panel = _client(alice).get(reverse("games:partial", args=[game.pk, "decision"]), headers=HX)
        assert _since(panel.content.decode()) == since

    response = _client(alice).post(
        reverse("games:act", args=[game.pk]),
        {"type": "end_turn", "expected_seq": game.seq, "confirmed": "1"},
        headers=HX,
    )
    assert response.status_code == 200
    assert Game.objects.get(pk=game.pk).seq == game.seq + 1  # Alice ended her turn: Carol's turn now
    assert _since(response.content.decode()) is None
    assert _since(_client(alice).get(reverse("games:detail", args=[game.pk])).content.decode()) is None


def test_since_and_the_battle_scores_never_show_a_hidden_card() -> None:
    """R95, R68: two positions that differ only in the bot's hand and the card it placed face down, and in
    Carol's hand, give Alice the same "Since your last move" and the same battle scores while she chooses."""
    alice = create_user(display_name="Alice")
    carol = create_user(display_name="Carol")
    other = ["heroic_assault", "ambush", "shield_wall", "war_banner", "call_to_arms"]
    twins = [
        _stored(_bot_attacks_alice(), alice, carol),
        _stored(_bot_attacks_alice({0: other, 2: other}, bot_card="heroic_assault"), alice, carol),
    ]
    seen = []
    for game in twins:
        with translation.override("en"):
            page = _client(alice).get(reverse("games:detail", args=[game.pk])).content.decode()
        since, scores = _since(page), _battle_now(page)
        assert since is not None and "Sceptre of Influence" in since
        assert scores is not None
        hand = {F.cid(0, c) for c in state_of(game).players[0].hand} | {
            F.cid(2, c) for c in state_of(game).players[2].hand
        }
        assert not any(card in since + scores for card in hand)
        seen.append((since, scores))
    assert seen[0] == seen[1]
    assert "Heroic Assault" not in seen[1][0] + seen[1][1]


def test_the_battle_scores_show_while_choosing_a_conflict_card() -> None:
    """While Alice chooses her conflict card the panel shows both combat scores by their parts (the knights
    in the battle; R59–R68), and it is gone once nobody chooses."""
    alice = create_user(display_name="Alice")
    game = game_from_state(conflict_step(), users={1: alice})
    with translation.override("en"):
        page = _client(alice).get(reverse("games:detail", args=[game.pk])).content.decode()
    scores = _battle_now(page)
    assert scores is not None
    assert page.index('class="battle-now"') < page.index('<fieldset class="card-choice">')
    view = engine.view_for(state_of(game), 1)
    battle = view["battle"]
    assert battle is not None
    for side in (battle["attacker"], battle["defender"]):
        assert f'<b class="score">{side["score"]}</b> = knights {side["knights"]}' in scores
    assert "You" in scores and "a tie goes to the defender" in scores and "#battle" in scores
    game2, alice2, *_rest = _bot_took_the_forest()
    page = _client(alice2).get(reverse("games:detail", args=[game2.pk])).content.decode()
    assert _battle_now(page) is None


def test_the_discard_offer_names_the_fortress_and_its_rule() -> None:
    """R86: after taking an uncontrolled Fortress the conqueror may discard any 1 card; the panel says why,
    with the rule linked to the rules reference."""
    state = F.edit(F.game(2, seed=5))
    F.clear_map(state)
    pos = min(n for n in F.neighbours(state, F.castle_pos(state, 0)) if state.board.kinds[n] == "territory")
    F.set_tile(state, pos, "fortress")
    state.players[0].castle = 5
    F.set_hand(state, 0, PLAIN)
    state = F.act(state, 0, {"type": "advance", "to": f"t{pos}", "knights": 2}).state
    assert [(p.seat, p.kind) for p in engine.pending(state)] == [(0, "may_discard")]
    alice = create_user(display_name="Alice")
    game = game_from_state(state, users={0: alice})
    with translation.override("en"):
        page = _client(alice).get(reverse("games:detail", args=[game.pk])).content.decode()
    rules = reverse("games:rules")
    assert (
        '<p class="headline">You conquered the Fortress, so you may discard any 1 card from your hand — '
        f'<a href="{rules}#territories">R86</a>.</p>'
    ) in page


def test_the_header_counts_the_games_waiting_for_the_user() -> None:
    """Like lichess's correspondence counter: every page's header says how many games wait for the user's
    decision (a response window the server answers for them does not), links to "My games", and costs one
    query; an anonymous visitor sees none."""
    alice = create_user(display_name="Alice")
    state, _attack = before_battle(3)
    game_from_state(state, users={0: alice})  # Alice's turn
    game_from_state(conflict_step(), users={1: alice})  # her conflict card
    game_from_state(state, users={1: alice})  # the other seat's turn
    window = _bot_attacks_alice()[0].transition.state  # the sceptre window: the server passes for her
    game_from_state(window, users={2: alice})
    client = _client(alice)
    with translation.override("en"):
        with CaptureQueriesContext(connection) as ctx:
            page = client.get(reverse("games:my_games")).content.decode()
        counter = re.search(r'<a class="your-turn".*?</a>', page, re.S)
        assert counter is not None
        assert f'href="{reverse("games:my_games")}#waiting-for-me"' in counter.group(0)
        assert '<span class="visually-hidden">2 games waiting for you</span>' in counter.group(0)
        assert '<span class="count">2</span>' in counter.group(0)
        assert (
            len([q for q in ctx.captured_queries if "games_prompt" in q["sql"] and "COUNT" in q["sql"]]) == 1
        )
        # a panel alone (htmx) asks nothing
        game = Game.objects.filter(seats__user=alice).first()
        assert game is not None
        with CaptureQueriesContext(connection) as ctx:
            client.get(reverse("games:partial", args=[game.pk, "players"]), headers=HX)
        assert not [q for q in ctx.captured_queries if "COUNT" in q["sql"] and "games_prompt" in q["sql"]]
        anonymous = Client().get(reverse("games:rules")).content.decode()
    assert "your-turn" not in anonymous and "waiting for you" not in anonymous


def _entry(seq: int, seat: int | None, events: list[engine.Event], *, mine: bool = False) -> LogEntry:
    return {"seq": seq, "at": AT, "seat": seat, "events": events, "lines": ["…"], "mine": mine}


def test_since_outside_battles_and_what_counts_as_ones_own_move() -> None:
    """Outside battles the block lists what happened to the viewer (a card a crown discarded, an artefact
    destroyed, R41, R90) and nothing of others; the viewer's own discard is no news; a move the server
    made for them (a timeout) does not end "since your last move"; a spectator sees nothing."""
    state = F.game(2, seed=5)
    game = Game(pk=1, seq=9)
    view = engine.view_for(state, 0)
    log = [  # newest first, as GameView.log
        _entry(
            9,
            1,
            [
                {
                    "type": engine.EventType.ARTEFACT_DESTROYED,
                    "turn": 1,
                    "artefact": "orb_greed",
                    "owner": 1,
                    "by": 0,
                }
            ],
        ),
        _entry(
            8,
            1,
            [
                {
                    "type": engine.EventType.DISCARD,
                    "turn": 1,
                    "seat": 0,
                    "card": "s0c03",
                    "name": "Ambush",
                    "reason": "prosperity",
                }
            ],
        ),
        _entry(
            7, 0, [{"type": engine.EventType.TURN_ENDED, "turn": 1, "seat": 0}]
        ),  # a timeout move made for seat 0: not theirs
        _entry(
            6,
            1,
            [
                {
                    "type": engine.EventType.ARTEFACT_DESTROYED,
                    "turn": 1,
                    "artefact": "orb_greed",
                    "owner": 0,
                    "by": 1,
                }
            ],
        ),
        _entry(
            5,
            0,
            [
                {
                    "type": engine.EventType.DISCARD,
                    "turn": 1,
                    "seat": 0,
                    "card": "s0c01",
                    "name": "Ambush",
                    "reason": "fortress",
                }
            ],
            mine=True,
        ),
        _entry(
            4,
            1,
            [
                {
                    "type": engine.EventType.DISCARD,
                    "turn": 1,
                    "seat": 0,
                    "card": "s0c02",
                    "name": "Ambush",
                    "reason": "prosperity",
                }
            ],
        ),
    ]
    names = {0: "Alice", 1: "Bob"}
    with translation.override("en"):
        gv = GameView(game=game, seats=[], seat=0, view=view)
        gv.log = log
        since = since_model(gv, names)
        gv.seat = None
        watching = since_model(gv, names)
    assert [item["lines"] for item in since["items"]] == [
        ["Orb of Greed of Alice is destroyed."],
        ["Alice discards Ambush (Crown of Prosperity)."],
    ]
    assert since["more"] == 0 and not any(item["battle"] for item in since["items"])
    assert watching == {"items": [], "more": 0}
