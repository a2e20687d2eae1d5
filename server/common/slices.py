"""Long work on the event loop, cut into slices of time with a checkpoint between them.

Replaying a long game (a finished match shown to a spectator, a history a page asks for) runs
the rules move by move; on a worker thread it would hold the interpreter's lock for its switch
interval each time the loop wanted it back, on every move of every match while it ran. On the
loop, in slices, every other task waits for one slice at most.
"""

from __future__ import annotations

import time

import trio

SLICE_SECONDS = 0.0005
"""How long a slice runs: what any match's next step may wait for it. A slice of time rather
than of work, so that costlier steps (a slower game's moves) hold the loop no longer."""


class Slices:
    """Call `step` before each piece of a long loop: it checkpoints once a slice is spent."""

    def __init__(self, seconds: float = SLICE_SECONDS) -> None:
        self._seconds = seconds
        self._ends = time.perf_counter() + seconds

    async def step(self) -> None:
        if time.perf_counter() >= self._ends:
            await trio.lowlevel.checkpoint()
            self._ends = time.perf_counter() + self._seconds
