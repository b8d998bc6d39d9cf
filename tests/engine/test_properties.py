"""Property tests (hypothesis) for line of supply, advance targets and redistribution legality
(medieval-mastery.md R16, R43–R55, Q13, Q35).

Positions come either from random *edits* (an empty map filled with random owners and knight counts, on the
default 2/3-player layouts or the LAKE_CASTLE_LAYOUT fixture, with the default or big-capacity content) or
from random *playouts* driven by :func:`games.engine.bot.choose`. Each property compares the engine with a
small independent oracle written here from the rules text.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from games.engine import (
    ErrorCode,
    GameState,
    IllegalAction,
    advance_targets,
    apply,
    current_phase,
    pending,
    supplied,
    to_dict,
)
from games.engine.bot import choose
from games.engine.rng import Rng
from tests.engine.fixtures import (
    LAKE_CASTLE_LAYOUT,
    act,
    big_capacity_content,
    castle_pos,
    clear_map,
    edit,
    game,
    place,
    territories,
)

DICE = 10
PER_DIE = 6

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# --------------------------------------------------------------------------------------------------------
# Oracles (written from the rules text, independent of the engine's helpers)
# --------------------------------------------------------------------------------------------------------


def cap(s: GameState, pos: int) -> int:
    """R12: capacity of a territory (from the content's territory type)."""
    return s.content.territory_types[s.tiles[pos]].capacity


def ceil6(n: int) -> int:
    return (n + PER_DIE - 1) // PER_DIE


def oracle_dice(
    s: GameState, seat: int, castle: int | None = None, knights: dict[int, int] | None = None
) -> int:
    """R16: Σ ceil(knights / 6) over the castle and every territory holding the seat's knights (plus the
    attacking knights of a running battle); ``castle``/``knights`` override counts for a hypothetical."""
    counts = {i: k for i, (o, k) in enumerate(zip(s.owner, s.knights, strict=True)) if o == seat}
    counts.update(knights or {})
    total = ceil6(s.players[seat].castle if castle is None else castle)
    total += sum(ceil6(k) for k in counts.values())
    if s.battle is not None and s.battle.attacker == seat:
        total += ceil6(s.battle.att_knights)
    return total


def connected_to_castle(s: GameState, seat: int, start: int) -> bool:
    """R48: is there a chain of adjacent tiles from territory ``start`` to ``seat``'s castle whose
    intermediate tiles are all the seat's territories or lakes? (Searched from the territory outwards.)"""
    castle = castle_pos(s, seat)
    kinds, adj = s.board.kinds, s.board.adjacent
    frontier = [start]
    seen = {start}
    while frontier:
        cur = frontier.pop(0)
        for n in adj[cur]:
            if n == castle:
                return True
            if n in seen:
                continue
            if kinds[n] == "lake" or (kinds[n] == "territory" and s.owner[n] == seat):
                seen.add(n)
                frontier.append(n)
    return False


def oracle_supplied(s: GameState, seat: int) -> set[int]:
    owned = [i for i, k in enumerate(s.board.kinds) if k == "territory" and s.owner[i] == seat]
    return {t for t in owned if connected_to_castle(s, seat, t)}


def oracle_targets(s: GameState, seat: int) -> set[int]:
    """R53, R54, Q13, Q35: a territory not controlled by ``seat`` that touches a launch tile (castle or a
    supplied own territory) or shares a lake with a supplied own territory (or with the castle when the
    castle_lake_link option is on), unless it touches (or shares a lake with) an unsupplied own territory
    and no supplied one (the R53 sentence, issue 14)."""
    kinds, adj = s.board.kinds, s.board.adjacent
    castle = castle_pos(s, seat)
    launch_terr = oracle_supplied(s, seat)
    launch = launch_terr | {castle}
    lake_sources = set(launch_terr)
    if s.setup["options"]["castle_lake_link"]:
        lake_sources.add(castle)
    own_terr = {i for i, kind in enumerate(kinds) if kind == "territory" and s.owner[i] == seat}
    out = set()
    for x, kind in enumerate(kinds):
        if kind != "territory" or s.owner[x] == seat:
            continue
        # R11: for advances a lake joins every territory on its shore to every other one.
        shore = {n for lake in adj[x] if kinds[lake] == "lake" for n in adj[lake] if n != x}
        near = set(adj[x]) | {n for n in shore if kinds[n] == "territory"}
        # R53 (issue 14): an unsupplied own territory next to x closes it, unless a supplied one is too.
        if near & (own_terr - launch_terr) and not near & launch_terr:
            continue
        if any(n in launch for n in adj[x]) or shore & lake_sources:
            out.add(x)
    return out


def oracle_redistribution(
    s: GameState, seat: int, moves: list[tuple[str, str, int]]
) -> tuple[bool, int, dict[int, int]]:
    """R43–R46, R16: legal iff every location is the castle or a supplied own territory, and afterwards
    every touched territory holds 1..capacity, the castle ≥ 0 and at most 10 dice are in use."""
    sup = oracle_supplied(s, seat)
    castle = s.players[seat].castle
    final: dict[int, int] = {}
    ok = True
    for src, dst, n in moves:
        for loc in (src, dst):
            if loc == "castle":
                continue
            pos = int(loc[1:])
            if s.board.kinds[pos] != "territory" or s.owner[pos] != seat or pos not in sup:
                ok = False
            else:
                final.setdefault(pos, s.knights[pos])
        if src == "castle":
            castle -= n
        elif int(src[1:]) in final:
            final[int(src[1:])] -= n
        if dst == "castle":
            castle += n
        elif int(dst[1:]) in final:
            final[int(dst[1:])] += n
    if not ok:
        return False, castle, final
    if castle < 0 or any(not 1 <= k <= cap(s, pos) for pos, k in final.items()):
        return False, castle, final
    within = oracle_dice(s, seat, castle, final) <= DICE
    if not within:
        event("refused only for the dice budget")
    return within, castle, final


# --------------------------------------------------------------------------------------------------------
# Position strategies
# --------------------------------------------------------------------------------------------------------


def _trim_dice(s: GameState) -> None:
    """Drop territories (highest index first) until every seat uses at most 10 dice."""
    for seat in range(s.num_players):
        owned = [i for i in territories(s) if s.owner[i] == seat]
        while oracle_dice(s, seat) > DICE:
            if owned:
                place(s, owned.pop(), -1, 0)
            else:
                s.players[seat].castle -= 1


@st.composite
def edited_positions(draw: Any) -> GameState:
    """A random position by editing: random layout/content/options, owners and knight counts."""
    lake_layout = draw(st.booleans())
    players = 2 if lake_layout else draw(st.sampled_from([2, 3]))
    content: str | dict[str, Any] = big_capacity_content() if draw(st.booleans()) else "default"
    options = {"castle_lake_link": draw(st.booleans())}
    first = draw(st.integers(0, players - 1))
    s = edit(
        game(
            players,
            seed=draw(st.integers(0, 5000)),
            options=options,
            pin={"first_player": first},
            content=content,
            layout=LAKE_CASTLE_LAYOUT if lake_layout else None,
        )
    )
    clear_map(s)
    # The active seat is favoured so that its dice budget (R16) is often nearly or fully used.
    owners = [-1, first, first, first, *[seat for seat in range(players) if seat != first]]
    for t in territories(s):
        owner = draw(st.sampled_from(owners))
        if owner >= 0:
            place(s, t, owner, draw(st.integers(1, cap(s, t))))
    for p in s.players:
        p.castle = draw(st.integers(0, 20))
    _trim_dice(s)
    if draw(st.booleans()):  # fill the active seat's castle to the last knight its 10 dice allow
        p = s.players[first]
        p.castle = 0
        p.castle = max(0, (DICE - oracle_dice(s, first)) * PER_DIE)
    return s


def bot_step(s: GameState, rng: Rng) -> GameState | None:
    prompts = pending(s)
    if not prompts:
        return None
    seat = prompts[rng.below(len(prompts))].seat
    action = choose(s, seat, rng)
    assert action is not None
    return apply(s, seat, action).state


def playout_states(players: int, seed: int, steps: int, options: dict[str, Any]) -> list[GameState]:
    """Every state of a seeded random playout of at most ``steps`` actions."""
    s = game(players, seed=seed, options=options)
    rng = Rng(seed * 7 + 1)
    out = [s]
    for _ in range(steps):
        nxt = bot_step(s, rng)
        if nxt is None:
            break
        s = nxt
        out.append(s)
    return out


def free_to_manoeuvre(s: GameState) -> bool:
    """The active player may start (or is in) a manoeuvre: free window with one left, or mid-manoeuvre."""
    phase = current_phase(s)
    return (phase == "window" and s.manoeuvres_left > 0) or phase == "manoeuvre"


@st.composite
def playout_positions(draw: Any) -> GameState:
    """A random position reached by a random playout of a few dozen actions."""
    players = draw(st.sampled_from([2, 3, 4]))
    options = draw(st.sampled_from([{}, {"cut_throat": True}, {"mayhem": True}, {"castle_lake_link": True}]))
    states = playout_states(players, draw(st.integers(0, 5000)), draw(st.integers(0, 60)), options)
    return states[-1]


def manoeuvre_position(s: GameState, seed: int) -> GameState | None:
    """Step the bot from ``s`` until the active player may redistribute/advance (or give up)."""
    rng = Rng(seed)
    for _ in range(80):
        if s.winners:
            return None
        if free_to_manoeuvre(s):
            return s
        nxt = bot_step(s, rng)
        if nxt is None:
            return None
        s = nxt
    return None


# --------------------------------------------------------------------------------------------------------
# (a) Line of supply
# --------------------------------------------------------------------------------------------------------


@SETTINGS
@given(edited_positions())
def test_supply_matches_path_oracle_on_edited_positions(s: GameState) -> None:
    """R48, R11, R50: every territory in ``supplied`` is connected to the seat's castle through own
    territories and lakes, and every owned territory not in it is not."""
    for seat in range(s.num_players):
        sup = supplied(s, seat)
        owned = {i for i in territories(s) if s.owner[i] == seat}
        assert sup <= owned
        for t in owned:
            assert (t in sup) == connected_to_castle(s, seat, t), (seat, t)


@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(
    st.sampled_from([2, 3, 4]),
    st.integers(0, 5000),
    st.sampled_from([{}, {"cut_throat": True}, {"mayhem": True}]),
)
def test_supply_matches_path_oracle_during_playouts(players: int, seed: int, options: dict[str, Any]) -> None:
    """R48, R49, R51, Q12: along a random playout (battles included, where the disputed territory is still
    the defender's) ``supplied`` always equals the path oracle."""
    for s in playout_states(players, seed, 60, options):
        for seat in range(s.num_players):
            assert supplied(s, seat) == oracle_supplied(s, seat)


# --------------------------------------------------------------------------------------------------------
# (b) Advance targets
# --------------------------------------------------------------------------------------------------------


def _check_targets(s: GameState, pick: int) -> None:
    seat = s.active
    targets = advance_targets(s, seat)
    assert set(targets) == oracle_targets(s, seat)
    castle = s.players[seat].castle
    for x in targets:
        if castle < 1:
            break
        others = oracle_dice(s, seat) - ceil6(castle)
        payload = {"type": "advance", "to": f"t{x}", "knights": 1}
        if others + ceil6(castle - 1) + 1 > DICE:
            event("advance refused for the dice budget")
            before = to_dict(s)
            with pytest.raises(IllegalAction) as budget:
                act(s, seat, payload)
            assert budget.value.code == ErrorCode.DICE_BUDGET
            assert to_dict(s) == before
            continue
        t = act(s, seat, payload)
        after = t.state
        assert any(e["type"] == "advanced" and e["pos"] == f"t{x}" for e in t.events)
        if after.battle is not None:
            assert after.battle.attacker == seat and after.battle.pos == x and after.battle.att_knights == 1
        else:
            assert after.players[seat].castle in (castle - 1, castle)  # castle knight ability may add one
    non_targets = [i for i in range(s.board.size) if i not in targets]
    if non_targets:
        x = non_targets[pick % len(non_targets)]
        before = to_dict(s)
        with pytest.raises(IllegalAction) as err:
            act(s, seat, {"type": "advance", "to": f"t{x}", "knights": 1})
        assert err.value.code in (
            ErrorCode.TARGET_NOT_REACHABLE,
            ErrorCode.TARGET_NEXT_TO_UNSUPPLIED,
            ErrorCode.TARGET_OWN,
            ErrorCode.TARGET_NOT_ENTERABLE,
        ), (x, err.value)
        assert to_dict(s) == before


@SETTINGS
@given(edited_positions(), st.integers(0, 1000))
def test_advance_targets_accepted_and_non_targets_rejected_edited(s: GameState, pick: int) -> None:
    """R52–R55, Q13, Q35: ``advance_targets`` equals the launch-tile oracle; each target accepts a 1-knight
    advance when the castle has a knight and the dice allow; a non-target is rejected as not reachable,
    own, or not enterable, leaving the state unchanged."""
    assert free_to_manoeuvre(s)
    _check_targets(s, pick)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(playout_positions(), st.integers(0, 1000))
def test_advance_targets_accepted_and_non_targets_rejected_playouts(s: GameState, pick: int) -> None:
    """R52–R55, Q35: the advance-target property on positions reached by random playouts."""
    ready = manoeuvre_position(s, pick)
    assume(ready is not None)
    assert ready is not None
    _check_targets(ready, pick)


# --------------------------------------------------------------------------------------------------------
# (c) Redistribution
# --------------------------------------------------------------------------------------------------------


def _check_redistribution(s: GameState, data: Any) -> None:
    seat = s.active
    own = [i for i in territories(s) if s.owner[i] == seat]
    others = [i for i in range(s.board.size) if i not in own and s.board.kinds[i] != "castle"]
    pool = ["castle"] + [f"t{i}" for i in own]
    small = data.draw(st.booleans())  # small moves among own locations are more often legal
    if others and not small:
        pool += [f"t{i}" for i in data.draw(st.lists(st.sampled_from(others), max_size=1))]
    assume(len(pool) >= 2)
    n_moves = data.draw(st.integers(1, 2 if small else 4))
    moves: list[tuple[str, str, int]] = []
    for _ in range(n_moves):
        src = data.draw(st.sampled_from(pool))
        dst = data.draw(st.sampled_from([p for p in pool if p != src]))
        moves.append((src, dst, data.draw(st.integers(1, 2 if small else 7))))
    legal, castle, final = oracle_redistribution(s, seat, moves)
    event("legal redistribution" if legal else "illegal redistribution")
    payload = {"type": "redistribute", "moves": [{"from": a, "to": b, "knights": n} for a, b, n in moves]}
    before = to_dict(s)
    try:
        t = act(s, seat, payload)
    except IllegalAction as err:
        assert not legal, f"engine refused a legal redistribution {moves}: {err}"
        assert to_dict(s) == before
        return
    assert legal, f"engine accepted an illegal redistribution {moves}"
    after = t.state
    assert after.players[seat].castle == castle
    for pos, k in final.items():
        assert after.knights[pos] == k and after.owner[pos] == seat
    assert after.owner == s.owner
    assert oracle_dice(after, seat) <= DICE


@SETTINGS
@given(edited_positions(), st.data())
def test_redistribution_matches_oracle_edited(s: GameState, data: Any) -> None:
    """R43–R46, R16: a random move list is accepted iff afterwards every touched territory holds 1 to
    capacity knights, the castle is non-negative, only the castle and supplied own territories are touched
    and at most 10 dice are in use; an accepted one yields exactly the oracle's counts."""
    assert free_to_manoeuvre(s)
    _check_redistribution(s, data)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(playout_positions(), st.integers(0, 1000), st.data())
def test_redistribution_matches_oracle_playouts(s: GameState, seed: int, data: Any) -> None:
    """R43–R46, R16: the redistribution property on positions reached by random playouts."""
    ready = manoeuvre_position(s, seed)
    assume(ready is not None)
    assert ready is not None
    _check_redistribution(ready, data)
