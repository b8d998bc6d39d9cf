"""Property tests of the pure tournament seating (issue 34)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tournaments.seating import (
    Bye,
    Seating,
    SeatingError,
    advancing,
    buchholz_scores,
    elimination_round,
    meetings,
    pairs_met,
    round_robin,
    standings_order,
    swiss_round,
    table_sizes,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def players_of(n: int) -> list[str]:
    return [f"p{i:03d}" for i in range(n)]


def repeat_free_exists(players: list[str], capacities: list[int], met: set[frozenset[str]]) -> bool:
    """Brute force, independent of the module: is there a seating with these table sizes and no repeat?"""
    if not players:
        return True
    anchor, rest = players[0], players[1:]
    for capacity in sorted(set(capacities)):
        left = list(capacities)
        left.remove(capacity)
        for companions in combinations(rest, capacity - 1):
            table = (anchor, *companions)
            if any(frozenset(pair) in met for pair in combinations(table, 2)):
                continue
            if repeat_free_exists([p for p in rest if p not in companions], left, met):
                return True
    return False


def count_repeats(seating: Seating, met: Mapping[frozenset[str], int] | set[frozenset[str]]) -> int:
    counts = met if isinstance(met, Mapping) else dict.fromkeys(met, 1)
    return sum(
        1 for table in seating.tables for pair in combinations(table, 2) if counts.get(frozenset(pair))
    )


def worst_of(tables: list[list[str]], met: Mapping[frozenset[str], int]) -> int:
    """The most times a pair at ``tables`` had met before."""
    return max(
        (met.get(frozenset(pair), 0) for table in tables for pair in combinations(table, 2)), default=0
    )


def fewest(players: list[str], capacities: list[int], met: Mapping[frozenset[str], int]) -> tuple[int, int]:
    """Brute force, independent of the module: the least ``(worst, repeats)`` of any seating of ``players``
    at tables of these sizes (worst first: the most times one seated pair had met, then repeated pairs)."""
    best = [(len(players) ** 2, 0)]

    def seat(rest: list[str], left: list[int], worst: int, repeats: int) -> None:
        if (worst, repeats) >= best[0]:
            return
        if not rest:
            best[0] = (worst, repeats)
            return
        anchor, others = rest[0], rest[1:]
        for capacity in sorted(set(left)):
            remaining = list(left)
            remaining.remove(capacity)
            for companions in combinations(others, capacity - 1):
                times = [met.get(frozenset(pair), 0) for pair in combinations((anchor, *companions), 2)]
                seat(
                    [p for p in others if p not in companions],
                    remaining,
                    max([worst, *times]),
                    repeats + sum(1 for t in times if t),
                )

    seat(players, capacities, 0, 0)
    return best[0]


def check_round(
    seating: Seating,
    standings: list[str],
    size: int,
    policy: Bye,
    met: Mapping[frozenset[str], int] | set[frozenset[str]],
    byes: dict[str, int],
) -> None:
    seated = [p for table in seating.tables for p in table]
    # Every player sits exactly once, or has a bye.
    assert sorted(seated + seating.byes) == sorted(standings)
    assert len(set(seated)) == len(seated)
    assert not set(seated) & set(seating.byes)
    assert seating.bot_seats == [size - len(t) for t in seating.tables]
    assert all(1 <= len(t) <= size for t in seating.tables)
    if policy is Bye.BYE:
        assert len(seating.byes) == len(standings) % size
        assert all(len(t) == size for t in seating.tables)
        # Byes rotate: nobody gets a bye while someone who has had fewer plays.
        assert_byes_rotate(seating, standings, byes)
        # Among the candidates with the fewest byes, the lowest in the standings.
        by_count = sorted(standings, key=lambda p: (byes.get(p, 0), -standings.index(p)))
        assert sorted(seating.byes) == sorted(by_count[: len(seating.byes)])
    else:
        assert seating.byes == []
        assert sum(seating.bot_seats) == len(seating.tables) * size - len(standings)
        assert max(len(t) for t in seating.tables) - min(len(t) for t in seating.tables) <= 1
    # The reported repeats (and the most meetings of one pair) are the real ones.
    assert seating.repeats == count_repeats(seating, met)
    counts = met if isinstance(met, Mapping) else dict.fromkeys(met, 1)
    assert seating.worst == worst_of(seating.tables, counts)


def assert_byes_rotate(seating: Seating, standings: list[str], byes: dict[str, int]) -> None:
    if seating.byes:
        most = max(byes.get(p, 0) for p in seating.byes)
        assert all(p in seating.byes for p in standings if byes.get(p, 0) < most)


def play(seating: Seating, rng: random.Random, points: dict[str, int]) -> None:
    for table in seating.tables:
        finish = list(table)
        rng.shuffle(finish)
        for place, p in enumerate(finish):
            points[p] += len(finish) - 1 - place


def simulate(
    n: int, size: int, policy: Bye, rounds: int, seed: int
) -> Iterator[tuple[int, list[str], Counter[frozenset[str]], dict[str, int], Seating]]:
    """Yield (round, standings, met, byes, seating) for a Swiss event with random results; ``met`` counts
    how many times each pair met."""
    rng = random.Random(seed)
    players = players_of(n)
    points = dict.fromkeys(players, 0)
    met: Counter[frozenset[str]] = Counter()
    byes: dict[str, int] = {}
    for r in range(rounds):
        standings = sorted(players, key=lambda p: (-points[p], p))
        seating = swiss_round(standings, size, met, byes, bye_policy=policy)
        yield r, standings, Counter(met), dict(byes), seating
        play(seating, rng, points)
        for p in seating.byes:
            byes[p] = byes.get(p, 0) + 1
            points[p] += size // 2
        met.update(pairs_met(seating.tables))


policies = st.sampled_from([Bye.BOT, Bye.BYE])


@SETTINGS
@given(
    n=st.integers(5, 200),
    size=st.integers(2, 6),
    policy=policies,
    rounds=st.integers(1, 5),
    seed=st.integers(0, 10_000),
)
def test_swiss_seats_everyone_once_with_rotating_byes(n, size, policy, rounds, seed):
    assume(policy is Bye.BOT or n >= size)  # byes need one full table
    for r, standings, met, byes, seating in simulate(n, size, policy, rounds, seed):
        check_round(seating, standings, size, policy, met, byes)
        if n >= 40 and r < 3:
            # Few rounds into a large event a seating without repeats always exists.
            assert seating.repeats == 0


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(5, 12),
    size=st.integers(2, 6),
    policy=policies,
    density=st.floats(0.0, 0.6),
    seed=st.integers(0, 10_000),
)
def test_swiss_avoids_repeats_whenever_a_repeat_free_seating_exists(n, size, policy, density, seed):
    """Small events against a random history: brute force says whether repeats could be avoided."""
    players = players_of(n)
    if policy is Bye.BYE and n < size:
        return
    rng = random.Random(seed)
    met = {frozenset(pair) for pair in combinations(players, 2) if rng.random() < density}
    byes = {p: rng.randint(0, 1) for p in players}
    seating = swiss_round(players, size, met, byes, bye_policy=policy)
    check_round(seating, players, size, policy, met, byes)
    seated = [p for p in players if p not in seating.byes]
    capacities = [len(t) for t in seating.tables]
    assert sorted(capacities, reverse=True) == table_sizes(n, size, bye_policy=policy)
    if repeat_free_exists(seated, capacities, met):
        assert seating.repeats == 0


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 12), size=st.integers(2, 6), rounds=st.integers(2, 6), seed=st.integers(0, 10_000))
def test_swiss_small_events_over_many_rounds(n, size, rounds, seed):
    """Later rounds of small events: repeats only when none of the seatings with these tables avoids them."""
    for _, standings, met, byes, seating in simulate(n, size, Bye.BOT, rounds, seed):
        check_round(seating, standings, size, Bye.BOT, met, byes)
        if seating.repeats:
            assert not repeat_free_exists(standings, [len(t) for t in seating.tables], set(+met))
        # No pair meets once more than it must, and no more repeated pairs than needed at that worst.
        assert (seating.worst, seating.repeats) == fewest(standings, [len(t) for t in seating.tables], met)


@SETTINGS
@given(n=st.integers(5, 200), size=st.integers(2, 6), policy=policies, seed=st.integers(0, 10_000))
def test_swiss_is_deterministic(n, size, policy, seed):
    assume(policy is Bye.BOT or n >= size)  # byes need one full table
    rounds = list(simulate(n, size, policy, 3, seed))
    _, standings, met, byes, seating = rounds[-1]
    shuffled = list(met.items())
    random.Random(seed + 1).shuffle(shuffled)
    again = swiss_round(
        list(standings), size, dict(shuffled), dict(reversed(byes.items())), bye_policy=policy
    )
    assert again == seating
    # the same counts as repeated pairs, in another order
    pairs = [pair for pair, times in shuffled for _ in range(times)]
    random.Random(seed + 2).shuffle(pairs)
    assert swiss_round(list(standings), size, pairs, byes, bye_policy=policy) == seating


@SETTINGS
@given(n=st.integers(5, 200), size=st.integers(2, 6), policy=policies, rounds=st.integers(3, 8))
def test_byes_rotate_over_an_event(n, size, policy, rounds):
    assume(policy is Bye.BOT or n >= size)  # byes need one full table
    byes_seen: dict[str, int] = {}
    for _, standings, _, byes, seating in simulate(n, size, policy, rounds, n):
        assert_byes_rotate(seating, standings, byes)
        byes_seen = byes
    if byes_seen:
        counts = [byes_seen.get(p, 0) for p in players_of(n)]
        assert max(counts) - min(counts) <= 1


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(4, 12),
    size=st.integers(2, 6),
    policy=policies,
    density=st.floats(0.0, 0.9),
    most=st.integers(1, 4),
    seed=st.integers(0, 10_000),
)
def test_swiss_keeps_the_most_meetings_of_a_pair_lowest_then_the_repeats(
    n, size, policy, density, most, seed
):
    """Small events against random histories of counts: no pair meets ``k + 1`` times while a seating exists
    where none does, and of those seatings one with the fewest repeated pairs (brute force decides)."""
    if policy is Bye.BYE and n < size:
        return
    players = players_of(n)
    rng = random.Random(seed)
    met = Counter(
        {frozenset(pair): rng.randint(1, most) for pair in combinations(players, 2) if rng.random() < density}
    )
    byes = {p: rng.randint(0, 1) for p in players}
    seating = swiss_round(players, size, met, byes, bye_policy=policy)
    check_round(seating, players, size, policy, met, byes)
    seated = [p for p in players if p not in seating.byes]
    capacities = [len(t) for t in seating.tables]
    assert sorted(capacities, reverse=True) == table_sizes(n, size, bye_policy=policy)
    worst, repeats = fewest(seated, capacities, met)
    assert seating.worst == worst, f"a pair meets {seating.worst + 1} times where {worst + 1} would do"
    assert seating.repeats == repeats


def test_swiss_no_third_meeting_in_a_12_player_3_round_event():
    """The issue's case: 12 players, tables of 4, standings unchanged; round 3 seats nobody a third time."""
    order = [str(i) for i in range(1, 13)]
    met: Counter[frozenset[str]] = Counter()
    for _ in range(3):
        seating = swiss_round(order, 4, met)
        assert (seating.worst, seating.repeats) == fewest(order, [4, 4, 4], met)
        met.update(pairs_met(seating.tables))
    assert seating.tables == [["1", "2", "5", "10"], ["3", "6", "7", "11"], ["4", "8", "9", "12"]]
    assert seating.worst == 1
    assert max(met.values()) == 2


