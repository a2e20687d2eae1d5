"""Static evaluations of a position from one seat's point of view (positive is good for it).

They live beside the agents, not in `games/`: the rules say what is legal, never what is wise.
"""

from __future__ import annotations

from typing import Any

from games import Seat, State


def material(state: State[Any], seat: Seat) -> float:
    """My pieces minus theirs, for games whose states count pieces; 0 for the others."""
    count = getattr(state, "piece_count", None)
    if count is None:
        return 0.0
    return float(count(seat) - count(1 - seat))
