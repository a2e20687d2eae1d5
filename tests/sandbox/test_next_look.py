"""The watchdog's pause between looks at a sandbox's tree: it may grow while the tree is quiet,
but never past the moment a CPU or wall-clock cap could be reached (pure), and a run that
forks after a quiet while is still stopped at the process limit (a real sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.client.sandbox.limits import EndingKind, Limits
from arbiter.client.sandbox.process import CORES, LOOK_SECONDS, QUIET_LOOK_SECONDS, next_look
from tests.sandbox.helpers import code_folder, need_bwrap, run_script


def test_without_caps_the_pause_is_the_one_asked_for() -> None:
    assert next_look(QUIET_LOOK_SECONDS, Limits(), cpu=100.0, wall_left=float("inf")) == (
        QUIET_LOOK_SECONDS
    )


def test_the_pause_ends_before_a_tree_busy_on_every_core_could_pass_its_cpu_cap() -> None:
    limits = Limits(cpu_seconds=10.0)
    left = 0.1 * CORES
    assert next_look(QUIET_LOOK_SECONDS, limits, cpu=10.0 - left, wall_left=60.0) == (
        pytest.approx(0.1)
    )


def test_the_pause_ends_at_the_wall_clock_deadline() -> None:
    assert next_look(QUIET_LOOK_SECONDS, Limits(wall_seconds=5.0), 0.0, wall_left=0.1) == 0.1


def test_a_cap_reached_or_passed_still_leaves_the_shortest_pause() -> None:
    limits = Limits(cpu_seconds=1.0, wall_seconds=1.0)
    assert next_look(QUIET_LOOK_SECONDS, limits, cpu=2.0, wall_left=-1.0) == LOOK_SECONDS


async def test_a_run_that_forks_after_a_quiet_while_still_stops_at_the_process_limit(
    tmp_path: Path,
) -> None:
    need_bwrap()
    code = code_folder(tmp_path, "import os, time\ntime.sleep(1.5)\nwhile True:\n    os.fork()\n")
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.PROCESSES, ended
