"""How long a search may think, given the budget the server sent.

The budget (`time_left` of `your_turn`) runs on the server from the moment it sent the frame
until our move has arrived whole. Part of it is not ours to spend: the frame's trip in and the
move's trip out, the worker thread handing the move back to the connection's task (which waits
for the interpreter lock), the work between two clock checks of the search, freeing its tables,
and on a busy machine the other processes that take the CPU from us at any of those moments. So
a search stops at a deadline short of the budget by a share of it plus a reserve.

The reserve is learned, not fixed (`Lateness`): it is what this process's own moves have shown.
An agent tells its `TimeKeeper` when it hands a move back (`done`), and a search that ran to its
deadline records how late past it that was; a runner that hears the server's measure of a move
(`move_accepted.elapsed`) records the part `choose` never saw (`Lateness.outside`). The reserve
is a safety factor times the worst of each kind in the last `MEMORY` seconds, so one slow move
raises it at once and it falls back only when that move is a minute old. All agents of a process
share one `Lateness` (`LATENESS`): they share the machine, the interpreter and the connection.

On a loaded machine nearly all of a late move's lateness is time off the CPU, not work done past the
deadline (`bench/strength.py --load` shows it). The scheduler decides it, not our code, so only the
process's own record can say how much to keep back. A search that reads its clock through
`TimeKeeper.now` also reports the longest stretch between two of its checks in each move: had the
deadline fallen there, the move would have been that late, so it counts as lateness too, and a
search shows it on every move, not only when a stall happens to straddle its deadline.

Until `PRIOR_MOVES` moves have shown theirs, a prior stands in (`PRIOR_LATENESS` on an idle
machine, more on a busy one); a move shows its lateness only when it had `EXPOSURE` seconds to
think (an instant answer had no time to be preempted). However large the reserve, a move may
think a tenth of its budget (`LEAST_SHARE`): the first moves on a busy machine think that long
and the reserve learns from them.

The budget is the per-move limit or what is left of a game clock, whichever is shorter, and the
agent is not told which. Spending most of a per-move limit is right; spending most of a game
clock on one move loses the game on time a few moves later. `TimeKeeper` tells them apart by
watching the budgets of one game: a per-move limit sends the same budget every move, a clock
sends a shrinking one. Until it knows, a budget too long for a per-move limit (`CLOCK_LIKE`) is
taken for a clock. A clock is spent as if `MOVES_TO_GO` moves remained, which never runs out.

One pause no margin covers well is the cyclic garbage collector's: a search builds a big tree or
table, and a collection walks every object allocated since the last one, which takes as long as a
move may. Our searches make no reference cycles (their garbage goes by reference counting alone), so
`collector_paused` turns the collector off while one searches, and the search drops its tree or
table before the collector is back on: then the next collection finds nothing of it to walk.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

MARGIN_SHARE = 0.1
"""Part of the budget kept back, for costs that grow with the budget (tables to free)."""
LEAST_SHARE = 0.1
"""Part of the budget a move may always think, however large the reserve: an answer at once
risks a stall as much as one a tenth of the budget later (either is lost only to a stall of
nearly the whole budget), but alpha-beta needs that tenth to look one move ahead at all."""
RESERVE_FLOOR = 0.005
"""Seconds kept back however punctual the moves have been: a last node, a timer's resolution."""
PRIOR_LATENESS = 0.03
"""Seconds of lateness assumed before moves have shown their own, on an idle machine: with the
safety factor and the floor, a reserve that covers an idle machine's scheduling. A busy machine
(`os.getloadavg` over the cores) scales it up: each process in the queue of a core may run
before ours comes back."""
PRIOR_MOVES = 5
"""The prior stands beside the learned lateness until this many moves have shown theirs."""
EXPOSURE = 0.01
"""Seconds a move must have had to think for its lateness to count against the prior."""
RAN_SHARE = 0.5
"""A move handed back past this share of its time ran to its deadline (the searches stop a
little short of it by their own margins) and shows its lateness, if only 0; one handed back
sooner finished its work early and tells nothing."""
SAFETY = 1.5
"""The reserve is the worst recent lateness times this: the next move may be a little worse."""
MEMORY = 60.0
"""Seconds a lateness is remembered. A busy spell on a shared machine (someone's test run) lasts
minutes and its long stalls recur within it, however many moves are made meanwhile; a process
whose record has all gone stale (idle between games) is back to the prior."""
RECORD_LIMIT = 1000
"""Samples of each kind kept at most, however fast the moves."""
NEXT_ITERATION_SHARE = 0.5
"""Iterative deepening starts no new depth past this share of its time: the next depth costs
several times the last one, so it would rarely finish (a partial one still helps a little)."""
CLOCK_LIKE = 30.0
"""Seconds: a first budget longer than this is taken for a game clock, not a per-move limit."""
MOVES_TO_GO = 30
"""A game clock is shared out as if this many of our moves remained."""
SAME_BUDGET = 0.001
"""Budgets closer than this are the same per-move limit."""

