"""`bench/rules.py` runs end to end: both paths of each game measured in one run, the lockstep
check first, and a game without a kernel reported as such (whether the goals are met is the
bench's own exit code: a loaded machine may miss them)."""

from __future__ import annotations

from arbiter.games._native import kernel
from tests.bench.runs import run_bench


def test_the_bench_measures_both_paths_and_checks_them_in_lockstep() -> None:
    games = ["war-of-life", "amazons", "kings-court"]
    run = run_bench("rules.py", "--seconds", "0.2", "--games", ",".join(games), "--check", "2")
    assert run.returncode in (0, 1), run.stderr
    lines = run.stdout.splitlines()
    for name in games:
        row = next(line for line in lines if line.startswith(f"{name} "))
        if kernel(name.replace("-", "_")) is None:
            assert row.endswith("no kernel")
        else:
            assert "x (goal 10x)" in row
            assert any(line.startswith(f"check {name} ") and "agree" in line for line in lines)
    assert (run.returncode == 1) == any(line.startswith("goal missed: ") for line in lines)
