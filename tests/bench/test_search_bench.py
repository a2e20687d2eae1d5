"""`bench/search.py` runs end to end: alpha-beta and MCTS timed on both paths of each game in
one run, with the same nodes searched on both (whether the compiled path is the faster is the
bench's own exit code: a loaded machine may swap the two by chance)."""

from __future__ import annotations

import re

from tests.bench.runs import run_bench

ROW = re.compile(r"^(\S+) +(\d+) +(\d+) +(\d+) +(\d+) +[\d.]+x \| +\d+ +\d+ +[\d.]+x$")


def test_the_bench_times_both_paths_over_the_same_nodes() -> None:
    games = ["war-of-life", "shobu"]
    run = run_bench("search.py", "--games", ",".join(games), "--positions", "1", "--seconds", "0.1")
    assert run.returncode in (0, 1), run.stderr
    rows = {match[1]: match for line in run.stdout.splitlines() if (match := ROW.match(line))}
    assert sorted(rows) == sorted(games), run.stdout
    assert all(int(row[3]) > 0 for row in rows.values())
    assert "node" not in "".join(line for line in run.stdout.splitlines() if "failed" in line)
    assert (run.returncode == 1) == ("failed: " in run.stdout)
