"""Seating players into tables of 2–6 for round robin, Swiss and single elimination events (issue 34).

Pure Python: no Django and no project imports, so the tournament services (later) call it with plain data
and the property tests run it alone. Players are opaque ``str`` ids (a user's id as text, say). Nothing here
is random: the same input gives the same seating, whatever the hash seed.

The shapes:

- ``standings`` / ``players``: a sequence of ids, best first (current standing, or seed order);
- ``met``: how many times pairs of players (``frozenset`` of two ids) already sat together at a table in
  this event: a mapping ``pair -> times`` (a ``Counter``, see :func:`meetings`), or a collection of pairs
  that counts each pair once per time it appears (a ``set`` from :func:`pairs_met` counts each pair once);
- ``byes``: how many byes each player has had so far (missing means 0);
- a :class:`Seating`: the tables (ids in standing or seed order), who sits out with a bye, the bot seats
  per table, how many repeated pairs could not be avoided and the most times one of them had met.

When the players do not divide into full tables the event's :class:`Bye` policy says what happens: bot
seats at normal level fill the tables, or the players left over sit out with the bye points of the event's
rules. ``docs/tournaments.md`` describes the formats and the guarantees.
"""

from __future__ import annotations

import contextlib
import enum
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 6
# The exact searches (for a seating whose pairs met fewer times, then for one with fewer repeated pairs) run
# when the fast seating left repeats: only for events up to this many seated players, and sharing at most
# this many steps (a step is one candidate player for a table).
SEARCH_MAX_PLAYERS = 60
SEARCH_BUDGET = 200_000
# The search for fewer repeated pairs (after the worst is settled) has at most this many of those steps in
# events over ``SMALL_EVENT`` seated players: there it seldom finishes, and it would spend the whole budget
# on most late rounds. Up to ``SMALL_EVENT`` it has the rest of ``SEARCH_BUDGET`` and is complete.
REPEATS_BUDGET = 20_000
SMALL_EVENT = 12


#: Pairs who already sat together, with how many times: ``pair -> times`` (see :func:`meetings`), or pairs
#: counted once per appearance.
Met = Mapping[frozenset[str], int] | Iterable[frozenset[str]]
# player -> other player -> how many times they sat together (only pairs who did)
_Counts = dict[str, dict[str, int]]


class SeatingError(ValueError):
    """Seating was asked for with input it cannot seat; ``code`` says why, for callers and messages.

    Codes: ``bad_size`` (table size outside 2–6), ``too_few_players``, ``duplicate_player``,
    ``bad_pair`` (a ``met`` entry that is not two players), ``bad_advance`` (advancing count not in
    ``1 … size - 1``), ``bad_rounds``.
    """

    def __init__(self, code: str, message: str) -> None:
        """Store ``code`` (a short machine-readable word) with the human ``message``."""
        super().__init__(message)
        self.code = code


class Bye(enum.Enum):
    """What happens to the seats when the players do not divide into tables of the event's size.

    ``BOT``: tables are filled with bot seats (bots at normal level), spread so that table sizes differ by
    at most one human and the tables with bots come last (in elimination: first, at the top seeds' tables).
    ``BYE``: the players left over (``n % size``) sit out the round with the bye points of the event's rules.
    In a Swiss round they are the players with the fewest byes so far, lowest in the standings first, so
    byes rotate: nobody has a second bye while another player has none. In elimination they are the top
    seeds, who advance without playing.
    """

    BOT = "bot"
    BYE = "bye"


@dataclass(frozen=True)
class Seating:
    """One round's seating.

    ``tables``: each table's players in standing (or seed) order, best first; the tables from the top of
    the standings down. ``byes``: the players who sit out this round, in standing order. ``bot_seats``: per
    table, how many seats bots take (``size - len(table)``). ``repeats``: how many pairs at these tables
    had already met, which the seating could not avoid (0 whenever it found a seating without them).
    ``worst``: the most times one pair at these tables had met before (0 when ``repeats`` is 0; 2 means a
    pair meets for the third time).
    """

    tables: list[list[str]]
    byes: list[str] = field(default_factory=list)
    bot_seats: list[int] = field(default_factory=list)
    repeats: int = 0
    worst: int = 0


