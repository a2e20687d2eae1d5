"""`StallMeter` on trio's MockClock: a jump of the clock while the meter sleeps is a stall of
the loop, seen before and after the meter's own task wakes to count it."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arbiter.server.connection.stalls import INTERVAL, TOLERANCE, StallMeter


async def test_a_stall_is_counted_while_under_way_and_once_over(
    nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    meter = StallMeter()
    assert meter.stalled(trio.current_time()) == 0.0  # not started: counts nothing
    await nursery.start(meter.run)
    start = trio.current_time()
    mock_clock.jump(1.0)  # the loop held for a second: the meter's wake-up is a second late
    during = meter.stalled(trio.current_time())
    assert during == pytest.approx(1.0 - INTERVAL)
    await trio.testing.wait_all_tasks_blocked()  # the meter wakes and counts it
    assert meter.stalled(trio.current_time()) == pytest.approx(during)
    mock_clock.jump(INTERVAL + TOLERANCE / 2)  # on time, give or take scheduling
    await trio.testing.wait_all_tasks_blocked()
    assert meter.stalled(trio.current_time()) == pytest.approx(during)
    assert trio.current_time() - start > during
