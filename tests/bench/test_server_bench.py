"""`bench/server.py` runs end to end: both floors and Arbiter serve its clients over TCP."""

from __future__ import annotations

import re

import pytest

from tests.bench.runs import run_bench
from tests.postgres import Cluster


def test_the_server_bench_measures_both_floors_and_arbiter() -> None:
    done = run_bench("server.py", "--seconds", "0.5", "--matches", "3")
    assert done.returncode == 0, done.stderr
    rows = {
        match["server"]: float(match["rate"])
        for match in re.finditer(
            r"^\s+3\s+(?P<server>\w+)\s+(?P<rate>\d+)", done.stdout, re.MULTILINE
        )
    }
    assert set(rows) == {"echo", "relay", "arbiter"}
    assert all(rate > 0 for rate in rows.values()), done.stdout
    assert re.search(r"Arbiter: \d+\.\d\dx the relay floor", done.stdout)
    assert re.search(r"total\s+\d+\.\d", done.stdout)


def test_at_one_match_the_bench_prints_the_ceiling_a_stored_move_puts_on_a_server() -> None:
    done = run_bench("server.py", "--seconds", "0.5", "--matches", "1")
    assert done.returncode == 0 or "goal missed" in done.stdout, done.stderr
    found = re.search(
        r"waits (?P<wait>\d+) µs for its commit .* caps such a server at (?P<cap>\d\.\d\d)x",
        done.stdout,
    )
    assert found, done.stdout
    assert int(found["wait"]) > 0
    assert 0 < float(found["cap"]) < 1


@pytest.mark.long
def test_the_server_bench_runs_arbiter_on_postgres_beside_sqlite(postgres_cluster: Cluster) -> None:
    done = run_bench(
        "server.py", "--seconds", "0.5", "--matches", "3", "--db", postgres_cluster.database()
    )
    assert done.returncode == 0, done.stderr
    rows = {
        match["server"]: float(match["rate"])
        for match in re.finditer(
            r"^\s+3\s+(?P<server>\w+)\s+(?P<rate>\d+)", done.stdout, re.MULTILINE
        )
    }
    assert set(rows) == {"echo", "relay", "arbiter", "postgres"}
    assert rows["postgres"] > 0, done.stdout
    assert re.search(
        r"Arbiter on PostgreSQL: \d+\.\d\dx its moves/s on SQLite; PostgreSQL's processes"
        r" \d+\.\d\d cores, \d+ µs/move",
        done.stdout,
    )
