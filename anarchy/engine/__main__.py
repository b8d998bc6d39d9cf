"""The Castle Defence command line (issue 33).

``python -m anarchy.engine solve FILE``: the best deployment of the position in FILE (a record,
docs/anarchy/record.md) and its expected result.
``python -m anarchy.engine resolve FILE DEPLOYMENT [--face INDEX=CARD ...]``: the resolution step by step.
``python -m anarchy.engine daily YYYY-MM-DD``: that day's practice puzzle as a record.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import AnarchyError
from .narrate import describe, narrate
from .notation import parse_deployment, write_deployment
from .practice import daily_puzzle
from .records import position_from_record, position_to_record
from .solver import solve


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 for bad input, printed to stderr)."""
    parser = argparse.ArgumentParser(prog="python -m anarchy.engine", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    solve_cmd = commands.add_parser("solve", help="the best deployment of a position")
    solve_cmd.add_argument("file", type=Path)
    resolve_cmd = commands.add_parser("resolve", help="a deployment resolved step by step")
    resolve_cmd.add_argument("file", type=Path)
    resolve_cmd.add_argument("deployment")
    resolve_cmd.add_argument("--face", action="append", default=[], help="INDEX=CARD for a face-down card")
    daily_cmd = commands.add_parser("daily", help="a day's practice puzzle as a record")
    daily_cmd.add_argument("day", type=datetime.date.fromisoformat)
    args = parser.parse_args(argv)
    try:
        if args.command == "daily":
            puzzle = daily_puzzle(args.day)
            record = position_to_record(puzzle.position)
            record["faces"] = {str(i): card for i, card in puzzle.faces.items()}
            print(json.dumps(record, indent=1))
            return 0
        try:
            raw = json.loads(args.file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"Cannot read {args.file}: {error}", file=sys.stderr)
            return 2
        position = position_from_record(raw)
        if args.command == "solve":
            solution = solve(position)
            e = solution.expectation
            print(f"Best deployment: {write_deployment(solution.deployment)}")
            print(
                f"Expected over {e.reveals} reveals: {e.undefended:.3f} undefended, "
                f"{e.kept:.3f} strength kept, "
                f"{e.bravery:.3f} Bravery ({solution.deployments} deployments compared)"
            )
            return 0
        faces = {}
        for item in args.face:
            index, _, card = item.partition("=")
            faces[int(index)] = card
        resolution = narrate(position, parse_deployment(args.deployment, position), faces)
        for step in resolution.steps:
            print(f"{step.card.id} ({step.card.type}): {'defended' if step.defended else 'NOT defended'}")
            for words in step.move_words:
                print(f"  Muster: {words}")
            if step.castle:
                print(f"  the Castle at {step.castle}: {step.covers} Covers")
            for side in step.sides:
                print(
                    f"  {side.side} {side.strength}: Fortification {side.fortified}, Tactics {side.tactics}, "
                    f"Workers: {describe(side.damage)}"
                )
        print(
            f"Undefended {resolution.undefended}, Loyalty {resolution.loyalty}, Discontent "
            f"{resolution.discontent}, Bravery {resolution.bravery}, strength kept {resolution.kept} "
            f"({resolution.serfs} Serfs)"
        )
        return 0
    except (AnarchyError, ValueError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
