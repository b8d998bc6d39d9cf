"""benchmarks/anarchy_compare.py: reading ``anarchy_solve``'s output and summing up a tree's runs (issue 33,
docs/performance.md)."""

from __future__ import annotations

import pytest

from benchmarks.anarchy_compare import Run, parse, summarise

OUTPUT = """ 12 muster 2 knights 5:   0.918 s T:1K R:1C4K B:3C2S L:1S (30 deployments)
positions 1  p50 0.918 s  p95 0.918 s  max 0.918 s
"""


def test_parse_reads_the_positions_seconds_and_deployment() -> None:
    assert parse(OUTPUT, 12) == Run(12, 0.918, "T:1K R:1C4K B:3C2S L:1S")


def test_a_run_without_its_line_did_not_finish() -> None:
    assert parse("", 3) == Run(3, None, "")
    assert parse(OUTPUT, 3) == Run(3, None, "")


def test_the_summary_counts_the_19th_of_20_as_p95_and_an_unfinished_run_as_slowest() -> None:
    runs = [Run(n, 0.1 * (n + 1), "") for n in range(19)] + [Run(19, None, "")]
    summary = summarise(runs)
    assert summary.p95 == pytest.approx(1.9)  # the 19th: one position in 20 may be slower
    assert summary.most == float("inf")
    assert summary.under == 9  # 0.1 ... 0.9 s
    assert summary.median == pytest.approx(1.05)
