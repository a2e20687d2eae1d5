"""A match's clock: the turn under way, the seats away in their grace period, and the alarm the
match's task waits in.

Thinking time runs from the moment `your_turn` has been written to the mover's socket until the
move frame has arrived whole. Whoever writes `your_turn` stamps the first instant and moves the
deadline; the reader stamps the second. What a move may cost and what it did cost is
`protocol`'s pure time-control arithmetic (protocol/_time_control.py).

The match's task only waits for the deadline of the move under way, or the end of an away
seat's grace period (a cancel scope, never a polling loop). The alarm is only ever brought
forward, so a move costs no timer update (each would be a trio deadline change), and a wake-up
that finds the deadline moved on just waits again.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import trio

from arbiter.games import Seat
from arbiter.protocol import SeatClock
from arbiter.server.connection.stalls import StallMeter


class Turn:
    """One seat's turn: when its clock started and the deadline for its move.

    There is no deadline until the commit gate releases `your_turn` to the connection
    (`release`): until then it waits for the commit of the move before it, and a storage that
    is slow, stalled or restarting is the server's delay, not the player's. From the release
    the deadline counts, so a client that does not read cannot stall the match; the write then
    moves it to count from the write (`start`). A seat that is away has nothing to write: its
    clock starts at the release.

    The server's own stalls during the turn (`server.connection.stalls`) are not the player's: they
    are taken off the thinking time and added to the deadline.
    """

    __slots__ = ("clock", "deadline", "lag", "seat", "stalls", "stalls_before", "started")

    def __init__(self, seat: Seat, clock: SeatClock, lag: float, stalls: StallMeter) -> None:
        self.seat = seat
        self.clock = clock
        self.lag = lag  # the mover's round trip when asked: the same figure decides and charges
        self.started: float | None = None
        self.deadline = math.inf
        self.stalls = stalls
        self.stalls_before = 0.0

    def release(self, now: float) -> None:
        self.deadline = self.clock.deadline_after(now, self.lag)
        self.stalls_before = self.stalls.stalled(now)

    def start(self, written_at: float) -> None:
        self.started = written_at
        self.deadline = self.clock.deadline_after(written_at, self.lag)
        self.stalls_before = self.stalls.stalled(written_at)

    def stalled(self, now: float) -> float:
        """Seconds the server's loop has been late since the turn's clock started."""
        return self.stalls.stalled(now) - self.stalls_before

    def elapsed(self, arrived_at: float) -> float:
        """Thinking time, the server's stalls left out; 0 for a move that arrived before its
        `your_turn` was written."""
        if self.started is None:
            return 0.0
        return max(0.0, arrived_at - self.started - self.stalled(arrived_at))

    def due(self, now: float) -> float:
        """The deadline, moved on by the server's stalls so far."""
        return self.deadline + self.stalled(now)

    def time_left(self, now: float) -> float:
        return max(0.0, min(self.clock.allowance(), self.deadline - now))


class TurnClock:
    """The turn under way, the seats away, and the match task's alarm."""

    __slots__ = ("_alarm", "away", "grace", "stalls", "turn")

    def __init__(self, grace: float, stalls: StallMeter) -> None:
        self.grace = grace
        """Seconds a seat whose connection dropped is kept for its client to come back."""
        self.stalls = stalls
        """The server's loop lateness, credited to each turn (a meter never started counts
        none)."""
        self.turn: Turn | None = None
        """The move under way; None until the match task has asked for the first one."""
        self.away: dict[Seat, float] = {}
        """Seats whose connection dropped, with the end of their grace period."""
        self._alarm = trio.CancelScope()
        """The match task waits in this scope; the end of the match cancels it."""

    def begin(self, seat: Seat, clock: SeatClock, lag: float) -> Turn:
        self.turn = Turn(seat, clock, lag, self.stalls)
        return self.turn

    def released(self, turn: Turn, away: bool, now: float) -> bool:
        """`your_turn` goes to the connection (or, for a seat away, would): the deadline runs
        from now. True when `turn` is still the one under way (its alarm is to be set)."""
        turn.release(now)
        if away:
            turn.start(now)
        return turn is self.turn

    def left(self, seat: Seat, now: float) -> None:
        """`seat`'s connection dropped at `now`: its grace period begins."""
        self.away[seat] = now + self.grace

    def due(self) -> float:
        """When the match must act if nothing arrives: the move's deadline or a grace period's
        end."""
        assert self.turn is not None
        due = self.turn.due(trio.current_time())
        return min(due, *self.away.values()) if self.away else due

    def set_alarm(self) -> None:
        """Bring the alarm forward to what is due (the one timer update of a move)."""
        due = self.due()
        if due < self._alarm.deadline:
            self._alarm.deadline = due

    def stop(self) -> None:
        """The match is over (or failed): its task stops waiting."""
        self._alarm.cancel()

    def first_wait(self) -> trio.CancelScope:
        """The scope the match task begins its first turn in and waits in."""
        return self._alarm

    async def expired(self, over: Callable[[], bool]) -> tuple[Seat, bool] | None:
        """Wait until a deadline passes: the seat that ran out, and whether it was away past
        its grace period (else it ran out of time); None once `over()`."""
        while not over():
            due = self.due()
            now = trio.current_time()
            if now >= due:
                for gone, until in self.away.items():
                    if now >= until:
                        return gone, True
                assert self.turn is not None
                return self.turn.seat, False
            with trio.CancelScope(deadline=due) as self._alarm:
                await trio.sleep_forever()
        return None
