"""`bench/sandbox.py` runs end to end: the start-up and the time added per move, as figures and
ratios (its goals are not asserted here: the machine may be busy)."""

from __future__ import annotations

import re

from tests.bench.runs import run_bench
from tests.sandbox.helpers import need_bwrap


def test_the_sandbox_bench_prints_its_start_up_and_the_time_added_per_move() -> None:
    need_bwrap()
    done = run_bench("sandbox.py", "--runs", "2", "--moves", "20")
    assert done.returncode in (0, 1), done.stderr
    assert re.search(
        r"^start-up\s+\d+\.\d ms\s+\(\d+\.\dx `true` alone\)$", done.stdout, re.MULTILINE
    )
    assert re.search(
        r"^added per move\s+-?\d+\.\d{3} ms\s+\(\d+\.\d\dx\)$", done.stdout, re.MULTILINE
    )
    if done.returncode == 1:
        assert "missed:" in done.stderr
