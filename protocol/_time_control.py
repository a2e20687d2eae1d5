"""Time controls, game clocks and the lag allowance, as pure values: no clock is read here.

Every function takes the times it needs as arguments, so the arithmetic is exact to test; the
server's match task reads trio's clock and turns an allowance into a cancel-scope deadline, and the
terminal client runs the same arithmetic to show the clocks. It lives in `protocol` because both
sides share it: `TimeControl` is the codec of a match's `time` option on the wire.

Time controls (`TimeControl`): a per-move limit, a game clock with a Fischer increment, or both
(then a move must fit both). Written `move=5`, `clock=300+2`, `clock=60+0,move=10` on the command
line (with `lag=off` to switch the lag allowance off) and as a small map on the wire:
`{"move": 5.0}`, `{"clock": 300.0, "increment": 2.0}`, `{"lag": 0}`.

The lag allowance (`LagQuota`) follows lichess's LagTracker: each seat holds a quota of seconds;
a move's compensation is min(measured lag, quota), taken out of the quota, and every move adds
`gain` back, up to `maximum`. The lag is the connection's round-trip time as the server measured
it with its own pings, never a figure the client reports. A seat on a slow link is compensated up
to `gain` per move for as long as it plays; a seat that fakes lag (delays its pongs) wins at most
its quota. The constants scale with the time a move is expected to take (`budget`):

    gain = clamp(budget / 4, 0.05 s, 1 s)    start = 3 x gain    maximum = 7 x gain

lichess uses 1 s of gain for long chess games and 0.2 s for the fastest; our per-move limits are
often a second or two, so the gain is a quarter of the move budget (0.25 s at `move=1`), enough
for 200 ms of round trip on every move.

A seat the server hosts (its agent run by a worker) is judged on CPU time instead (`SeatClock`
with `cpu=True`): a move costs the CPU seconds its agent's process tree spent between `your_turn`
and the move, as the worker measured them, so a busy machine or a slow network costs it nothing
and no lag allowance is needed. CPU time does not pass while an agent sleeps or blocks, so a
wall-clock watchdog bounds the move too: `WATCHDOG_MULTIPLE` times the CPU allowance plus
`WATCHDOG_MARGIN` seconds of wall time from `your_turn`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MIN_SECONDS = 0.05
MAX_SECONDS = 24 * 3600.0
MOVES_PER_GAME_ESTIMATE = 40
"""For a clock without a move limit: a move is expected to take clock / 40 + increment."""
WATCHDOG_MULTIPLE = 3.0
WATCHDOG_MARGIN = 1.0
"""A CPU-clocked move's wall time may reach 3 x its CPU allowance + 1 s: room for an agent whose
process waits on the machine's other work, while one that sleeps or blocks is caught within a
few of its allowances (the margin covers starting and scheduling a process on a short limit)."""


class TimeControlError(ValueError):
    """A time control we cannot enforce: the sentence says which part and why."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """What a seat's moves may cost: per-move limit, game clock + increment, lag allowance."""

    move: float | None = None
    clock: float | None = None
    increment: float = 0.0
    lag: bool = True

    def __post_init__(self) -> None:
        if self.move is None and self.clock is None:
            raise TimeControlError("a time control needs a move limit, a game clock or both")
        for name in ("move", "clock"):
            value = getattr(self, name)
            if value is not None and not MIN_SECONDS <= value <= MAX_SECONDS:
                raise TimeControlError(
                    f"time control {name!r} must be between {MIN_SECONDS} and"
                    f" {MAX_SECONDS:.0f} seconds, not {value:g}"
                )
        if not 0 <= self.increment <= MAX_SECONDS:
            raise TimeControlError(
                f"increment must be 0 to {MAX_SECONDS:.0f} s, not {self.increment}"
            )
        if self.increment and self.clock is None:
            raise TimeControlError("an increment needs a game clock (clock=SECONDS+INCREMENT)")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """From the command-line form: `move=5`, `clock=300+2`, `clock=60+0,move=10,lag=off`."""
        fields: dict[str, Any] = {}
        for part in text.replace(" ", "").split(","):
            name, equals, value = part.partition("=")
            if not equals or name in fields:
                raise TimeControlError(
                    f"cannot read time control {text!r}: write move=5, clock=300+2 or both, e.g."
                    " clock=60+0,move=10 (and lag=off to switch the lag allowance off)"
                )
            if name == "move":
                fields["move"] = _seconds(value, text)
            elif name == "clock":
                base, _, increment = value.partition("+")
                fields["clock"] = _seconds(base, text)
                fields["increment"] = _seconds(increment or "0", text)
            elif name == "lag" and value in ("on", "off"):
                fields["lag"] = value == "on"
            else:
                raise TimeControlError(
                    f"unknown part {part!r} in time control {text!r} (parts: move, clock, lag)"
                )
        return cls(**fields)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> TimeControl:
        unknown = sorted(set(data) - {"move", "clock", "increment", "lag"})
        if unknown:
            raise TimeControlError(
                f"unknown time control field {unknown[0]!r} (fields: move, clock, increment, lag)"
            )
        for name, value in data.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TimeControlError(f"time control {name!r} takes a number, not {value!r}")
        lag = data.get("lag", 1)
        if lag not in (0, 1):
            raise TimeControlError(f"time control 'lag' is 1 (on) or 0 (off), not {lag!r}")
        return cls(
            move=_optional_float(data.get("move")),
            clock=_optional_float(data.get("clock")),
            increment=float(data.get("increment", 0.0)),
            lag=bool(lag),
        )

    def to_wire(self) -> dict[str, float]:
        wire: dict[str, float] = {}
        if self.move is not None:
            wire["move"] = self.move
        if self.clock is not None:
            wire["clock"] = self.clock
            wire["increment"] = self.increment
        wire["lag"] = 1.0 if self.lag else 0.0
        return wire

    def describe(self) -> str:
        parts = []
        if self.clock is not None:
            parts.append(f"clock={self.clock:g}+{self.increment:g}")
        if self.move is not None:
            parts.append(f"move={self.move:g}")
        if not self.lag:
            parts.append("lag=off")
        return ",".join(parts)

    def time_loss(self, seat: str, per_move: bool) -> str:
        """Why `seat` lost on time, naming the limit it passed: `white ran out of time (10 s
        per move)` or `(game clock 600+5)`. The server's reason for a time loss, and how a
        client tells one (`per_move` is ignored for a control without that limit)."""
        if self.move is not None and (per_move or self.clock is None):
            limit = f"{self.move:g} s per move"
        else:
            limit = f"game clock {self.clock:g}+{self.increment:g}"
        return f"{seat} ran out of time ({limit})"

    @property
    def move_budget(self) -> float:
        """The time one move is expected to take: what the lag allowance scales with."""
        if self.move is not None:
            return self.move
        assert self.clock is not None
        return self.clock / MOVES_PER_GAME_ESTIMATE + self.increment


