"""Where the machine's CPU goes during a web load scenario (benchmarks/web_load.sh).

``python -m benchmarks.cpu_share snapshot FILE`` writes the CPU seconds used so far by the whole machine
(``/proc/stat``: every state but idle, iowait and steal) and by each group of processes (gunicorn, postgres,
redis, everything else) to ``FILE``; ``python -m benchmarks.cpu_share report FILE REQUESTS`` reads that
snapshot, takes a new one and prints the milliseconds of CPU per request each group used in between, so a
scenario's cost can be split between the web workers, the database and the rest (wrk, the OS). With
``REQUESTS`` 0 or empty (the scenario printed no result) it prints nothing.

The first figure, ``server``, counts only the benchmark's own server (issue 31: the machine's figure
counts every process on the box, other sessions' included): the gunicorn master ``BENCH_SERVER_PID`` and
its workers, and the PostgreSQL backends connected to the database ``BENCH_DB`` (their command line names
it). ``benchmarks/web_compare.py`` compares that figure.

Linux only (reads ``/proc``). Times are user + system CPU, in clock ticks converted to seconds
(``os.sysconf("SC_CLK_TCK")``; proc(5)). A process that ended between the two snapshots is missing from
its group's figure but still counted in the machine's total, so its time shows under "other".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

#: Process names (``/proc/<pid>/stat`` field 2, the executable's name) grouped for the report.
GROUPS = {"gunicorn": "gunicorn", "postgres": "postgres", "redis-server": "redis"}
TICK = os.sysconf("SC_CLK_TCK")


def _machine_busy() -> float:
    """Seconds of CPU the whole machine has spent busy since boot (all CPUs; idle, iowait and steal
    excluded)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    # user, nice, system, idle, iowait, irq, softirq (proc(5)); steal (8th) is time the hypervisor ran
    # something else, and guest time is already inside user time.
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / TICK


def _ours(pid: str, name: str, parent: str) -> bool:
    """Whether a process belongs to the benchmark's server (see the module docstring)."""
    server, db = os.environ.get("BENCH_SERVER_PID", ""), os.environ.get("BENCH_DB", "")
    if name.startswith("gunicorn"):
        return bool(server) and server in (pid, parent)
    if name.startswith("postgres") and db:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return False
        return f" {db} " in f" {command} "
    return False


def _process_times() -> dict[int, tuple[str, float]]:
    """``pid -> (group, seconds of user + system CPU)`` for every process in a known group; a process of
    the benchmark's own server also counts in the group ``server`` (under the key ``-pid``)."""
    out: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue  # the process ended meanwhile
        name = raw[raw.index("(") + 1 : raw.rindex(")")]
        group = next((g for prefix, g in GROUPS.items() if name.startswith(prefix)), None)
        if group is None:
            continue
        rest = raw[raw.rindex(")") + 2 :].split()
        seconds = (int(rest[11]) + int(rest[12])) / TICK  # utime, stime
        out[int(entry.name)] = (group, seconds)
        if _ours(entry.name, name, rest[1]):  # rest[1]: the parent's pid
            out[-int(entry.name)] = ("server", seconds)
    return out


def snapshot() -> dict[str, Any]:
    """The current CPU counters: ``{"machine": seconds, "processes": {pid: [group, seconds]}}``."""
    return {"machine": _machine_busy(), "processes": {str(p): list(v) for p, v in _process_times().items()}}


def report(before: dict[str, Any], after: dict[str, Any], requests: int) -> str:
    """One line: milliseconds of CPU per request for the machine and each group between two snapshots.

    Args:
        before, after: two :func:`snapshot` results.
        requests: how many requests the scenario completed (> 0).
    """
    groups: dict[str, float] = {"server": 0.0, **{g: 0.0 for g in GROUPS.values()}}
    old = before["processes"]
    for pid, (group, seconds) in after["processes"].items():
        start = old.get(pid, [group, 0.0])[1]  # a process started meanwhile counts from zero
        groups[group] += seconds - start
    machine = after["machine"] - before["machine"]
    server = groups.pop("server")
    other = machine - sum(groups.values())
    parts = [f"server {1000 * server / requests:.2f}", f"machine {1000 * machine / requests:.2f}"]
    parts += [f"{g} {1000 * s / requests:.2f}" for g, s in groups.items()]
    parts.append(f"other {1000 * other / requests:.2f}")
    return "CPU ms per request: " + ", ".join(parts)


def main() -> None:
    """Command line: ``snapshot FILE`` or ``report FILE REQUESTS`` (see the module docstring)."""
    command, path = sys.argv[1], Path(sys.argv[2])
    if command == "snapshot":
        path.write_text(json.dumps(snapshot()))
    elif command == "report":
        requests = int(sys.argv[3] or 0)  # empty: the scenario printed no result
        if requests > 0:
            print(report(json.loads(path.read_text()), snapshot(), requests))
    else:
        raise SystemExit(f"unknown command {command!r}: use snapshot or report")


if __name__ == "__main__":
    main()
