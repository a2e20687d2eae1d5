"""The Game of the Amazons on screen: amazons by seat, arrows as `x`, the move's three squares
(from, to, arrow) marked."""

from __future__ import annotations

import re
from typing import ClassVar

from arbiter.client.play.boards import BoardDrawing, Position
from arbiter.client.play.boards.grid import DIM_STYLE, Cell


class AmazonsDrawing(BoardDrawing):
    cell_of: ClassVar[dict[str, Cell]] = {
        "W": Cell("W", 0),
        "B": Cell("B", 1),
        "x": Cell("x", None, "bold red"),
        ".": Cell(".", None, DIM_STYLE),
    }
    columns = tuple("abcdefghij")
    row_labels = tuple(str(rank) for rank in range(10, 0, -1))
    square_pattern = re.compile(r"([a-j])(10|[1-9])")

    def facts(self, position: Position) -> list[str]:
        board: list[str] = position.data["board"]
        arrows = sum(row.count("x") for row in board)
        empty = sum(row.count(".") for row in board)
        return [f"arrows: {arrows}, empty squares: {empty}"]


DRAWING = AmazonsDrawing()
