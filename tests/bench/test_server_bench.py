"""`bench/server.py` runs end to end: both floors and Arbiter serve its clients over TCP."""

from __future__ import annotations

import re

from tests.bench.runs import run_bench


def test_the_server_bench_measures_both_floors_and_arbiter() -> None:
    done = run_bench("server.py", "--seconds", "0.5", "--matches", "3")
    assert done.returncode == 0, done.stderr
    rows = {
        match["server"]: float(match["rate"])
        for match in re.finditer(r"^\s+3\s+(?P<server>\w+)\s+(?P<rate>\d+)", done.stdout, re.M)
    }
    assert set(rows) == {"echo", "relay", "arbiter"}
    assert all(rate > 0 for rate in rows.values()), done.stdout
    assert re.search(r"Arbiter: \d+\.\d\dx the relay floor", done.stdout)
    assert re.search(r"total\s+\d+\.\d", done.stdout)
