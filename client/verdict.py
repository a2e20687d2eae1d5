"""How a game's result reads in every client: `black wins: white ran out of time (10 s per
move)`, `draw: ...`, `both forfeit: ...`.

One spelling for the terminal board, the referee's last line, `arbiter check`, replays and a
tournament's result lines: a time loss's reason already ends in a parenthesis (the limit), so
the reason follows a colon rather than sitting in parentheses of its own.
"""

from __future__ import annotations


def verdict(result: str, winner: str | None, reason: str) -> str:
    """The sentence for a `game_over`'s (or a record's) `result`, `winner` and `reason`."""
    if result == "win":
        return f"{winner} wins: {reason}"
    return f"{result.replace('_', ' ')}: {reason}"
