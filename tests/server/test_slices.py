"""Long work on the event loop in slices: other tasks run between the slices, not only once the
work is done, and a loop that finishes within one slice never checkpoints."""

from __future__ import annotations

import time

import trio

from arbiter.server.common.slices import Slices


def busy(seconds: float) -> None:
    ends = time.perf_counter() + seconds
    while time.perf_counter() < ends:
        pass


async def ticks_during(slices: Slices, pieces: int, seconds: float) -> int:
    """How often a task beside a loop of `pieces` pieces of `seconds` each (stepped by
    `slices`) ran while the loop did."""
    ticks: list[int] = []

    async def beside() -> None:
        while True:
            ticks.append(1)
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(beside)
        await trio.lowlevel.checkpoint()
        before = len(ticks)
        for _ in range(pieces):
            await slices.step()
            busy(seconds)
        during = len(ticks) - before
        nursery.cancel_scope.cancel()
    return during


async def test_other_tasks_run_between_the_slices_of_a_long_loop() -> None:
    # 40 ms of work in 2 ms slices: about twenty, the task running between them
    assert await ticks_during(Slices(0.002), 100, 0.0004) >= 5


async def test_a_loop_within_one_slice_never_gives_the_loop_away() -> None:
    assert await ticks_during(Slices(60.0), 100, 0.0) == 0
