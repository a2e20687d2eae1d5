"""`bench/server.py` runs end to end: both floors and Arbiter serve its clients over TCP."""

from __future__ import annotations

import re

import pytest

from tests.bench.runs import run_bench
from tests.postgres import Cluster


def test_the_server_bench_measures_both_floors_and_arbiter() -> None:
    done = run_bench("server.py", "--seconds", "0.5", "--matches", "1,3")
    # the goal at 1 match is beyond any server that stores a move before announcing it
    assert done.returncode == 0 or "goal missed" in done.stdout, done.stderr
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
    ceiling = re.search(
        r"waits (?P<wait>\d+) µs for its commit .* caps such a server at (?P<cap>\d\.\d\d)x",
        done.stdout,
    )
    assert ceiling, done.stdout
    assert int(ceiling["wait"]) > 0
    assert 0 < float(ceiling["cap"]) < 1


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
