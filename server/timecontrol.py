"""Time controls as values: parsed from the wire's small map, checked, written back.

Pure (no clock is read here), so the arithmetic is exact to test; the match task turns a limit
into a trio deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_MOVE_SECONDS = 10.0
MIN_MOVE_SECONDS = 0.05
MAX_MOVE_SECONDS = 24 * 3600.0


class TimeControlError(ValueError):
    """The wire's time map is not a time control we can enforce."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A per-move limit in seconds: the mover loses when a move takes longer."""

    move: float = DEFAULT_MOVE_SECONDS

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> TimeControl:
        unknown = sorted(set(data) - {"move"})
        if unknown:
            raise TimeControlError(f"unknown time control field {unknown[0]!r} (fields: move)")
        move = data.get("move", DEFAULT_MOVE_SECONDS)
        if isinstance(move, bool) or not isinstance(move, int | float):
            raise TimeControlError(f"time control 'move' takes seconds as a number, not {move!r}")
        if not MIN_MOVE_SECONDS <= move <= MAX_MOVE_SECONDS:
            raise TimeControlError(
                f"time control 'move' must be between {MIN_MOVE_SECONDS} and"
                f" {MAX_MOVE_SECONDS:.0f} seconds, not {move}"
            )
        return cls(move=float(move))

    def to_wire(self) -> dict[str, Any]:
        return {"move": self.move}

    def describe(self) -> str:
        return f"{self.move:g} s per move"