def test_swiss_met_counts_from_a_mapping_or_repeated_pairs():
    """``met`` as ``pair -> times``, or as pairs counted once per appearance; a set counts each once."""
    players = players_of(6)
    twice = frozenset({"p000", "p001"})
    once = [frozenset({"p000", "p002"}), frozenset({"p001", "p002"})]
    # 6 players at tables of 3: p000 sits with p001 or with p002 (or neither); never both pairs again
    as_counts = swiss_round(players, 3, {twice: 2, once[0]: 1, once[1]: 1})
    as_list = swiss_round(players, 3, [twice, twice, *once])
    assert as_counts == as_list
    assert all(not {"p000", "p001"} <= set(t) for t in as_counts.tables)
    assert meetings([["a", "b", "c"], ["a", "b"]]) == Counter(
        {frozenset({"a", "b"}): 2, frozenset({"a", "c"}): 1, frozenset({"b", "c"}): 1}
    )


def test_swiss_first_round_keeps_tables_in_standing_order():
    seating = swiss_round(players_of(12), 4)
    assert seating.tables == [players_of(12)[0:4], players_of(12)[4:8], players_of(12)[8:12]]
    assert seating.repeats == 0


def test_swiss_moves_a_player_who_met_the_table_down():
    players = players_of(8)
    met = {frozenset({"p000", "p001"})}
    seating = swiss_round(players, 4, met)
    assert seating.repeats == 0
    assert seating.tables[0] == ["p000", "p002", "p003", "p004"]


