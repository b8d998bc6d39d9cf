"""Golden record: the rulebook's battle example (medieval-mastery.md §18).

``tests/engine/scenarios/battle-example.json`` reaches the example from a fresh 2-player game using setup
pins only (tiles, artefacts, deck tops, first player) and real actions over four turns. These tests replay
it one action at a time, collect the events of the battle's actions and check every intermediate combat
score and the final position against the record's ``expect`` block, which copies the numbers of §18.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from games.engine import (
    RECORD_FORMAT,
    Event,
    GameState,
    advance_targets,
    apply,
    current_phase,
    new_game,
    parse_action,
    pending,
    replay,
    state_hash,
    supplied,
    to_dict,
    victory_points,
)

RECORD_PATH = Path(__file__).resolve().parent / "scenarios" / "battle-example.json"


@dataclass(frozen=True)
class Step:
    """One replayed record entry: the state before and after it and the events it produced."""

    index: int
    seat: int
    payload: dict[str, Any]
    before: GameState
    after: GameState
    events: list[Event]


@lru_cache(maxsize=1)
def _record_text() -> str:
    return RECORD_PATH.read_text(encoding="utf-8")


def record() -> dict[str, Any]:
    """A fresh copy of the golden record."""
    data: dict[str, Any] = json.loads(_record_text())
    return data


def expect() -> dict[str, Any]:
    """The record's ``expect`` block."""
    data: dict[str, Any] = record()["expect"]
    return data


@lru_cache(maxsize=1)
def _replayed() -> tuple[GameState, tuple[Step, ...]]:
    rec = record()
    state = new_game(rec["setup"])
    initial = state
    steps: list[Step] = []
    for index, entry in enumerate(rec["actions"]):
        transition = apply(state, entry["seat"], parse_action(entry["action"]))
        steps.append(
            Step(index, entry["seat"], entry["action"], state, transition.state, list(transition.events))
        )
        state = transition.state
    return initial, tuple(steps)


def initial_state() -> GameState:
    """The state :func:`new_game` builds from the record's setup."""
    return _replayed()[0]


def steps() -> tuple[Step, ...]:
    """Every record entry, applied one by one."""
    return _replayed()[1]


def final_state() -> GameState:
    """The state after the last record entry."""
    return steps()[-1].after


def battle_steps() -> list[Step]:
    """The entries from the advance that starts the battle to the one that ends it."""
    out: list[Step] = []
    inside = False
    for step in steps():
        types = [ev["type"] for ev in step.events]
        if "battle_started" in types:
            inside = True
        if inside:
            out.append(step)
        if inside and "battle_ended" in types:
            break
    return out


def battle_events() -> list[Event]:
    """All events of the battle's actions, in order."""
    return [ev for step in battle_steps() for ev in step.events]


def events_of(event_type: str) -> list[Event]:
    """Battle events of type ``event_type``."""
    return [ev for ev in battle_events() if ev["type"] == event_type]


