"""`bench/hosted.py` runs end to end: the sandbox's figures, hosted games per minute at 1, 2
and 4 slots, and the CPU clocks under load, printed (its goals are not asserted here: the
machine may be busy, and its games are made short)."""

from __future__ import annotations

import re

import pytest

from tests.bench.runs import run_bench
from tests.sandbox.helpers import need_bwrap


@pytest.mark.long
def test_the_hosted_bench_prints_every_figure() -> None:
    need_bwrap()
    done = run_bench(
        "hosted.py",
        "--runs",
        "2",
        "--moves",
        "20",
        "--games",
        "1",
        "--load-games",
        "1",
        "--no-capture-limit",
        "6",
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    assert re.search(r"^sandbox start-up\s+\d+\.\d ms", done.stdout, re.MULTILINE)
    assert re.search(r"^added per move \(p50\)\s+-?\d+\.\d{3} ms", done.stdout, re.MULTILINE)
    for kind in ("fast", "busy"):
        for slots in (1, 2, 4):
            rate = rf"^{kind}\s+agents, {slots} slot\(s\)\s+\d+\.\d games/min"
            line = rate + r"  \(\d\.\d\d of \d+ cores busy\)$"
            assert re.search(line, done.stdout, re.MULTILINE), done.stdout
    assert re.search(
        r"^under load 4: \d+ time losses in 1 games; a wall clock would have flagged \d+ of"
        r" [1-9]\d* moves$",
        done.stdout,
        re.MULTILINE,
    ), done.stdout
    if done.returncode == 1:
        assert "missed:" in done.stderr
