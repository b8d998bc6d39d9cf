"""Benchmark: the Castle Defence solver of an older commit against this tree's, interleaved (issue 33).

Run: ``make bench-anarchy OLD=<commit> [MUSTER=0]``, or ``.venv/bin/python -m benchmarks.anarchy_compare
<commit> [--positions 20] [--seed 1] [--muster N] [--timeout 100]``. The older commit is checked out in a
git worktree (in a temporary folder, removed at the end) that uses this tree's virtualenv: the engine is
pure Python, and ``python -m`` run from the worktree imports its own ``anarchy`` first (the editable
install's finder comes after the path). Both trees are measured by this tree's
``benchmarks/anarchy_solve.py``, one fresh process per position and tree, the two trees in turn for each
position, so both meet the machine in the same minute (docs/performance.md: "compare as a ratio"); each
process is pinned to one core with ``taskset`` where there is one. Prints each position's seconds in both
trees, their ratio and whether the deployments are the same, then the median, the p95 (as
``anarchy_solve``: the 19th of 20), the max and the count under 1 s per tree.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.anarchy_solve import p95

ROOT = Path(__file__).resolve().parent.parent

#: One line of ``anarchy_solve``'s output: position, tokens, Knights, seconds, deployment, deployments.
LINE = re.compile(r"^\s*(\d+) muster (\d+) knights (\d+):\s+([\d.]+) s (.*) \((\d+) deployments\)$")


@dataclass(frozen=True, slots=True)
class Run:
    """One position solved by one tree: its index, CPU ``seconds`` and the ``deployment`` found (notation);
    ``seconds`` is ``None`` when the run did not finish within the time limit."""

    position: int
    seconds: float | None
    deployment: str


def parse(output: str, position: int) -> Run:
    """The :class:`Run` of ``position`` from ``anarchy_solve --only`` output (a timed-out run has none)."""
    for line in output.splitlines():
        found = LINE.match(line)
        if found and int(found.group(1)) == position:
            return Run(position, float(found.group(4)), found.group(5))
    return Run(position, None, "")


@dataclass(frozen=True, slots=True)
class Summary:
    """A tree's figures over the positions, in seconds: ``median``, ``p95``, ``most`` (the max; a timed-out
    position counts as infinite) and how many positions took ``under`` 1 s."""

    median: float
    p95: float
    most: float
    under: int


def summarise(runs: list[Run]) -> Summary:
    """The :class:`Summary` of ``runs`` (at least one)."""
    times = sorted(float("inf") if run.seconds is None else run.seconds for run in runs)
    return Summary(statistics.median(times), p95(times), times[-1], sum(t < 1 for t in times))


def _solve_one(tree: Path, module: str, position: int, args: argparse.Namespace) -> Run:
    """Solves ``position`` in ``tree`` with the benchmark ``module`` in a fresh process, pinned to one core
    where ``taskset`` is (run as ``python -m`` from the tree, so that the tree's own engine is imported)."""
    command = [str(ROOT / ".venv/bin/python"), "-m", module, "--positions", str(args.positions)]
    command += ["--seed", str(args.seed), "--only", str(position)]
    if args.muster is not None:
        command += ["--muster", str(args.muster)]
    if shutil.which("taskset"):
        command = ["taskset", "-c", "1", *command]
    try:
        done = subprocess.run(
            command, cwd=tree, capture_output=True, text=True, timeout=args.timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return Run(position, None, "")
    return parse(done.stdout, position)


def main() -> None:
    """Compares the older commit given with this tree, position by position."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the older commit")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--muster", type=int, default=None, help="fix the Muster Tokens (default: 0-3)")
    parser.add_argument("--timeout", type=float, default=100.0, help="seconds per position and tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        old_tree = Path(scratch) / "old-tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(old_tree), args.old], cwd=ROOT, check=True)
        try:
            # The worktree runs this tree's script (so both are measured alike) with its own engine.
            shutil.copy(
                ROOT / "benchmarks" / "anarchy_solve.py", old_tree / "benchmarks" / "compare_solve.py"
            )
            trees = {"old": (old_tree, "benchmarks.compare_solve"), "new": (ROOT, "benchmarks.anarchy_solve")}
            runs: dict[str, list[Run]] = {"old": [], "new": []}
            for position in range(args.positions):
                for name, (tree, module) in trees.items():
                    runs[name].append(_solve_one(tree, module, position, args))
                old, new = runs["old"][-1], runs["new"][-1]
                ratio = f"{new.seconds / old.seconds:.2f}" if old.seconds and new.seconds else "-"
                same = "same" if old.deployment == new.deployment else f"{old.deployment} | {new.deployment}"
                print(
                    f"{position:3d}  old {old.seconds} s  new {new.seconds} s  ratio {ratio}  {same}",
                    flush=True,
                )
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=ROOT, check=False)
    for name in ("old", "new"):
        s = summarise(runs[name])
        print(
            f"{name}: median {s.median:.3f} s  p95 {s.p95:.3f} s  max {s.most:.3f} s  "
            f"under 1 s {s.under} of {len(runs[name])}"
        )


if __name__ == "__main__":
    main()
