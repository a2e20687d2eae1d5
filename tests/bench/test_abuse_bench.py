"""`bench/abuse.py` runs end to end: bots play beside an attack, and each phase is reported
with its verdict (whether the goals are met is the bench's own exit code: a loaded machine may
miss them)."""

from __future__ import annotations

import re

import pytest

from tests.bench.runs import run_bench

ROW = re.compile(
    r"^(?P<name>\S+)\s+(?P<peak>\d+)\s+(?P<end>\d+)\s+(?P<moves>\d+)\s.*\s"
    r"(?P<playing>-|\d+)\s+(?P<stored>-|\d+/\d+)\s+(?P<verdict>met|missed: .*)$",
    re.MULTILINE,
)


@pytest.mark.long
def test_the_abuse_bench_reports_every_phase_beside_moving_bots() -> None:
    attacks = "huge-option,http-home"
    done = run_bench("abuse.py", "--seconds", "1.5", "--attacks", attacks, timeout=180)
    assert done.returncode in (0, 1), done.stderr
    rows = list(ROW.finditer(done.stdout))
    assert [row["name"] for row in rows] == ["baseline", "huge-option", "http-home"], done.stdout
    assert all(int(row["peak"]) > 0 and int(row["moves"]) > 0 for row in rows), done.stdout
    answered = r"^  http-home: \d+ requests answered, \d+ of them refused$"
    assert re.search(answered, done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^load average before: [\d.]+ [\d.]+ [\d.]+$", done.stdout, re.MULTILINE)
    session = r"\d+ matches left playing after the bots left; (\d+) of \1 acknowledged moves stored"
    assert re.search(session, done.stdout), done.stdout
    verdict = "every goal met" if done.returncode == 0 else "missed a goal"
    assert verdict in done.stdout


@pytest.mark.long
def test_a_storage_fault_runs_on_a_server_of_its_own_and_checks_the_database() -> None:
    done = run_bench("abuse.py", "--seconds", "1", "--attacks", "storage-stall", timeout=180)
    assert done.returncode in (0, 1), done.stderr
    rows = {row["name"]: row for row in ROW.finditer(done.stdout)}
    assert list(rows) == ["baseline", "storage-stall"], done.stdout
    assert rows["storage-stall"]["playing"].isdigit(), done.stdout
    acknowledged, stored = map(int, rows["storage-stall"]["stored"].split("/"))
    assert acknowledged > 0
    assert stored <= acknowledged
    assert "storage-stall: commit process stopped for 5 s" in done.stdout


def test_an_unknown_attack_is_named() -> None:
    done = run_bench("abuse.py", "--attacks", "teleport", timeout=60)
    assert done.returncode == 2
    assert "unknown attack 'teleport'" in done.stderr


def test_the_full_disk_fault_is_asked_for_by_its_flag() -> None:
    done = run_bench("abuse.py", "--attacks", "full-disk", timeout=60)
    assert done.returncode == 2
    assert "give --full-disk" in done.stderr
