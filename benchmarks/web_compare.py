"""The table of a web comparison (``benchmarks/compare_web.sh``): per scenario of ``benchmarks/web_load.sh``,
the machine's CPU milliseconds per request of each round, old and new, the ratio of their means and the
new p95 latencies, as a Markdown table for docs/performance.md.

Usage: ``.venv/bin/python -m benchmarks.web_compare --old OLD.log ... --new NEW.log ... [--labels OLD NEW]``.
"""

from __future__ import annotations

import argparse
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

_SCENARIO = re.compile(r"^== (?P<name>.+)$")
_RESULT = re.compile(r"^RESULT requests=(?P<requests>\d+) .*p95=(?P<p95>[\d.]+)ms")
#: The server's own CPU (issue 31); logs of older commits have only the machine's.
_CPU = re.compile(r"^CPU ms per request: (?:server (?P<server>[\d.]+), )?machine (?P<machine>[\d.]+)")
#: Lines of ``web_load.sh`` that start with ``== `` but name no scenario.
_NOT_SCENARIOS = ("machine speed", "warm-up")


@dataclass
class Scenario:
    """One scenario of one run: its server's CPU per request (ms; the machine's in logs that have no
    server figure) and p95 latency (ms), when printed."""

    name: str
    cpu_ms: float | None = None
    p95_ms: float | None = None


@dataclass
class Row:
    """One scenario across the runs compared: the old and new figures, one per run, in run order."""

    name: str
    old_cpu: list[float] = field(default_factory=list)
    new_cpu: list[float] = field(default_factory=list)
    new_p95: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """Mean new CPU over mean old CPU; ``None`` when either side has no figure."""
        if not self.old_cpu or not self.new_cpu:
            return None
        return statistics.fmean(self.new_cpu) / statistics.fmean(self.old_cpu)


def parse(text: str) -> list[Scenario]:
    """The scenarios of one ``web_load.sh`` output, in order. A scenario that printed no result (wrk
    failed, or ``ONLY`` skipped it) has ``None`` figures."""
    scenarios: list[Scenario] = []
    for line in text.splitlines():
        if m := _SCENARIO.match(line):
            name = m["name"]
            if not name.startswith(_NOT_SCENARIOS):
                scenarios.append(Scenario(name))
        elif scenarios and (m := _RESULT.match(line)):
            scenarios[-1].p95_ms = float(m["p95"])
        elif scenarios and (m := _CPU.match(line)):
            scenarios[-1].cpu_ms = float(m["server"] or m["machine"])
    return scenarios


def compare(old_runs: list[list[Scenario]], new_runs: list[list[Scenario]]) -> list[Row]:
    """Join the runs by scenario name, in the order the scenarios first appear (old runs first)."""
    rows: dict[str, Row] = {}
    for runs, old in ((old_runs, True), (new_runs, False)):
        for run in runs:
            for s in run:
                row = rows.setdefault(s.name, Row(s.name))
                if s.cpu_ms is not None:
                    (row.old_cpu if old else row.new_cpu).append(s.cpu_ms)
                if not old and s.p95_ms is not None:
                    row.new_p95.append(s.p95_ms)
    return list(rows.values())


def _figures(values: list[float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values) or "—"


def table(rows: list[Row], old_label: str = "old", new_label: str = "new") -> str:
    """The Markdown table: scenario, old CPU ms, new CPU ms (each run, ``/``-separated), the ratio of the
    means, and the new p95 in ms."""
    head = (
        f"| scenario | CPU ms, {old_label} | CPU ms, {new_label} | ratio of the means | p95 ms, {new_label} |"
    )
    lines = [head, "|---|---|---|---|---|"]
    for row in rows:
        ratio = "—" if row.ratio is None else f"{row.ratio:.2f}"
        lines.append(
            f"| {row.name} | {_figures(row.old_cpu)} | {_figures(row.new_cpu)} | {ratio} | "
            f"{' / '.join(f'{v:.1f}' for v in row.new_p95) or '—'} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", nargs="+", type=Path, required=True, help="outputs of the old commit's runs")
    parser.add_argument("--new", nargs="+", type=Path, required=True, help="outputs of this tree's runs")
    parser.add_argument("--labels", nargs=2, default=("old", "new"), metavar=("OLD", "NEW"))
    args = parser.parse_args()
    old = [parse(p.read_text()) for p in args.old]
    new = [parse(p.read_text()) for p in args.new]
    print(table(compare(old, new), *args.labels))


if __name__ == "__main__":
    main()
