"""`bench/capacity.py` runs end to end on both stores: connections held, then matches beside
them, each stage's figures printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bench.runs import run_bench
from tests.conftest import BOTH_BACKENDS


@BOTH_BACKENDS
def test_the_capacity_bench_holds_connections_then_plays_beside_them(
    backend: str, db: Path | str
) -> None:
    store = ["--db", str(db)] if backend == "postgres" else []
    done = run_bench(
        "capacity.py", "--connections", "20", "--matches", "3", "--seconds", "1", *store
    )
    if done.returncode != 0 and "goal missed" not in done.stderr:  # a goal is the real run's
        pytest.fail(done.stderr)
    assert ("PostgreSQL" if store else "SQLite") in done.stdout
    assert "held:    20 of 20 connections welcomed" in done.stdout, done.stdout
    assert re.search(r"\d+ KB per connection", done.stdout)
    moves = re.search(r"had turns in the window, (?P<rate>[\d,]+) moves/s", done.stdout)
    assert moves is not None, done.stdout
    assert int(moves["rate"].replace(",", "")) > 0, done.stdout
    assert re.search(r"\d+ KB per match", done.stdout)
