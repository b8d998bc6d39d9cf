"""benchmarks/web_compare.py: the table of an old-against-new web load comparison (docs/performance.md)."""

from __future__ import annotations

import pytest

from benchmarks import web_compare

#: The shape of ``benchmarks/web_load.sh``'s output (two scenarios, the second without a result).
RUN = """== machine speed: 0.23 s (python loop; lower is faster)
== warm-up
== game page, 2 players, 1 connection
RESULT requests=1200 errors=0 rps=150.0 p50=5.10ms p95=9.80ms p99=12.00ms
CPU ms per request: machine {page}, gunicorn 6.00, postgres 1.00, redis 0.00, other 1.00
== action submit, 1 connection, 1 game
RESULT requests=800 errors=0 rps=100.0 p50=6.00ms p95={p95}ms p99=20.00ms
CPU ms per request: machine {submit}, gunicorn 5.00, postgres 1.50, redis 0.10, other 0.40
== machine speed: 0.30 s (python loop; lower is faster)
"""


def test_parse_reads_each_scenarios_machine_cpu_and_p95_and_skips_other_headings() -> None:
    scenarios = web_compare.parse(RUN.format(page="8.00", submit="7.00", p95="11.50"))
    assert [(s.name, s.cpu_ms, s.p95_ms) for s in scenarios] == [
        ("game page, 2 players, 1 connection", 8.0, 9.8),
        ("action submit, 1 connection, 1 game", 7.0, 11.5),
    ]


def test_a_scenario_without_a_result_has_no_figures() -> None:
    scenarios = web_compare.parse("== poll (unchanged), 8 connections, saturated\n== machine speed: 0.3 s\n")
    assert [(s.name, s.cpu_ms, s.p95_ms) for s in scenarios] == [
        ("poll (unchanged), 8 connections, saturated", None, None)
    ]


def test_the_table_gives_each_round_and_the_ratio_of_the_means() -> None:
    old = [
        web_compare.parse(RUN.format(page=p, submit=s, p95="9"))
        for p, s in (("4.00", "3.00"), ("6.00", "5.00"))
    ]
    new = [web_compare.parse(RUN.format(page=p, submit=s, p95=q)) for p, s, q in (("8.00", "6.00", "12.5"),)]
    rows = web_compare.compare(old, new)
    assert [row.name for row in rows] == [
        "game page, 2 players, 1 connection",
        "action submit, 1 connection, 1 game",
    ]
    assert rows[0].ratio == pytest.approx(8.0 / 5.0)  # mean of 4 and 6 is 5
    assert rows[1].ratio == pytest.approx(6.0 / 4.0)
    lines = web_compare.table(rows, "008bcf5", "abc1234").splitlines()
    assert (
        lines[0] == "| scenario | CPU ms, 008bcf5 | CPU ms, abc1234 | ratio of the means | p95 ms, abc1234 |"
    )
    assert lines[2] == "| game page, 2 players, 1 connection | 4.00 / 6.00 | 8.00 | 1.60 | 9.8 |"
    assert lines[3] == "| action submit, 1 connection, 1 game | 3.00 / 5.00 | 6.00 | 1.50 | 12.5 |"


def test_a_scenario_missing_on_one_side_has_no_ratio() -> None:
    old = [web_compare.parse(RUN.format(page="4.00", submit="3.00", p95="9"))]
    new = [web_compare.parse("== game page, 2 players, 1 connection\n")]
    rows = web_compare.compare(old, new)
    assert rows[0].ratio is None
    assert "| game page, 2 players, 1 connection | 4.00 | — | — | — |" in web_compare.table(rows)
