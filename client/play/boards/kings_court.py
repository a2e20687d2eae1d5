"""King's Court on screen: the Court (C3-F6) shaded and its empty squares shown as `+`, pieces in
the Court counted, and the opening's and the 50-move rule's counters."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from arbiter.client.play.boards import BoardDrawing, Position
from arbiter.client.play.boards.grid import DIM_STYLE, Cell

COURT_STYLE = "on grey23"
COURT_ROWS = range(2, 6)
"""Grid rows 2-5 are rows 6 down to 3 (row 8 is drawn first)."""
IN_COURT = str.maketrans("wb.", "WB+")
"""The data form's cells recoded for squares in the Court, so the Court shows without colour."""
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


class KingsCourtDrawing(BoardDrawing):
    cell_of: ClassVar[dict[str, Cell]] = {
        "w": Cell("w", 0),
        "b": Cell("b", 1),
        ".": Cell(".", None, DIM_STYLE),
        "W": Cell("w", 0, COURT_STYLE),
        "B": Cell("b", 1, COURT_STYLE),
        "+": Cell("+", None, f"{DIM_STYLE} {COURT_STYLE}"),
    }
    columns = tuple("ABCDEFGH")
    row_labels = tuple("87654321")
    square_pattern = re.compile(r"([A-H])([1-8])")

    def rows(self, data: dict[str, Any]) -> list[str]:
        return [
            row[:2] + row[2:6].translate(IN_COURT) + row[6:] if index in COURT_ROWS else row
            for index, row in enumerate(data["board"])
        ]

    def facts(self, position: Position) -> list[str]:
        data = position.data
        court = [0, 0]
        for row in data["board"][2:6]:
            court[0] += row[2:6].count("w")
            court[1] += row[2:6].count("b")
        white, black = position.seats
        lines = [f"in the Court: {white} {court[0]}, {black} {court[1]}"]
        opening = _opening(data["ply"], data.get("first_direction"))
        if opening:
            lines.append(opening)
        lines.append(
            f"no capture for {data['since_capture']} moves (limit {data['no_capture_limit']})"
        )
        return lines


def _opening(ply: int, first_direction: str | None) -> str:
    """What the opening allows now, which a newcomer cannot guess from the board."""
    if ply == 0:
        return "move 1: a slide into the Court"
    if ply == 1 and first_direction in OPPOSITE:
        return f"move 2: a slide into the Court, {OPPOSITE[first_direction]}"
    if ply in (2, 3):
        return "moves 3 and 4: slides only"
    return ""


DRAWING = KingsCourtDrawing()
