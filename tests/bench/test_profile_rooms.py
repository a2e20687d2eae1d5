"""`bench/profile_rooms.py` charges each sample to its innermost frame of ours (or trio's,
or msgpack's), sums it by room, and counts a function once per sample in its inclusive time."""

from __future__ import annotations

from pathlib import Path

from tests.bench.runs import run_bench

MAIN = "<module> (server/__main__.py:1)"
MOVE = "Match.deliver (server/play/match.py:9)"
PROFILE = "\n".join(
    [
        f"{MAIN};{MOVE};legal_moves (games/kings_court.py:3);extend (games/kings_court.py:5) 6",
        f"{MAIN};{MOVE};{MOVE};packb (msgpack/__init__.py:2);len (<frozen abc>:1) 3",
        f"{MAIN};run (trio/_core/_run.py:7);select (selectors.py:4) 1",
    ]
)


def test_the_summary_charges_the_innermost_frame_of_ours_by_room(tmp_path: Path) -> None:
    profile = tmp_path / "profile.txt"
    profile.write_text(PROFILE + "\n")
    done = run_bench("profile_rooms.py", str(profile))
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert lines[0] == "10 samples"
    assert "60.0%  games" in lines
    assert "30.0%  msgpack" in lines
    assert "10.0%  trio" in lines
    assert "60.0%  extend (games/kings_court.py)" in lines
    assert "90.0%  Match.deliver (server/play/match.py)" in lines  # once a sample, not twice
