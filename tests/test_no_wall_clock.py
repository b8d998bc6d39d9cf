"""No test times the machine (issue 28 §3): a loaded CI machine is slow, and an assertion on elapsed
wall-clock time turns load into a red build. Speed is measured by the benchmarks (``make bench``,
``benchmarks/``); lateness is asserted in ticks of a fake clock (time-machine) or against a configured
period.

This test reads every test module and fails on an ``assert`` that compares a clock reading
(``time.monotonic()``, ``time.time()``, ``time.perf_counter()``) with a literal number or a ``timedelta``
of literal numbers.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: The clock readings that must not be bounded by a literal in an assertion.
CLOCKS = frozenset({"monotonic", "time", "perf_counter", "monotonic_ns", "time_ns", "perf_counter_ns"})


def _reads_clock(node: ast.AST) -> bool:
    """Whether ``node`` contains a call ``time.<clock>()`` or ``<clock>()`` of :data:`CLOCKS`."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "time"
                and func.attr in CLOCKS
            ):
                return True
            if isinstance(func, ast.Name) and func.id in CLOCKS - {"time"}:
                return True
    return False


def _literal_bound(node: ast.AST) -> bool:
    """Whether ``node`` is a number, or a ``timedelta(...)`` / arithmetic made only of numbers."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _literal_bound(node.left) and _literal_bound(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        args = [*node.args, *(k.value for k in node.keywords)]
        return name == "timedelta" and bool(args) and all(_literal_bound(a) for a in args)
    return False


def timed_assertions(source: str, filename: str = "<test>") -> list[int]:
    """Line numbers of the assertions in ``source`` that bound a clock reading by a literal.

    Args:
        source: a Python module's text.
        filename: for syntax errors.
    Returns:
        The ``assert`` statements' line numbers, in order.
    """
    found: list[int] = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Assert):
            continue
        for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            sides = [compare.left, *compare.comparators]
            if any(_reads_clock(s) for s in sides) and any(_literal_bound(s) for s in sides):
                found.append(node.lineno)
                break
    return found


def test_the_check_finds_a_clock_bounded_by_a_literal() -> None:
    """The check itself: the forms the issue found are caught, a bound by a setting is not."""
    source = (
        "import time\n"
        "started = time.monotonic()\n"
        "assert time.monotonic() - started < 120\n"
        "assert time.perf_counter() - t0 <= timedelta(seconds=15).total_seconds()\n"
        "assert 2 * 60 > time.time() - t0\n"
        "assert time.monotonic() - started < settings.DEADLINE_SWEEP_INTERVAL\n"
        "assert len(rows) < 3\n"
    )
    assert timed_assertions(source) == [3, 5]
    assert timed_assertions("from time import monotonic\nassert monotonic() - t < 5\n") == [2]


def test_no_test_bounds_the_wall_clock_by_a_literal() -> None:
    """Every module under tests/ is free of such assertions."""
    offenders = {
        str(path.relative_to(TESTS.parent)): lines
        for path in sorted(TESTS.rglob("*.py"))
        if path.resolve() != Path(__file__).resolve()
        and (lines := timed_assertions(path.read_text(encoding="utf-8"), str(path)))
    }
    assert offenders == {}
