"""benchmarks/cpu_share.py: the per-request CPU split printed by the web load test (docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks import cpu_share

linux_only = pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")


def test_report_splits_cpu_per_request_between_groups():
    """The server's own processes (issue 31: the benchmark's gunicorn and its database's backends, under
    ``-pid``) come first; postgres 20 serves another database, so it is in "postgres" but not "server"."""
    before = {
        "machine": 100.0,
        "processes": {"10": ["gunicorn", 5.0], "-10": ["server", 5.0], "20": ["postgres", 2.0]},
    }
    after = {
        "machine": 101.0,  # 1 s of machine CPU over 200 requests: 5 ms each
        "processes": {
            "10": ["gunicorn", 5.6],  # 0.6 s
            "-10": ["server", 5.6],
            "20": ["postgres", 2.2],  # 0.2 s
            "30": ["postgres", 0.1],  # started meanwhile: counts from zero
            "-30": ["server", 0.1],
        },
    }
    line = cpu_share.report(before, after, 200)
    assert line == (
        "CPU ms per request: server 3.50, machine 5.00, gunicorn 3.00, postgres 1.50, redis 0.00, other 0.50"
    )


def test_only_the_benchmarks_own_server_counts_as_server(monkeypatch):
    """A gunicorn counts when it is the server (``BENCH_SERVER_PID``) or its worker; a postgres backend when
    its command line names the benchmark's database (``BENCH_DB``)."""
    monkeypatch.setenv("BENCH_SERVER_PID", "4242")
    monkeypatch.setenv("BENCH_DB", "mastery_bench")
    assert cpu_share._ours("4242", "gunicorn", "1")
    assert cpu_share._ours("5000", "gunicorn: worker", "4242")
    assert not cpu_share._ours("6000", "gunicorn", "1")  # another session's server
    assert not cpu_share._ours("7000", "redis-server", "1")


@linux_only
def test_snapshot_sees_machine_time_advance_and_groups_processes():
    first = cpu_share.snapshot()
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:  # burn a little CPU so the machine's busy time must grow
        pass
    second = cpu_share.snapshot()
    assert isinstance(first["machine"], float) and isinstance(second["machine"], float)
    assert second["machine"] > first["machine"]
    processes = second["processes"]
    assert isinstance(processes, dict)
    assert all(group in {"gunicorn", "postgres", "redis"} for group, _ in processes.values())


@linux_only
def test_command_line_snapshot_then_report(tmp_path):
    path = tmp_path / "cpu.json"
    run = [sys.executable, "-m", "benchmarks.cpu_share"]
    subprocess.run([*run, "snapshot", str(path)], check=True)
    out = subprocess.run([*run, "report", str(path), "10"], check=True, capture_output=True, text=True)
    assert out.stdout.startswith("CPU ms per request: server ")
    # No requests (a scenario that failed to run): nothing to divide by, nothing printed.
    for requests in ("0", ""):
        out = subprocess.run(
            [*run, "report", str(path), requests], check=True, capture_output=True, text=True
        )
        assert out.stdout == ""
