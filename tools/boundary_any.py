"""Count ``Any`` at the engine↔web boundary (issue 31 §1), now or at a git revision.

The boundary is every project module outside ``games/engine/`` (and outside migrations) that imports the
engine: the selectors, services, presenters, views, API, emails and the log, which take the engine's
actions, views and events. The count is of the name ``Any`` in their code (tokens, so comments and strings
do not count), import lines excluded.

Usage::

    python -m tools.boundary_any             # the working tree, per module and in total
    python -m tools.boundary_any --rev e1d02b0   # the same count at a commit
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "mastery")
IMPORTS_ENGINE = re.compile(
    r"^\s*(from games import .*\bengine\b|from games\.engine\b|import games\.engine\b)", re.M
)


def _files(rev: str | None) -> dict[str, str]:
    """Path -> source of the project's Python modules (at ``rev``, or in the working tree)."""
    if rev is None:
        return {
            p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
            for package in PACKAGES
            for p in (ROOT / package).rglob("*.py")
        }
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, *PACKAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return {
        name: subprocess.run(
            ["git", "show", f"{rev}:{name}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        for name in names
        if name.endswith(".py")
    }


def boundary_modules(files: dict[str, str]) -> dict[str, str]:
    """The boundary's modules among ``files`` (see the module docstring)."""
    return {
        path: source
        for path, source in files.items()
        if not path.startswith("games/engine/")
        and "/migrations/" not in path
        and IMPORTS_ENGINE.search(source)
    }


def any_count(source: str) -> int:
    """How many times the name ``Any`` appears in ``source``'s code, import lines excluded."""
    count = 0
    importing = False
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and tok.string in ("import", "from") and tok.start[1] == 0:
            importing = True
        elif tok.type == tokenize.NEWLINE:
            importing = False
        elif tok.type == tokenize.NAME and tok.string == "Any" and not importing:
            count += 1
    return count


def main() -> None:
    """Print each boundary module's count (non-zero ones) and the total."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git revision (default: the working tree)")
    args = parser.parse_args()
    counts = {path: any_count(source) for path, source in boundary_modules(_files(args.rev)).items()}
    for path, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if n:
            print(f"{n:4d}  {path}")
    print(f"{sum(counts.values()):4d}  total in {len(counts)} modules that import the engine")


if __name__ == "__main__":
    main()
