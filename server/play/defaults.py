"""Losing by default: the kinds the standings count, and the termination each one records.

A seat defaults when the referee, not the board, ends its game: it ran out of time, played an
illegal move under `forfeit`, stayed away past its grace period, or (in a tournament) never came.
The kind's value is what the `defaults` table stores (the tournament rules name them);
`Outcome.termination` is the finer, game-wide kind every result carries.
"""

from __future__ import annotations

import enum
import math

from arbiter.games import Outcome, Seat, Termination
from arbiter.protocol import ErrorCode, SeatClock, TimeControl


class Illegal(enum.StrEnum):
    """What an illegal move (or a move out of turn) costs a seat, each seat choosing its own
    with its seek: the game (`FORFEIT`, tournament rules and a program's) or only the move,
    refused while the clock runs on (`RETRY`, for people)."""

    FORFEIT = "forfeit"
    RETRY = "retry"


class DefaultKind(enum.StrEnum):
    """Why a seat lost by default, as the standings count it."""

    CRASH = "crash"  # disconnected past the grace period: a dead process, a reset socket
    ILLEGAL = "illegal"  # an illegal move or a move out of turn, under `forfeit`
    TIME = "time"  # time limit exceeded
    ABSENT = "absent"  # a tournament player did not come to play

    @property
    def termination(self) -> Termination:
        return TERMINATIONS[self]


TERMINATIONS = {
    DefaultKind.CRASH: Termination.DISCONNECT,
    DefaultKind.ILLEGAL: Termination.ILLEGAL_MOVE,
    DefaultKind.TIME: Termination.TIME,
    DefaultKind.ABSENT: Termination.ABSENT,
}
"""Each default kind's termination: the one place the two vocabularies meet."""


def lost_by_default(seat: Seat, kind: DefaultKind, reason: str) -> Outcome:
    """The outcome of `seat` defaulting: its opponent wins."""
    return Outcome.win(1 - seat, reason, kind.termination)


def time_loss(
    control: TimeControl, clock: SeatClock, seat_name: str, cpu: float | None = None
) -> str:
    """`white ran out of time (10 s per move)`: who, and which limit (the move's when it was
    the shorter). A seat on CPU time names the CPU seconds its move used (`cpu`), or, for a
    move that never came, the wall-clock watchdog that ended it."""
    remaining = clock.remaining
    per_move = control.move is not None and (remaining is None or control.move <= remaining)
    sentence = control.time_loss(seat_name, per_move)
    if not clock.cpu:
        return sentence
    if cpu is not None:
        used = math.ceil(cpu * 100) / 100  # rounded up: a figure just past the limit shows so
        return f"{sentence[:-1]} of CPU time: its move used {used:.2f} CPU seconds)"
    return (
        f"{seat_name} passed the wall-clock watchdog ({clock.watchdog():g} s for"
        f" {clock.allowance():g} CPU seconds): its agent sleeps or is blocked"
    )


def cpu_report_refused(clock: SeatClock, to_move: bool, cpu: float) -> tuple[ErrorCode, str] | None:
    """Why a worker's word that a seat's move used `cpu` CPU seconds (`out_of_cpu`) is refused,
    if it is: the seat is on wall time, not to move (`to_move`), or within its allowance."""
    if not clock.cpu:
        return ErrorCode.NOT_ALLOWED, "this seat's moves are judged on wall time, not CPU"
    if not to_move:
        return ErrorCode.NOT_YOUR_TURN, "no move of this seat is under way"
    if cpu <= clock.allowance():
        allowance = clock.allowance()
        return ErrorCode.BAD_FIELD, (
            f"{cpu:g} CPU seconds are within the move's allowance of {allowance:g}"
        )
    return None
