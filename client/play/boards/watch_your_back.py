"""Watch Your Back! on screen: the original referee's symbols and (column, row) coordinates from
the top-left, the phase, and when the board next shrinks."""

from __future__ import annotations

import re
from typing import ClassVar

from arbiter.client.play.boards import BoardDrawing, Position
from arbiter.client.play.boards.grid import DIM_STYLE, Cell

PLACEMENTS = 24
SHRINKS = (128, 192)
"""Moving-phase moves after which the board shrinks."""


class WatchYourBackDrawing(BoardDrawing):
    cell_of: ClassVar[dict[str, Cell]] = {
        "O": Cell("O", 0),
        "@": Cell("@", 1),
        "-": Cell("-", None, DIM_STYLE),
        "X": Cell("X", None, "bold"),
        "#": Cell("#", None, DIM_STYLE),
    }
    columns = tuple("01234567")
    row_labels = tuple("01234567")
    square_pattern = re.compile(r"([0-7]),([0-7])")

    def facts(self, position: Position) -> list[str]:
        ply: int = position.data["ply"]
        if ply < PLACEMENTS:
            return [f"placing phase: {ply} of {PLACEMENTS} pieces placed"]
        moves = ply - PLACEMENTS
        upcoming = [shrink for shrink in SHRINKS if moves < shrink]
        shrink = f"; the board shrinks after move {upcoming[0]}" if upcoming else ""
        return [f"moving phase: {moves} moves played{shrink}"]


DRAWING = WatchYourBackDrawing()