def table_sizes(n: int, size: int, *, bye_policy: Bye = Bye.BOT, min_humans: int = 1) -> list[int]:
    """How many humans sit at each table when ``n`` players are seated at tables of ``size`` seats.

    With ``Bye.BOT`` there are ``ceil(n / size)`` tables; the bot seats (``tables * size - n``) are spread
    so that the tables' humans differ by at most one, the tables with fewer humans last: 1,001 players at
    4-player tables are 248 tables of 4 and 3 tables of 3 humans and a bot. With ``Bye.BYE`` there are
    ``n // size`` full tables and ``n % size`` players sit out (``n - sum(result)``).

    Args: ``n`` players (>= 0); ``size`` seats per table (2–6); ``min_humans``: fewest humans a table
    may have under ``Bye.BOT`` (1 by default: with an odd count at two-player tables one player plays a
    bot; elimination asks for more than the advancing count).
    Returns: a list of human counts, one per table, largest first; bot seats per table are ``size - count``.
    Raises: :class:`SeatingError` ``bad_size``, or ``too_few_players`` when no table can be formed or a
    table would have fewer than ``min_humans`` humans.
    """
    _check_size(size)
    if n < 0:
        raise SeatingError("too_few_players", f"a negative number of players ({n})")
    if bye_policy is Bye.BYE:
        count = n // size
        if count == 0:
            raise SeatingError("too_few_players", f"{n} players do not fill one table of {size}")
        return [size] * count
    count = -(-n // size)
    if count == 0:
        raise SeatingError("too_few_players", "no players to seat")
    base, extra = divmod(count * size - n, count)
    humans = [size - base - (1 if i >= count - extra else 0) for i in range(count)]
    if humans[-1] < min_humans:
        raise SeatingError(
            "too_few_players", f"{n} players at tables of {size} leave a table with {humans[-1]} players"
        )
    return humans


def swiss_round(
    standings: Sequence[str],
    size: int,
    met: Met = frozenset(),
    byes: Mapping[str, int] | None = None,
    *,
    bye_policy: Bye = Bye.BOT,
) -> Seating:
    """Seat one Swiss round: tables of ``size`` by current standing, keeping players who met apart.

    The goal, in order: every player sits exactly once or has a bye; the fewest meetings of one pair
    (``worst``: no pair meets a third time while a seating exists where none does); then as few repeated
    pairs as possible (none whenever the search finds a seating without them); tables close in standing
    (the first table is the top of the standings). How: byes first (see :class:`Bye`); then top-down
    greedy seating, each table the best unseated player and the next unseated players in standing order
    who have met nobody at the table yet (else the one whose meetings there cost least, a pair that met
    ``k`` times costing more than all pairs that met fewer times); then swaps between tables, nearest
    tables first, while a swap lowers that cost; then, for events up to ``SEARCH_MAX_PLAYERS``, exact
    depth-first searches, each bounded by ``SEARCH_BUDGET`` steps and complete for small events: for a
    seating whose pairs met fewer times (one time fewer at a time, while one is found), then for the
    seating with the fewest repeated pairs at that worst.

    Args: ``standings``: all players still in the event, best first, ties already broken (see
    :func:`standings_order`); ``size``: seats per table (2–6); ``met``: who already sat together and how
    many times (see :data:`Met`; pairs naming players not in ``standings`` are ignored); ``byes``: byes so
    far per player; ``bye_policy``: bots or byes when the count does not divide.
    Returns: a :class:`Seating`.
    Raises: :class:`SeatingError` (``bad_size``, ``too_few_players``, ``duplicate_player``, ``bad_pair``).
    """
    order = _check_players(standings)
    _check_size(size)
    counts = byes or {}
    if bye_policy is Bye.BYE:
        capacities = table_sizes(len(order), size, bye_policy=Bye.BYE)
        sitting_out = _choose_byes(order, len(order) - sum(capacities), counts)
        out = set(sitting_out)
        seated = [p for p in order if p not in out]
    else:
        capacities = table_sizes(len(order), size)
        sitting_out, seated = [], list(order)
    adj = _adjacency(seated, met)
    weights = _weights(adj, len(seated) * size + 1)
    tables = _greedy(seated, capacities, adj, weights)
    cost = _cost(tables, adj, weights)
    if cost:
        _repair(tables, adj, weights, cost)
    worst, repeats = _score(tables, adj)
    if repeats and len(seated) <= SEARCH_MAX_PLAYERS:
        tables, worst, repeats = _improve(seated, capacities, adj, tables, worst, repeats)
    rank = {p: i for i, p in enumerate(order)}
    tables = [sorted(t, key=rank.__getitem__) for t in tables]
    return Seating(tables, sitting_out, [size - len(t) for t in tables], repeats, worst)


def elimination_round(
    players_in_seed_order: Sequence[str], size: int, advance_k: int = 1, *, bye_policy: Bye = Bye.BOT
) -> Seating:
    """Seat one round of single elimination: snake seeding over tables of ``size``.

    With ``T`` tables, seeds 1…T go to tables 1…T, seeds T+1…2T back from table T to 1, and so on, so the
    top seeds are at different tables and every table's seeds add up about the same (with 8 tables, table 1
    has seeds 1, 16, 17, 32). When the count does not divide, the top seeds get the advantage, as in a
    knockout draw: with ``Bye.BYE`` the top ``n % size`` seeds sit out and advance; with ``Bye.BOT`` the
    tables with bot seats are the top seeds' tables. The top ``advance_k`` humans of each table advance
    (:func:`advancing`).

    Args: ``players_in_seed_order``: best seed first; ``size``: seats per table (2–6); ``advance_k``: how
    many of each table advance (1 … ``size - 1``); ``bye_policy``.
    Returns: a :class:`Seating` (``repeats`` is always 0: elimination does not look at who met).
    Raises: :class:`SeatingError` (``bad_size``, ``bad_advance``, ``too_few_players`` when a table would
    have no more than ``advance_k`` humans, ``duplicate_player``).
    """
    order = _check_players(players_in_seed_order)
    _check_size(size)
    if not 1 <= advance_k < size:
        raise SeatingError("bad_advance", f"advance_k must be 1…{size - 1}, not {advance_k}")
    if bye_policy is Bye.BYE:
        capacities = table_sizes(len(order), size, bye_policy=Bye.BYE)
        k = len(order) - sum(capacities)
        sitting_out, seated = order[:k], order[k:]
    else:
        capacities = table_sizes(len(order), size, min_humans=advance_k + 1)[::-1]
        sitting_out, seated = [], order
    tables: list[list[str]] = [[] for _ in capacities]
    snake = _snake(len(capacities))
    for player in seated:
        index = next(snake)
        while len(tables[index]) == capacities[index]:
            index = next(snake)
        tables[index].append(player)
    return Seating(tables, sitting_out, [size - len(t) for t in tables], 0)


def advancing(results: Sequence[Sequence[str]], advance_k: int, byes: Sequence[str] = ()) -> list[str]:
    """Who moves on from an elimination round, in seed order for the next round.

    Args: ``results``: each table's humans in finishing order, best first, in table order (bots left
    out: a bot never advances, so a table whose bot finished in the top ``advance_k`` sends fewer);
    ``advance_k``: how many of each table advance (>= 1); ``byes``: who sat out with a bye (they advance).
    Returns: the byes first (they were the top seeds), then every table's winner in table order, then every
    table's second, … down to place ``advance_k``.
    Raises: :class:`SeatingError` ``bad_advance`` when ``advance_k < 1``, ``duplicate_player`` when a
    player appears twice.
    """
    if advance_k < 1:
        raise SeatingError("bad_advance", f"advance_k must be at least 1, not {advance_k}")
    moving = list(byes)
    for place in range(advance_k):
        moving.extend(table[place] for table in results if place < len(table))
    _check_unique(moving)
    return moving


def round_robin(players: Sequence[str], size: int, *, rounds: int | None = None) -> list[list[list[str]]]:
    """A round-robin schedule: rounds → tables → players in seat order.

    For ``size`` 2 it is a true round robin by the circle method (Berger): every pair meets once in
    ``n - 1`` rounds (``n`` rounds when ``n`` is odd; each round one player, paired with nobody, sits out
    and is missing from that round's tables). For ``size`` 3–6 the players are split into groups of one
    table size, seeded by snake over the seed order so the groups are even (the bot seats of
    :func:`table_sizes` fill the groups that are short), and each group is one table that plays together
    every round; the seat order rotates by one each round, so over ``size`` rounds every player has every
    seat of a full table once. ``rounds`` repeats or cuts the cycle (default: one cycle, ``n - 1`` or ``n``
    rounds for 2, ``size`` rounds otherwise); in the second cycle of a two-player schedule the seats swap.

    Args: ``players``: seed order, best first; ``size``: 2–6; ``rounds``: >= 1 or ``None``.
    Returns: ``schedule[r][t]`` is the players of table ``t`` in round ``r``, in seat order; bot seats of a
    group are ``size - len(table)``.
    Raises: :class:`SeatingError` (``bad_size``, ``too_few_players``, ``duplicate_player``, ``bad_rounds``).
    """
    order = _check_players(players)
    _check_size(size)
    if rounds is not None and rounds < 1:
        raise SeatingError("bad_rounds", f"rounds must be at least 1, not {rounds}")
    if size == 2:
        cycle = _circle(order)
        return [
            [pair if (r // len(cycle)) % 2 == 0 else pair[::-1] for pair in cycle[r % len(cycle)]]
            for r in range(len(cycle) if rounds is None else rounds)
        ]
    groups = elimination_round(order, size, 1).tables
    return [
        [g[r % len(g) :] + g[: r % len(g)] for g in groups] for r in range(size if rounds is None else rounds)
    ]


def standings_order(
    points: Mapping[str, float],
    buchholz: Mapping[str, float],
    vp: Mapping[str, float],
    head_to_head: Mapping[str, Mapping[str, float]],
) -> list[str]:
    """The standings, best first: by points, then Buchholz, then VP, then head to head.

    The tie rule, exactly: players are sorted by points (higher first); players level on points by their
    Buchholz-like sum of opponents' points (:func:`buchholz_scores`); then by VP. Each group still level on
    all three is ordered by head to head within the group: a player's score is the sum of
    ``head_to_head[p][q]`` over the others ``q`` of the group (say, how many times ``p`` finished ahead of
    ``q`` at a shared table), higher first. Players still level keep the order of ``points`` (the caller
    passes it in entry or seed order), so the result is a total order and deterministic.

    Args: ``points``: every player's tournament points (its keys are the players, in the final tie order);
    ``buchholz``, ``vp``: per player, missing means 0; ``head_to_head``: ``p → q → score``, missing means 0.
    Returns: the players, best first.
    """
    players = list(points)

    def main_key(p: str) -> tuple[float, float, float]:
        return (-points[p], -buchholz.get(p, 0.0), -vp.get(p, 0.0))

    ordered = sorted(players, key=main_key)
    result: list[str] = []
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and main_key(ordered[end]) == main_key(ordered[start]):
            end += 1
        group = ordered[start:end]
        if len(group) > 1:
            mini = {p: sum(head_to_head.get(p, {}).get(q, 0.0) for q in group if q != p) for p in group}
            group.sort(key=lambda p: -mini[p])
        result.extend(group)
        start = end
    return result


def buchholz_scores(points: Mapping[str, float], opponents: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """The Buchholz-like tie-break: for each player, the sum of the points of everyone they sat with.

    Args: ``points``: every player's points; ``opponents``: per player, the other humans at each table
    they played, once per table (two shared tables count the opponent twice; bots count nothing).
    Returns: ``player → sum`` for every player in ``points``.
    """
    return {p: sum(points.get(q, 0.0) for q in opponents.get(p, ())) for p in points}


def pairs_met(tables: Iterable[Sequence[str]]) -> set[frozenset[str]]:
    """Every pair of players who sat together at one of ``tables``, once each (how many times is lost:
    pass :func:`meetings` of every earlier round's tables to :func:`swiss_round` as ``met``).

    Args: ``tables``: lists of players. Returns: a set of two-player ``frozenset``.
    """
    return {frozenset(pair) for table in tables for pair in combinations(table, 2)}


def meetings(tables: Iterable[Sequence[str]]) -> Counter[frozenset[str]]:
    """How many of ``tables`` each pair of players shared: the ``met`` of :func:`swiss_round`.

    Args: ``tables``: lists of players, say the tables of every round played so far (or ``Counter.update``
    an earlier result with one more round's :func:`pairs_met`).
    Returns: a ``Counter`` ``frozenset({a, b}) -> times``, only pairs who met.
    """
    return Counter(frozenset(pair) for table in tables for pair in combinations(table, 2))


# --- internals -------------------------------------------------------------------------------------------


def _check_size(size: int) -> None:
    if not MIN_TABLE_SIZE <= size <= MAX_TABLE_SIZE:
        raise SeatingError("bad_size", f"tables seat {MIN_TABLE_SIZE}–{MAX_TABLE_SIZE} players, not {size}")


def _check_unique(players: Sequence[str]) -> None:
    seen: set[str] = set()
    for p in players:
        if p in seen:
            raise SeatingError("duplicate_player", f"player {p!r} appears twice")
        seen.add(p)


def _check_players(players: Sequence[str]) -> list[str]:
    order = list(players)
    _check_unique(order)
    if len(order) < 2:
        raise SeatingError("too_few_players", f"{len(order)} players cannot make a table")
    return order


def _choose_byes(order: list[str], k: int, byes: Mapping[str, int]) -> list[str]:
    """The ``k`` players with the fewest byes so far, lowest in the standings first; in standing order."""
    position = {p: i for i, p in enumerate(order)}
    chosen = sorted(order, key=lambda p: (byes.get(p, 0), -position[p]))[:k]
    return sorted(chosen, key=position.__getitem__)


def _adjacency(players: list[str], met: Met) -> _Counts:
    """``player -> other -> times met`` among ``players``; ``met`` a mapping of counts or pairs to count."""
    adj: _Counts = {p: {} for p in players}
    items: Iterable[tuple[frozenset[str], int]] = (
        met.items() if isinstance(met, Mapping) else ((pair, 1) for pair in met)
    )
    for pair, times in items:
        if len(pair) != 2:
            raise SeatingError("bad_pair", f"a met pair must name two players: {sorted(pair)!r}")
        a, b = sorted(pair)
        if times > 0 and a in adj and b in adj:
            adj[a][b] = adj[a].get(b, 0) + times
            adj[b][a] = adj[b].get(a, 0) + times
    return adj


def _weights(adj: _Counts, base: int) -> list[int]:
    """The cost of seating a pair that met ``k`` times, by ``k``: 0, then 1, ``base``, ``base**2``, …

    ``base`` is more than the pairs one seating has, so one pair that met ``k`` times costs more than all
    the pairs that met fewer times: the least cost has the smallest ``worst`` first.
    """
    most = max((t for row in adj.values() for t in row.values()), default=0)
    return [0] + [base ** (k - 1) for k in range(1, most + 1)]


def _conflicts(
    player: str, table: list[str], adj: _Counts, weights: list[int], without: str | None = None
) -> int:
    met = adj[player]
    if not met:
        return 0
    return sum(weights[met[q]] for q in table if q in met and q != without)


def _cost(tables: list[list[str]], adj: _Counts, weights: list[int]) -> int:
    return sum(weights[adj[a].get(b, 0)] for t in tables for a, b in combinations(t, 2))


def _score(tables: list[list[str]], adj: _Counts) -> tuple[int, int]:
    """``(worst, repeats)``: the most times a pair at ``tables`` had met, and how many pairs had met."""
    times = [t for table in tables for a, b in combinations(table, 2) if (t := adj[a].get(b, 0))]
    return max(times, default=0), len(times)


def _greedy(order: list[str], capacities: list[int], adj: _Counts, weights: list[int]) -> list[list[str]]:
    rest = list(order)
    tables: list[list[str]] = []
    for capacity in capacities:
        table = [rest.pop(0)]
        while len(table) < capacity:
            best, fewest = 0, -1
            for i, candidate in enumerate(rest):
                c = _conflicts(candidate, table, adj, weights)
                if c < fewest or fewest < 0:
                    best, fewest = i, c
                    if c == 0:
                        break
            table.append(rest.pop(best))
        tables.append(table)
    return tables


def _nearest(i: int, count: int) -> Iterator[int]:
    for d in range(1, count):
        for j in (i + d, i - d):
            if 0 <= j < count:
                yield j


def _repair(tables: list[list[str]], adj: _Counts, weights: list[int], cost: int) -> int:
    """Swap players between tables, nearest first, while a swap lowers the cost; returns the cost."""
    improved = True
    while improved and cost:
        improved = False
        for i, table in enumerate(tables):
            for a_index, a in enumerate(table):
                own = _conflicts(a, table, adj, weights, a)
                if own == 0:
                    continue
                for j in _nearest(i, len(tables)):
                    other = tables[j]
                    for b_index, b in enumerate(other):
                        delta = (
                            _conflicts(b, table, adj, weights, a)
                            + _conflicts(a, other, adj, weights, b)
                            - own
                            - _conflicts(b, other, adj, weights, b)
                        )
                        if delta < 0:
                            table[a_index], other[b_index] = b, a
                            cost += delta
                            improved = True
                            break
                    if improved:
                        break
                if improved:
                    break
            if improved:
                break
    return cost


def _improve(
    order: list[str], capacities: list[int], adj: _Counts, tables: list[list[str]], worst: int, repeats: int
) -> tuple[list[list[str]], int, int]:
    """The exact searches after the fast seating: a lower ``worst`` while one is found, then fewer repeats.

    The searches share ``SEARCH_BUDGET`` steps, the lower worst first; the search for fewer repeats has at
    most ``REPEATS_BUDGET`` of them in events over ``SMALL_EVENT`` players. Returns ``(tables, worst,
    repeats)``: the fast seating's when no search found a better one.
    """
    budget = [SEARCH_BUDGET]
    while worst > 0 and budget[0] > 0:
        found = _search(order, capacities, adj, worst - 1, None, budget)
        if found is None:
            break
        tables = found
        worst, repeats = _score(tables, adj)
    if len(order) > SMALL_EVENT:
        budget[0] = min(budget[0], REPEATS_BUDGET)
    if repeats and budget[0] > 0:
        found = _search(order, capacities, adj, worst, repeats, budget)
        if found is not None:
            tables = found
            worst, repeats = _score(tables, adj)
    return tables, worst, repeats


class _BudgetSpent(Exception):
    pass


class _Found(Exception):
    pass


def _search(
    order: list[str],
    capacities: list[int],
    adj: _Counts,
    limit: int,
    fewer_than: int | None,
    budget: list[int],
) -> list[list[str]] | None:
    """Depth-first search for a seating where no pair met more than ``limit`` times.

    With ``fewer_than`` ``None``: the first such seating found. With a number: of the seatings with fewer
    repeated pairs than that, the first with the fewest (branch and bound). ``None`` if there is none or the
    budget ran out before one was found (after that, the best found so far). ``budget[0]``: the steps left,
    counted down (a step is one candidate player for a table). The best unseated player
    anchors the next table, of each table size still to place (larger first), with companions in standing
    order, so the first seating found keeps tables close in standing.
    """
    left = {c: capacities.count(c) for c in sorted(set(capacities), reverse=True)}
    best: list[list[list[str]] | None] = [None]
    bound = [fewer_than if fewer_than is not None else len(order) * len(order)]
    path: list[list[str]] = []

    def companions(
        table: list[str], candidates: list[str], k: int, cost: int
    ) -> Iterator[tuple[list[str], int]]:
        if k == 0:
            yield table, cost
            return
        for i, p in enumerate(candidates):
            if len(candidates) - i < k:
                return
            budget[0] -= 1
            if budget[0] < 0:
                raise _BudgetSpent
            met = adj[p]
            added = 0
            for q in table:
                times = met.get(q, 0)
                if times > limit:
                    break
                added += times > 0
            else:
                if cost + added < bound[0]:
                    yield from companions([*table, p], candidates[i + 1 :], k - 1, cost + added)

    def place(rest: list[str], cost: int) -> None:
        if not rest:
            best[0], bound[0] = [list(t) for t in path], cost
            if fewer_than is None or cost == 0:
                raise _Found
            return
        anchor = rest[0]
        met = adj[anchor]
        others = [p for p in rest[1:] if met.get(p, 0) <= limit]
        for capacity in [c for c, n in left.items() if n]:
            left[capacity] -= 1
            for table, got in companions([anchor], others, capacity - 1, cost):
                seated = set(table)
                path.append(table)
                place([p for p in rest[1:] if p not in seated], got)
                path.pop()
            left[capacity] += 1

    with contextlib.suppress(_BudgetSpent, _Found):
        place(order, 0)
    return best[0]


def _snake(count: int) -> Iterator[int]:
    while True:
        yield from range(count)
        yield from range(count - 1, -1, -1)


def _circle(order: list[str]) -> list[list[list[str]]]:
    ring: list[str | None] = [*order, None] if len(order) % 2 else list(order)
    n = len(ring)
    rounds: list[list[list[str]]] = []
    for r in range(n - 1):
        tables: list[list[str]] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                continue
            tables.append([b, a] if i == 0 and r % 2 else [a, b])
        rounds.append(tables)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds
