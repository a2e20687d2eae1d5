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


async def test_other_tasks_run_between_the_slices_of_a_long_loop() -> None:
    ticks: list[float] = []

    async def beside() -> None:
        while True:
            ticks.append(time.perf_counter())
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(beside)
        await trio.lowlevel.checkpoint()
        before = len(ticks)
        slices = Slices(0.002)
        for _ in range(100):  # 40 ms of work in 2 ms slices
            await slices.step()
            busy(0.0004)
        during = len(ticks) - before
        nursery.cancel_scope.cancel()
    assert during >= 5  # about twenty slices: the task ran between them


async def test_a_loop_within_one_slice_never_gives_the_loop_away() -> None:
    ticks: list[int] = []

    async def beside() -> None:
        while True:
            ticks.append(1)
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(beside)
        await trio.lowlevel.checkpoint()
        before = len(ticks)
        slices = Slices(60.0)
        for _ in range(100):
            await slices.step()
        assert len(ticks) == before
        nursery.cancel_scope.cancel()
