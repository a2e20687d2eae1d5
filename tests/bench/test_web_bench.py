"""`bench/web.py` runs end to end with a few spectators: every figure printed, goals checked."""

from __future__ import annotations

import re

from tests.bench.runs import run_bench


def test_the_web_bench_measures_fan_out_and_cpu_with_and_without_spectators() -> None:
    small = ["--spectators", "20", "--processes", "2", "--quiet-moves", "30", "--moves", "5"]
    loose = ["--idle", "0.5", "--latency-goal", "60", "--cpu-goal", "1000000"]
    done = run_bench("web.py", *small, *loose)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^without spectators\s+30\s+\d+\.\d\d\s+1\.00x$", done.stdout, re.MULTILINE)
    assert re.search(
        r"^with 20 spectators\s+5\s+\d+\.\d\d\s+\d+\.\d\dx$", done.stdout, re.MULTILINE
    )
    assert re.search(r"p50 \d+\.\d ms, p99 \d+\.\d ms", done.stdout), done.stdout
    assert done.stdout.rstrip().endswith("goals met")
