"""`bench/server.py` runs end to end: both floors and Arbiter serve its clients over TCP."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "server.py"


def test_the_server_bench_measures_both_floors_and_arbiter() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--seconds", "0.5", "--matches", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=BENCH.parents[1],
    )
    assert done.returncode == 0, done.stderr
    rows = {
        match["server"]: float(match["rate"])
        for match in re.finditer(r"^\s+3\s+(?P<server>\w+)\s+(?P<rate>\d+)", done.stdout, re.M)
    }
    assert set(rows) == {"echo", "relay", "arbiter"}
    assert all(rate > 0 for rate in rows.values()), done.stdout
    assert re.search(r"Arbiter: \d+\.\d\dx the relay floor", done.stdout)
    assert re.search(r"total\s+\d+\.\d", done.stdout)
