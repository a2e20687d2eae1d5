"""How long a search may think, given the budget the server sent.

The budget (`time_left` of `your_turn`) runs on the server from the moment it sent the frame
until our move has arrived whole. Part of it is not ours to spend: the frame's trip in and the
move's trip out, the worker thread handing the move back to the connection's task (which waits
for the interpreter lock), and the work between two clock checks of the search. So a search
stops at a deadline short of the budget by a share of it plus a fixed reserve; the share covers
slow machines and long budgets, the reserve covers short ones.

The budget is the per-move limit or what is left of a game clock, whichever is shorter, and the
agent is not told which. Spending most of a per-move limit is right; spending most of a game
clock on one move loses the game on time a few moves later. `TimeKeeper` tells them apart by
watching the budgets of one game: a per-move limit sends the same budget every move, a clock
sends a shrinking one. Until it knows, a budget too long for a per-move limit (`CLOCK_LIKE`) is
taken for a clock. A clock is spent as if `MOVES_TO_GO` moves remained, which never runs out.

One pause no margin covers well is the cyclic garbage collector's: a search builds a big tree or
table, and a collection walks every object allocated since the last one, 20 ms and more. Our
searches make no reference cycles (their garbage goes by reference counting alone), so
`collector_paused` turns the collector off while one searches, and the search drops its tree or
table before the collector is back on: then the next collection finds nothing of it to walk.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

MARGIN_SHARE = 0.15
"""Part of the budget kept back, for costs that grow with the budget (a busy machine)."""
MARGIN_FLOOR = 0.05
"""Seconds kept back at least, for fixed costs: the network, the thread hand-off, a last node."""
NEXT_ITERATION_SHARE = 0.5
"""Iterative deepening starts no new depth past this share of its time: the next depth costs
several times the last one, so it would rarely finish (a partial one still helps a little)."""
CLOCK_LIKE = 30.0
"""Seconds: a first budget longer than this is taken for a game clock, not a per-move limit."""
MOVES_TO_GO = 30
"""A game clock is shared out as if this many of our moves remained."""
SAME_BUDGET = 0.001
"""Budgets closer than this are the same per-move limit."""


class OutOfTime(Exception):
    """Raised from deep in a search when its deadline passes, so it unwinds at once."""


def thinking_time(budget: float) -> float:
    """Seconds a search may use out of a per-move `budget`; never negative."""
    return max(0.0, min(budget * (1.0 - MARGIN_SHARE), budget - MARGIN_FLOOR))


class TimeKeeper:
    """Shares out one game's budgets; an agent keeps one per game (agents are made per game)."""

    def __init__(self) -> None:
        self._first: float | None = None
        self.clock = False
        """Whether the budgets have shown a game clock."""

    def allot(self, budget: float) -> float:
        """Seconds to think on this move, out of `budget`."""
        if self._first is None:
            self._first = budget
            self.clock = budget > CLOCK_LIKE
        elif abs(budget - self._first) > SAME_BUDGET:
            self.clock = True
        if self.clock:
            return min(thinking_time(budget), budget / MOVES_TO_GO)
        return thinking_time(budget)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (process-wide), then as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
