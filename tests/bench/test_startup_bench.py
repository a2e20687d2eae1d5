"""`bench/startup.py` runs end to end: every figure measured, each as a ratio to the floor, and
its verdict on `arbiter --help` (which imports neither trio nor msgpack, so it meets its goal by
a wide margin even from one run on a busy machine)."""

from __future__ import annotations

import re

from tests.bench.runs import run_bench


def test_the_startup_bench_times_every_command_against_the_floor() -> None:
    done = run_bench("startup.py", "--runs", "1")
    assert done.returncode == 0, done.stderr
    for name in ("arbiter --help", "arbiter agents", "server listening", "first your_turn"):
        row = re.search(rf"^{re.escape(name)}\s+(\d+)\s+(\d+\.\d\d)x$", done.stdout, re.MULTILINE)
        assert row is not None, done.stdout
        assert int(row[1]) > 0
        assert float(row[2]) > 0
    assert re.search(r"^met: arbiter --help took \d+\.\d\dx the floor", done.stdout, re.MULTILINE)
