"""How late the server's own event loop has been: time no player is charged for.

A move's thinking time runs until its frame has arrived, but the server only learns of the
arrival when its loop gets to the socket. If the loop was held up meanwhile (a long snapshot
built for a watcher, a burst of requests, the machine lending the process's core to another),
the move is read, and stamped, late; and the match's alarm, late too, may find the deadline
gone. Either way the player would pay for the server's delay.

`StallMeter` measures that delay from inside the loop: one task sleeps `INTERVAL` at a time and
counts how late it wakes. `stalled(now)` is the lateness summed so far, a stall still under way
included, so a match that asks first (its alarm, or the reader with a move) sees the stall
before the meter's own task has woken to count it. A match credits a turn with the stalls that
happened during it (`server.play.match.Turn`): they are taken off the move's thinking time and added
to its deadline.

Lateness under `TOLERANCE` is ordinary scheduling, not a stall, and is not counted: a busy
server is late by a millisecond or two on every wake-up.
"""

from __future__ import annotations

import trio

INTERVAL = 0.02
"""Seconds between the meter's wake-ups: how soon a stall is noticed by the meter's own task."""
TOLERANCE = 0.005
"""Lateness of one wake-up that counts as scheduling, not a stall."""


class StallMeter:
    """The event loop's lateness in all; zero until `run` is started (as in unit tests whose
    clock is moved by hand, where a jump is not a stall)."""

    def __init__(self) -> None:
        self._total = 0.0
        self._due: float | None = None

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Measure until cancelled."""
        task_status.started()
        while True:
            self._due = trio.current_time() + INTERVAL
            await trio.sleep_until(self._due)
            late = trio.current_time() - self._due
            if late > TOLERANCE:
                self._total += late

    def stalled(self, now: float) -> float:
        """Seconds the loop has been late up to `now`, a stall under way included."""
        if self._due is None:
            return self._total
        late = now - self._due
        return self._total + late if late > TOLERANCE else self._total
