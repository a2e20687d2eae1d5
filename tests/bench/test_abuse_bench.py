"""`bench/abuse.py` runs end to end: bots play beside an attack, and each phase is reported
with its verdict (whether the goals are met is the bench's own exit code)."""

from __future__ import annotations

import re

from tests.bench.runs import run_bench


def test_the_abuse_bench_reports_every_phase_beside_moving_bots() -> None:
    done = run_bench("abuse.py", "--seconds", "1.5", "--attacks", "huge-option,silent")
    assert done.returncode in (0, 1), done.stderr
    rows = re.findall(r"^(\S+)\s+(\d+)\s+(\d+)\s.*\s(met|missed: .*)$", done.stdout, re.M)
    assert [row[0] for row in rows] == ["baseline", "huge-option", "silent"], done.stdout
    assert all(int(peak) > 0 and int(moves) > 0 for _, peak, moves, _ in rows), done.stdout
    verdict = "every goal met" if done.returncode == 0 else "missed a goal"
    assert verdict in done.stdout


def test_an_unknown_attack_is_named() -> None:
    done = run_bench("abuse.py", "--attacks", "teleport", timeout=60)
    assert done.returncode == 2
    assert "unknown attack 'teleport'" in done.stderr