def test_swiss_counts_the_repeats_it_cannot_avoid():
    players = players_of(4)
    met = pairs_met([players])
    seating = swiss_round(players, 4, met)
    assert seating.repeats == 6


def test_swiss_bye_goes_to_the_lowest_without_a_bye():
    players = players_of(5)
    seating = swiss_round(players, 2, byes={"p004": 1}, bye_policy=Bye.BYE)
    assert seating.byes == ["p003"]


@SETTINGS
@given(n=st.integers(5, 200), size=st.integers(2, 6), policy=policies, data=st.data())
def test_elimination_spreads_seeds_and_advances_exactly_k(n, size, policy, data):
    k = data.draw(st.integers(1, size - 1))
    players = players_of(n)
    try:
        seating = elimination_round(players, size, k, bye_policy=policy)
    except SeatingError as error:
        assert error.code == "too_few_players"
        assert policy is Bye.BYE or -(-n // size) * (k + 1) > n or n < size
        return
    seated = [p for t in seating.tables for p in t]
    assert sorted(seated + seating.byes) == players
    assert all(len(t) > k for t in seating.tables)
    tables = len(seating.tables)
    if policy is Bye.BYE:
        assert seating.byes == players[: n % size]
    # The top seeds sit at different tables, one each.
    top = [p for p in players if p not in seating.byes][:tables]
    assert sorted(next(i for i, t in enumerate(seating.tables) if p in t) for p in top) == list(range(tables))
    # Snake: among full tables the seed sums differ by little.
    rank = {p: i for i, p in enumerate(players)}
    full = [sum(rank[p] for p in t) for t in seating.tables if len(t) == size]
    if len(full) > 1:
        assert max(full) - min(full) <= tables * size
    results = [data.draw(st.permutations(t)) for t in seating.tables]
    moving = advancing(results, k, seating.byes)
    assert len(moving) == len(seating.byes) + k * len(seating.tables)
    assert moving[: len(seating.byes)] == seating.byes
    assert all(sum(1 for p in t if p in moving) == k for t in seating.tables)
    assert all(set(r[:k]) <= set(moving) for r in results)


def test_elimination_snake_with_eight_tables():
    seating = elimination_round([str(i) for i in range(1, 33)], 4)
    assert seating.tables[0] == ["1", "16", "17", "32"]
    assert seating.tables[7] == ["8", "9", "24", "25"]


def test_elimination_puts_bots_at_the_top_seeds_tables():
    seating = elimination_round(players_of(10), 4)
    assert seating.bot_seats == [1, 1, 0]
    assert "p000" in seating.tables[0]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40))