Now = Callable[[], float]


def machine_queue() -> float:
    """Runnable processes a core (the last minute's load average over the cores); 1 where the
    system keeps no load average."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return 1.0


class _Record:
    """One kind of lateness, sample by sample with when it was taken; samples older than
    `MEMORY` are dropped as they are read."""

    def __init__(self) -> None:
        self._samples: deque[tuple[float, float, bool]] = deque(maxlen=RECORD_LIMIT)

    def add(self, at: float, seconds: float, shown: bool = True) -> None:
        self._samples.append((at, max(0.0, seconds), shown))

    def recent(self, now: float) -> list[tuple[float, bool]]:
        """The samples of the last `MEMORY` seconds, oldest first: (seconds, shown)."""
        while self._samples and self._samples[0][0] < now - MEMORY:
            self._samples.popleft()
        return [(seconds, shown) for _, seconds, shown in self._samples]

    def worst(self, now: float) -> float:
        return max((seconds for seconds, _ in self.recent(now)), default=0.0)

    def clear(self) -> None:
        self._samples.clear()


class Lateness:
    """How late this process's moves have run, remembered for `MEMORY` seconds; `reserve()`
    is the seconds each budget keeps back for it. Thread-safe: agents run on worker threads."""

    def __init__(self, queue: Callable[[], float] | None = None, now: Now = time.perf_counter):
        self._queue = machine_queue if queue is None else queue
        self._now = now
        self._lock = threading.Lock()
        self._inside = _Record()
        self._outside = _Record()
        self._stalls = _Record()

    def inside(self, seconds: float, shown: bool = True) -> None:
        """A search that ran to its deadline handed its move back `seconds` after it; `shown`:
        it had time enough to think that its lateness says how busy the machine is."""
        with self._lock:
            self._inside.add(self._now(), seconds, shown)

    def stall(self, seconds: float) -> None:
        """A search went `seconds` between two of its clock checks, the longest of its move:
        had its deadline fallen in that stretch, it would have been that late."""
        with self._lock:
            self._stalls.add(self._now(), seconds)

    def outside(self, seconds: float) -> None:
        """A move spent `seconds` of the server's time outside `choose` (the round trip, the
        hand-offs): what the server counted less what the agent took."""
        with self._lock:
            self._outside.add(self._now(), seconds)

    def reserve(self) -> float:
        """Seconds to keep back from a budget: the worst recent lateness of each kind, summed,
        times `SAFETY`, plus `RESERVE_FLOOR`. Until `PRIOR_MOVES` recent moves have shown
        theirs, the prior's reserve stands beside the learned one."""
        with self._lock:
            now = self._now()
            inside = max(self._inside.worst(now), self._stalls.worst(now))
            outside = self._outside.worst(now)
            shown = sum(shown for _, shown in self._inside.recent(now))
        learned = RESERVE_FLOOR + SAFETY * (inside + outside)
        if shown >= PRIOR_MOVES:
            return learned
        return max(learned, RESERVE_FLOOR + SAFETY * (self._prior() + outside))

    def _prior(self) -> float:
        return PRIOR_LATENESS * max(1.0, self._queue())

    def recent(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The remembered lateness, inside and outside `choose`, oldest first (for reports)."""
        with self._lock:
            now = self._now()
            inside = tuple(seconds for seconds, _ in self._inside.recent(now))
            return inside, tuple(seconds for seconds, _ in self._outside.recent(now))

    def stalls(self) -> tuple[float, ...]:
        """The remembered longest stretches between two clock checks, one a move (reports)."""
        with self._lock:
            return tuple(seconds for seconds, _ in self._stalls.recent(self._now()))

    def forget(self) -> None:
        """Back to the prior (tests; a process that starts on other work)."""
        with self._lock:
            for record in (self._inside, self._outside, self._stalls):
                record.clear()


LATENESS = Lateness()
"""This process's lateness, shared by every agent's `TimeKeeper` and reported to by runners."""


class OutOfTime(Exception):
    """Raised from deep in a search when its deadline passes, so it unwinds at once."""


def thinking_time(budget: float, reserve: float | None = None) -> float:
    """Seconds a search may use out of a per-move `budget`, keeping back `MARGIN_SHARE` of it
    and `reserve` seconds (by default what `LATENESS` has learned); never less than
    `LEAST_SHARE` of it."""
    if reserve is None:
        reserve = LATENESS.reserve()
    return max(LEAST_SHARE * budget, budget * (1.0 - MARGIN_SHARE) - reserve)


class TimeKeeper:
    """Shares out one game's budgets and reports its moves' lateness; an agent keeps one per
    game (agents are made per game). `allot` starts a move, `done` ends it."""

    def __init__(self, lateness: Lateness | None = None, now: Now = time.perf_counter) -> None:
        self._lateness = LATENESS if lateness is None else lateness
        self._now = now
        self._first: float | None = None
        self.clock = False
        """Whether the budgets have shown a game clock."""
        self.deadline: float | None = None
        """When the move `allot` started must be handed back (`now`'s time), until `done`."""
        self._allotted = 0.0
        self._checked = 0.0
        """When `now` was last called (or the move began)."""
        self._stall = 0.0
        """The longest stretch between two calls of `now` in this move."""

    def allot(self, budget: float) -> float:
        """Seconds to think on this move, out of `budget`; the move's deadline is that long
        from now."""
        if self._first is None:
            self._first = budget
            self.clock = budget > CLOCK_LIKE
        elif abs(budget - self._first) > SAME_BUDGET:
            self.clock = True
        seconds = thinking_time(budget, self._lateness.reserve())
        if self.clock:
            seconds = min(seconds, budget / MOVES_TO_GO)
        self._checked = self._now()
        self.deadline = self._checked + seconds
        self._allotted = seconds
        return seconds

    def now(self) -> float:
        """The time by this keeper's clock, for a search's deadline checks: it notes the
        longest stretch between two calls in the move (off the CPU, mostly), which `done`
        reports to `Lateness.stall`."""
        now = self._now()
        if now - self._checked > self._stall:
            self._stall = now - self._checked
        self._checked = now
        return now

    def stalled(self, seconds: float) -> None:
        """A stretch between two deadline checks timed by a search's own clock (a compiled
        search reads the clock itself, not through `now`): the move's longest counts."""
        self._stall = max(self._stall, seconds)

    def done(self) -> None:
        """The move is being handed back: a move that ran to its deadline (a search stopped by
        the clock) tells how late this process runs; one that finished early tells nothing."""
        if self.deadline is not None:
            now = self._now()
            if now > self.deadline - (1.0 - RAN_SHARE) * self._allotted:
                shown = self._allotted >= EXPOSURE
                self._lateness.inside(now - self.deadline, shown)
        if self._stall:
            self._lateness.stall(self._stall)
        self.deadline, self._stall = None, 0.0


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