def one(event_type: str, /, **match: Any) -> Event:
    """The single battle event of type ``event_type`` whose fields equal ``match``."""
    found = [ev for ev in events_of(event_type) if all(ev.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (event_type, match, found)
    return found[0]


def step_scores(step: int) -> list[int]:
    """Scores reported by the ``battle_step`` event of battle step ``step``."""
    scores: list[int] = one("battle_step", step=step)["scores"]
    return scores


def card_names(state: GameState, cards: list[int]) -> list[str]:
    """Content ids of card indices."""
    return [state.content.cards[c].id for c in cards]


def total_knights(state: GameState, seat: int) -> int:
    """Knights of ``seat`` anywhere: castle, territories and (as attacker) the disputed territory."""
    total = state.players[seat].castle + sum(
        k for o, k in zip(state.owner, state.knights, strict=True) if o == seat
    )
    if state.battle is not None and state.battle.attacker == seat:
        total += state.battle.att_knights
    return total


def control(state: GameState) -> dict[str, dict[str, int]]:
    """``{"t<i>": {"owner", "knights"}}`` for every controlled or disputed territory."""
    return {
        state.board.pos_id(i): {"owner": o, "knights": state.knights[i]}
        for i, o in enumerate(state.owner)
        if o >= 0
    }


def index_of_type(event_type: str) -> int:
    """Index of the first battle event of type ``event_type``."""
    return next(i for i, ev in enumerate(battle_events()) if ev["type"] == event_type)


# ----------------------------------------------------------------------------------------------------------
# The record itself
# ----------------------------------------------------------------------------------------------------------


def test_record_uses_setup_pins_only_and_replays_deterministically() -> None:
    """R19, R20, R22, R25: the record is a plain game record (format, setup with pins, actions); replaying
    it with ``replay`` gives exactly the state reached action by action."""
    rec = record()
    assert rec["format"] == RECORD_FORMAT
    assert set(rec["setup"]) <= {"players", "seed", "content", "layout", "options", "pin"}
    assert set(rec["setup"]["pin"]) <= {"tiles", "artefacts", "decks", "first_player", "dice"}
    for entry in rec["actions"]:
        assert set(entry) <= {"seat", "action", "source"}
    replayed = replay(rec["setup"], rec["actions"])
    assert state_hash(replayed) == state_hash(final_state())
    assert to_dict(replayed) == to_dict(final_state())
    # The pins took effect (R19 tile fill, R20 artefact deal, R22 deck order, R25 first player).
    start = initial_state()
    assert start.tiles[5] == "city"
    assert start.board.layout_vp[5] == 3
    assert [[a.id for a in p.artefacts] for p in start.players] == [
        expect()["before_battle"]["artefacts"]["0"],
        expect()["before_battle"]["artefacts"]["1"],
    ]
    assert steps()[0].payload["type"] == "advance" and steps()[0].seat == 1
    assert start.active == 1 and start.turn == 1


def test_position_before_the_attack() -> None:
    """R53, R56, R86: the defender conquered the empty City with 5 knights (and placed 1 knight in their
    castle); the attacker has 9 knights in the castle and a supplied launch tile (Homelands t8) next to
    the City, so the City is a legal advance target; hands hold exactly the example's cards."""
    exp = expect()["before_battle"]
    adv = steps()[expect()["battle"]["advance_action"]]
    s = adv.before
    assert adv.payload == {"type": "advance", "to": "t5", "knights": 6}
    assert (s.turn, s.active, current_phase(s)) == (exp["turn"], exp["active"], "window")
    assert control(s) == exp["control"]
    assert [p.castle for p in s.players] == exp["castles"]
    city = s.board.parse_pos(exp["city"])
    launch = s.board.parse_pos(exp["launch_tile"])
    assert city is not None and launch is not None
    assert s.tiles[city] == "city"
    assert launch in s.board.adjacent[city]
    assert s.owner[launch] == exp["active"] and launch in supplied(s, exp["active"])
    assert city in advance_targets(s, exp["active"])
    for seat in (0, 1):
        assert card_names(s, s.players[seat].hand) == exp["hands"][str(seat)]
        assert all(a.face_up for a in s.players[seat].artefacts)
    # The defender's own conquest of the City (turn 3) applied the City's conquest ability.
    conquest = steps()[3]
    assert [ev["type"] for ev in conquest.events][:3] == ["advanced", "conquered", "knights_gained"]
    assert conquest.events[2]["knights"] == 1 and conquest.events[2]["reason"] == "city"


# ----------------------------------------------------------------------------------------------------------
# The nine battle steps
# ----------------------------------------------------------------------------------------------------------


def test_battle_starts_with_six_attackers_against_five_defenders() -> None:
    """R57, R59, R60: the advance starts a battle between the attacker (6 knights in the City) and the
    defender (5 knights); the knight parts of the combat scores start at 6 / 5."""
    exp = expect()["battle"]
    started = one("battle_started")
    assert (started["attacker"], started["defender"], started["pos"], started["knights"]) == (
        exp["attacker"],
        exp["defender"],
        exp["pos"],
        exp["knights"][0],
    )
    adv = steps()[exp["advance_action"]]
    b = adv.after.battle
    assert b is not None
    assert b.att_knights == exp["knights"][0]
    pos = adv.after.board.parse_pos(exp["pos"])
    assert pos is not None
    assert adv.after.knights[pos] == exp["knights"][1] and adv.after.owner[pos] == exp["defender"]
    assert [p.castle for p in adv.after.players] == expect()["final"]["castles_at_battle_start"]
    knight_parts = [b.att_knights, adv.after.knights[pos]]
    assert knight_parts == exp["scores"]["start"]


def test_step1_city_gives_the_defender_plus_one() -> None:
    """R62, R84: the City's start-of-battle ability gives the defender +1: scores 6 / 6 after step 1."""
    assert step_scores(1) == expect()["battle"]["scores"]["step1"]
    b = steps()[expect()["battle"]["advance_action"]].after.battle
    assert b is not None
    assert ["city", 1] in b.mods[1]
    assert not any(m[0] == "city" for m in b.mods[0])


def test_step2_players_holding_five_cards_draw_nothing() -> None:
    """R63, R100: both involved players already hold 5 cards, so the battle draw draws nothing (and no
    Authority can come in)."""
    assert events_of("draw") == []
    s = steps()[expect()["battle"]["advance_action"]].after
    assert [len(p.hand) for p in s.players] == [5, 5]


def test_step3_sceptre_window_fracture_on_defiance_and_rage_applies() -> None:
    """R36, R37, R64, R65, R66, R90: the sceptre window opens with the attacker; both sceptres about to
    apply are targets; the attacker fractures the Sceptre of Defiance (negated: no random discard, destroyed
    on turn 4); Rage then gives the attacker +1: scores 7 / 6 after step 3."""
    exp = expect()["battle"]["sceptre_window"]
    opened = one("window_opened", kind="sceptre")
    assert opened["opener"] == exp["opener"]
    assert opened["targets"] == exp["targets"]
    assert opened["asked"] == exp["asked"]
    frac = exp["fracture"]
    played = one("card_played", seat=frac["seat"])
    assert played["card"] == frac["card"] and played["target"] == frac["target"]
    destroyed = one("artefact_destroyed", artefact=frac["target"])
    assert destroyed["owner"] == expect()["battle"]["defender"] and destroyed["by"] == frac["seat"]
    assert destroyed["turn"] == expect()["restore"]["destroyed_on"]
    applied = [ev["artefact"] for ev in events_of("artefact_applied") if "sceptre" in ev["artefact"]]
    assert applied == exp["applied"]
    assert events_of("discard") == []  # Defiance negated: the attacker discards nothing (R66)
    assert index_of_type("artefact_destroyed") < index_of_type("artefact_applied")
    assert step_scores(3) == expect()["battle"]["scores"]["step3"]
    # The Fracture went to the attacker's discard pile as soon as it resolved (R32).
    after_window = battle_steps()[2].after
    assert after_window.players[0].discard == [after_window.content.effect_index["fracture"]]
    assert len(after_window.players[0].hand) == 4


def test_step4_conflict_cards_five_and_three() -> None:
    """R68: both choose a conflict card face down; revealed together: attacker 5 (Heroic Assault),
    defender 3 (Shield Wall): scores 12 / 9 after step 4."""
    exp = expect()["battle"]
    revealed = one("conflict_revealed")
    assert revealed["cards"] == exp["conflict"]["cards"]
    assert revealed["values"] == exp["conflict"]["values"]
    assert revealed["scores"] == exp["scores"]["step4"]
    chosen = events_of("conflict_chosen")
    assert sorted(ev["seat"] for ev in chosen) == [0, 1]
    assert index_of_type("conflict_revealed") > max(
        i for i, ev in enumerate(battle_events()) if ev["type"] == "conflict_chosen"
    )


def test_step5_lower_score_starts_and_plays_two_supports() -> None:
    """R69, R70: the defender (9 < 12) acts first and plays +1 and +2 in one turn (12 / 12); the attacker
    plays +2 (14 / 12); the defender passes, the attacker passes, and the step ends at 14 / 12."""
    exp = expect()["battle"]
    conflict_step = battle_steps()[4]  # the second conflict choice reveals the cards
    prompts = pending(conflict_step.after)
    assert [(p.seat, p.kind) for p in prompts] == [(exp["defender"], "support")]
    played = events_of("support_played")
    assert [
        {"seat": ev["seat"], "cards": ev["cards"], "values": ev["values"], "scores": ev["scores"]}
        for ev in played
    ] == exp["supports"]
    passed = [ev["seat"] for ev in events_of("support_passed")]
    assert passed == exp["support_passes"]
    # The step ended only after both passed in succession: its scores come after the last pass.
    last_pass = max(i for i, ev in enumerate(battle_events()) if ev["type"] == "support_passed")
    step5 = next(i for i, ev in enumerate(battle_events()) if ev["type"] == "battle_step" and ev["step"] == 5)
    assert step5 > last_pass
    assert step_scores(5) == exp["scores"]["step5"]


def test_step6_attacker_wins_by_two() -> None:
    """R60, R73: 14 > 12, the attacker wins by 2."""
    exp = expect()["battle"]["result"]
    result = one("battle_result")
    assert result["scores"] == exp["scores"]
    assert (result["winner"], result["margin"]) == (exp["winner"], exp["margin"])


def test_step7_orb_window_and_brutality_before_margin_losses() -> None:
    """R74 ("each player in turn … has the chance to play a fracture card on one of the orbs belonging to
    the players involved in the battle", issue 14), R75, R91: the orb window opens with the attacker and
    offers both players' face-up orbs, so both are asked (each may fracture the other's); nobody
    fractures; only Brutality (the winner's "win" orb) applies — Preparation is a "win" orb of the loser —
    and makes the defender lose 1 knight in the City before step 8's losses."""
    exp = expect()["battle"]["orb_window"]
    opened = one("window_opened", kind="orb")
    assert (opened["opener"], opened["targets"], opened["asked"]) == (
        exp["opener"],
        exp["targets"],
        exp["asked"],
    )
    applied = [ev["artefact"] for ev in events_of("artefact_applied") if "orb" in ev["artefact"]]
    assert applied == exp["applied"]
    losses = [
        {"reason": ev["reason"], "knights": ev["knights"]}
        for ev in events_of("knights_lost")
        if ev["seat"] == expect()["battle"]["defender"]
    ]
    assert losses == expect()["battle"]["defender_losses"]
    assert all(ev["type"] != "discard" for ev in battle_events())  # Preparation never applied
    assert final_state().choice is None


def test_step8_defender_loses_the_margin_and_retreats() -> None:
    """R76, R77: the defender loses 2 knights (the margin) after Brutality's 1, and the remaining 2 retreat
    to their castle; the attacker loses nothing."""
    exp = expect()["battle"]
    brutality = next(
        i
        for i, ev in enumerate(battle_events())
        if ev["type"] == "knights_lost" and ev["reason"] == "brutality"
    )
    margin = next(
        i for i, ev in enumerate(battle_events()) if ev["type"] == "knights_lost" and ev["reason"] == "battle"
    )
    retreat = index_of_type("retreat")
    assert brutality < margin < retreat
    retreated = one("retreat")
    assert (retreated["seat"], retreated["knights"]) == (exp["retreat"]["seat"], exp["retreat"]["knights"])
    assert all(ev["seat"] == exp["defender"] for ev in events_of("knights_lost"))


def test_step9_attacker_conquers_the_city_and_cleans_up() -> None:
    """R78, R80, R86: the attacker conquers the City (6 knights there) and its conquest ability places 1
    knight in the attacker's castle; clean-up moves the played cards to their owners' discard piles and the
    attacker is back in a free window."""
    exp = expect()["battle"]
    conquered = one("conquered")
    assert {k: conquered[k] for k in ("seat", "pos", "tile")} == exp["conquered"]
    gained = one("knights_gained")
    assert {k: gained[k] for k in ("seat", "knights", "reason")} == exp["knights_gained"]
    assert gained["lost"] == 0
    assert index_of_type("retreat") < index_of_type("conquered") < index_of_type("battle_ended")
    s = final_state()
    fin = expect()["final"]
    assert s.battle is None and s.window is None and s.choice is None
    assert (s.turn, s.active, current_phase(s)) == (fin["turn"], fin["active"], fin["phase"])
    for seat in (0, 1):
        p = s.players[seat]
        assert [f"s{seat}c{c:02d}" for c in p.discard] == fin["discard"][str(seat)]
        assert card_names(s, p.discard) == fin["discard_cards"][str(seat)]
        assert p.discard_turns == [fin["turn"]] * len(p.discard)  # discarded this turn (R101)
        assert [f"s{seat}c{c:02d}" for c in p.hand] == fin["hands"][str(seat)]


def test_final_position_matches_the_example() -> None:
    """R14, R76, R78, R80, R90: attacker controls the City with 6 knights and has +1 in castle; defender
    has +2 in castle and lost 3 knights (1 Brutality + 2 margin); the Sceptre of Defiance is face down."""
    fin = expect()["final"]
    s = final_state()
    adv = steps()[expect()["battle"]["advance_action"]]
    assert control(s) == fin["control"]
    castles = [p.castle for p in s.players]
    assert castles == fin["castles"]
    start = fin["castles_at_battle_start"]
    assert [a - b for a, b in zip(castles, start, strict=True)] == fin["castle_delta"]
    assert [p.castle for p in adv.after.players] == fin["castles_at_battle_start"]
    assert [total_knights(adv.before, seat) for seat in (0, 1)] == fin["total_knights_before"]
    assert [total_knights(s, seat) for seat in (0, 1)] == fin["total_knights_after"]
    assert total_knights(adv.before, 1) - total_knights(s, 1) == fin["defender_knights_lost"]
    assert victory_points(s) == fin["vp"]
    face_down = {a.id: a.destroyed_on for p in s.players for a in p.artefacts if not a.face_up}
    assert face_down == fin["artefacts_face_down"]


def test_defiance_restored_at_end_of_defenders_next_turn() -> None:
    """R90, R93, R94: the Sceptre of Defiance, destroyed on turn 4 (the attacker's turn), stays face down
    when the attacker's turn ends (other players' artefacts are not restored), stays face down throughout
    the defender's turn 5, and is turned face up at the end of that turn."""
    exp = expect()["restore"]
    s = final_state()
    owner = exp["owner"]
    attacker = expect()["battle"]["attacker"]

    def sceptre(state: GameState) -> tuple[bool, int]:
        art = state.players[owner].artefact(exp["artefact"])
        assert art is not None
        return art.face_up, art.destroyed_on

    assert sceptre(s) == (False, exp["destroyed_on"])
    t = apply(s, attacker, parse_action({"type": "end_turn"}))
    assert not any(ev["type"] == "artefact_restored" for ev in t.events)
    s = t.state
    assert (s.turn, s.active) == (exp["restored_at_end_of_turn"], owner)
    assert sceptre(s) == (False, exp["destroyed_on"])
    t = apply(s, owner, parse_action({"type": "end_turn"}))
    restored = [ev for ev in t.events if ev["type"] == "artefact_restored"]
    assert [(ev["artefact"], ev["owner"], ev["turn"]) for ev in restored] == [
        (exp["artefact"], owner, exp["restored_at_end_of_turn"])
    ]
    assert sceptre(t.state) == (True, 0)
    assert t.state.active == attacker


def test_window_closed_event_reports_the_surviving_artefacts() -> None:
    """R37, R64, R65, R74, R75: after each lap the ``window_closed`` event names the window's targets still
    face up (Rage after the sceptre window: Defiance was fractured; both orbs after the orb window); of
    them, those about to apply are applied (Rage; Brutality, the winner's "win" orb, not Preparation, a
    "win" orb of the loser)."""
    battle = expect()["battle"]
    sceptre_closed = one("window_closed", kind="sceptre")
    orb_closed = one("window_closed", kind="orb")
    assert sceptre_closed["survivors"] == battle["sceptre_window"]["applied"] == ["sceptre_rage"]
    assert orb_closed["survivors"] == battle["orb_window"]["targets"] == ["orb_brutality", "orb_preparation"]
    applied = [ev["artefact"] for ev in battle_events() if ev["type"] == "artefact_applied"]
    assert applied == ["sceptre_rage", *battle["orb_window"]["applied"]] == ["sceptre_rage", "orb_brutality"]