def test_two_player_round_robin_meets_everyone_once(n):
    players = players_of(n)
    schedule = round_robin(players, 2)
    assert len(schedule) == (n - 1 if n % 2 == 0 else n)
    for tables in schedule:
        seated = [p for t in tables for p in t]
        assert len(set(seated)) == len(seated) == n - n % 2
    pairs = [frozenset(t) for tables in schedule for t in tables]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 200), size=st.integers(3, 6))
def test_group_round_robin_rotates_seats(n, size):
    players = players_of(n)
    schedule = round_robin(players, size)
    assert len(schedule) == size
    first = schedule[0]
    assert sorted(p for t in first for p in t) == players
    for tables in schedule:
        assert [sorted(t) for t in tables] == [sorted(t) for t in first]
    for t in range(len(first)):
        if len(first[t]) == size:
            for p in first[t]:
                assert sorted(schedule[r][t].index(p) for r in range(size)) == list(range(size))


def test_round_robin_double_cycle_swaps_seats():
    schedule = round_robin(players_of(4), 2, rounds=6)
    assert schedule[3] == [t[::-1] for t in schedule[0]]


def test_table_sizes():
    assert table_sizes(1000, 4) == [4] * 250
    assert table_sizes(1001, 4) == [4] * 248 + [3] * 3
    assert table_sizes(7, 6) == [4, 3]
    assert table_sizes(7, 3, bye_policy=Bye.BYE) == [3, 3]
    with pytest.raises(SeatingError) as error:
        table_sizes(3, 4, bye_policy=Bye.BYE)
    assert error.value.code == "too_few_players"
    with pytest.raises(SeatingError) as error:
        table_sizes(8, 7)
    assert error.value.code == "bad_size"


