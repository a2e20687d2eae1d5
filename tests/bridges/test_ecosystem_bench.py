"""bench/ecosystem.py runs OpenSpiel's bot through strength.py's round robin, and its exit code
follows the time losses and illegal moves it prints."""

from __future__ import annotations

import pytest

from tests.bench.runs import run_bench

pytest.importorskip("pyspiel")


def test_the_ladder_row_and_the_exit_code_agree_on_time_losses() -> None:
    done = run_bench(
        "ecosystem.py", "--only", "war-of-life", "--opponents", "random", "--move-time", "0.2"
    )
    row = next(line for line in done.stdout.splitlines() if line.startswith("| war-of-life |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1].endswith("%"), row  # the bot's score against random
    bot_late, theirs = cells[2].replace("(theirs", "").rstrip(")").split()
    faults = int(bot_late) + int(theirs) + int(cells[3])
    assert done.returncode == (1 if faults else 0), done.stdout + done.stderr