def _seconds(text: str, whole: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise TimeControlError(
            f"{text!r} in time control {whole!r} is not a number of seconds"
        ) from None


def _optional_float(value: float | None) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True, slots=True)
class LagQuota:
    """One seat's lag allowance (lichess's LagTracker, constants in the module docstring)."""

    gain: float
    quota: float
    maximum: float

    @classmethod
    def for_control(cls, control: TimeControl) -> LagQuota:
        if not control.lag:
            return cls(0.0, 0.0, 0.0)
        gain = min(1.0, max(0.05, control.move_budget / 4))
        return cls(gain, 3 * gain, 7 * gain)

    def available(self, lag: float) -> float:
        """The most a move can be compensated now, for a connection with this lag."""
        return max(0.0, min(lag, self.quota))

    def after_move(self, compensation: float) -> LagQuota:
        return LagQuota(
            self.gain, min(self.maximum, self.quota - compensation + self.gain), self.maximum
        )


@dataclass(frozen=True, slots=True)
class Charge:
    """What one move cost: thinking time, lag compensation, and the clock left after it."""

    elapsed: float
    compensation: float
    in_time: bool
    clock_after: float | None
    cpu: float | None = None
    """The CPU seconds charged, for a seat on CPU time (None on wall time)."""


@dataclass(slots=True)
class SeatClock:
    """One seat's time: its game clock (None without one) and its lag quota; with `cpu`, its
    moves cost the CPU seconds their agent spent, under a wall-clock watchdog."""

    control: TimeControl
    remaining: float | None = None
    cpu: bool = False
    lag: LagQuota = field(init=False)

    def __post_init__(self) -> None:
        if self.remaining is None:
            self.remaining = self.control.clock
        self.lag = LagQuota.for_control(self.control)
        if self.cpu:
            self.lag = LagQuota(0.0, 0.0, 0.0)  # the network costs a CPU clock nothing

    @property
    def kind(self) -> str:
        """Which clock judges this seat: `cpu` or `wall` (what records and `game_over` say)."""
        return "cpu" if self.cpu else "wall"

    def allowance(self) -> float:
        """Seconds this seat may think on its next move, before lag compensation (CPU
        seconds on a CPU clock)."""
        move, remaining = self.control.move, self.remaining
        if remaining is None:
            return max(0.0, move or 0.0)  # a control has a move limit, a clock, or both
        return max(0.0, remaining if move is None else min(move, remaining))

    def watchdog(self) -> float:
        """Wall seconds a CPU-clocked move may take before the watchdog ends it."""
        return WATCHDOG_MULTIPLE * self.allowance() + WATCHDOG_MARGIN

    def deadline_after(self, written_at: float, lag: float) -> float:
        """When the move must have arrived: allowance plus the most compensation it can get;
        on a CPU clock, the watchdog's end."""
        if self.cpu:
            return written_at + self.watchdog()
        return written_at + self.allowance() + self.lag.available(lag)

    def charge(self, elapsed: float, lag: float, cpu: float | None = None) -> Charge:
        """Charge a move that took `elapsed` seconds on a connection with `lag` s of round trip
        (and `cpu` CPU seconds, which a CPU clock charges instead; without that figure it
        charges the wall time, never less).

        The compensation is taken from the quota whether or not the move was in time; the
        increment is added only to a move that was in time (as lichess does), and the clock of
        a move that ran out stops at zero.
        """
        if self.cpu:
            spent = elapsed if cpu is None else cpu
            return self._charged(elapsed, spent, 0.0, spent)
        compensation = min(elapsed, self.lag.available(lag))
        self.lag = self.lag.after_move(compensation)
        return self._charged(elapsed, elapsed - compensation, compensation, None)

    def _charged(
        self, elapsed: float, charged: float, compensation: float, cpu: float | None
    ) -> Charge:
        in_time = charged <= self.allowance()
        if self.remaining is not None:
            left = self.remaining - charged
            self.remaining = left + self.control.increment if in_time else max(0.0, left)
        return Charge(elapsed, compensation, in_time, self.remaining, cpu)