def test_errors_have_codes():
    with pytest.raises(SeatingError) as error:
        swiss_round(["a", "b", "a"], 2)
    assert error.value.code == "duplicate_player"
    with pytest.raises(SeatingError) as error:
        swiss_round(["a", "b", "c"], 2, {frozenset({"a"})})
    assert error.value.code == "bad_pair"
    with pytest.raises(SeatingError) as error:
        elimination_round(players_of(8), 4, 4)
    assert error.value.code == "bad_advance"
    with pytest.raises(SeatingError) as error:
        round_robin(players_of(8), 4, rounds=0)
    assert error.value.code == "bad_rounds"
    assert isinstance(error.value, ValueError)


def test_standings_order_tie_breaks():
    points = {"a": 3.0, "b": 5.0, "c": 3.0, "d": 3.0, "e": 3.0, "f": 1.0}
    buchholz = {"a": 10.0, "c": 12.0, "d": 10.0, "e": 10.0}
    vp = {"a": 7.0, "d": 7.0, "e": 6.0}
    head_to_head = {"d": {"a": 1.0}, "a": {"d": 0.0}}
    assert standings_order(points, buchholz, vp, head_to_head) == ["b", "c", "d", "a", "e", "f"]
    # Still level: the order of ``points``.
    assert standings_order({"x": 1.0, "y": 1.0}, {}, {}, {}) == ["x", "y"]
    assert standings_order({"y": 1.0, "x": 1.0}, {}, {}, {}) == ["y", "x"]


def test_buchholz_scores():
    points = {"a": 3.0, "b": 1.0, "c": 2.0}
    assert buchholz_scores(points, {"a": ["b", "c"], "b": ["a", "a"]}) == {"a": 3.0, "b": 6.0, "c": 0.0}
