"""Both seats' clocks as the screen shows them, counting down between the server's reports.

The server is the only clock (docs/time-controls.md): the client shows it and never judges it.
Each report resets the figures (`your_turn.time_left` and `clocks`, a move report's `clocks`),
and between reports the running seat's figures fall with the local clock. The opponent's time
for a move is not reported, so it is estimated as the server would start it: the move limit or
its game clock, whichever is shorter. Pure: `now` is passed in, so the arithmetic is exact to
test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arbiter.protocol import TimeControl

UNKNOWN = "--:--"
"""A game clock a spectator joining mid-game has not been told yet."""


def format_seconds(seconds: float) -> str:
    """`1:05:00`, `4:59`, `0:09.4`: tenths only in the last ten seconds, when they matter."""
    seconds = max(0.0, seconds)
    if seconds < 10:
        tenths = int(seconds * 10)
        return f"0:0{tenths // 10}.{tenths % 10}"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    if hours:
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{rest // 60}:{rest % 60:02d}"


@dataclass
class Clocks:
    control: TimeControl | None
    remaining: list[float | None] = field(default_factory=lambda: [None, None])
    """Each seat's game clock at its last report (None without a game clock, or not known)."""
    running: int | None = None
    budget: float | None = None
    """The running seat's time for this move when it started."""
    since: float = 0.0
    move_left: list[float | None] = field(default_factory=lambda: [None, None])
    """What each seat had left of its move when the game ended, kept where the move's time is
    what the screen shows: without a game clock, or when the move limit ran out (else None)."""

    @classmethod
    def fresh(cls, control: TimeControl | None) -> Clocks:
        """Clocks at the start of a game: full game clocks, nobody running yet."""
        start = None if control is None else control.clock
        return cls(control, [start, start])

    def start(
        self,
        seat: int,
        now: float,
        budget: float | None = None,
        clocks: Sequence[float] | None = None,
    ) -> None:
        """`seat`'s time runs from `now`: `budget` from its `your_turn`, or estimated."""
        if clocks is not None:
            self.remaining = list(clocks)
        self.running, self.since = seat, now
        self.budget = self._estimate(seat) if budget is None else budget

    def moved(self, clocks: Sequence[float] | None, next_seat: int, now: float) -> None:
        """A move report arrived: its clocks hold, and the other seat's time starts."""
        self.start(next_seat, now, clocks=clocks)

    def stop(self, now: float, ran_out: str | None = None) -> None:
        """The game ended: freeze what the running seat had left of its move and its game
        clock, or, if the server says it ran out (`ran_out`: "move" or "clock"), of that limit
        nothing, whatever this terminal's clock made of it."""
        if self.running is not None:
            spent = now - self.since
            seat = self.running
            if self.budget is not None and (ran_out == "move" or self._moves_only()):
                self.move_left[seat] = 0.0 if ran_out else max(0.0, self.budget - spent)
            if (left := self.remaining[seat]) is not None:
                self.remaining[seat] = 0.0 if ran_out == "clock" else max(0.0, left - spent)
            self.running = None

    def show(self, seat: int, now: float) -> str:
        """`4:51` (a game clock), `0:07.3` (a move's time), `4:51 move 0:08` (both)."""
        control = self.control
        if control is None:
            return ""
        spent = now - self.since if self.running == seat else 0.0
        move_left = None
        if self.running == seat and self.budget is not None:
            move_left = format_seconds(self.budget - spent)
        elif (frozen := self.move_left[seat]) is not None:
            move_left = format_seconds(frozen)
        if control.clock is None:
            return move_left or format_seconds(control.move or 0.0)
        left = self.remaining[seat]
        shown = UNKNOWN if left is None else format_seconds(left - spent)
        if control.move is not None and move_left is not None:
            shown += f" move {move_left}"
        return shown

    def _moves_only(self) -> bool:
        return self.control is not None and self.control.clock is None

    def _estimate(self, seat: int) -> float | None:
        if self.control is None:
            return None
        limits = [t for t in (self.control.move, self.remaining[seat]) if t is not None]
        return min(limits) if limits else None
