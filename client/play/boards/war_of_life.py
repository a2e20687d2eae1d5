"""War of Life on screen: the board as the move left it, before Conway's Crank, beside the board
after the crank, so a player sees what their move did and what the crank made of it."""

from __future__ import annotations

import re
from typing import ClassVar

from arbiter.client.play.boards import BoardDrawing, Position
from arbiter.client.play.boards.grid import Block, Cell, Square, owner_counts

MOVE_LIMIT = 250
"""Moves of both players before the game is an exhausted draw."""


class WarOfLifeDrawing(BoardDrawing):
    cell_of: ClassVar[dict[str, Cell]] = {
        "b": Cell("b", 0),
        "r": Cell("r", 1),
        ".": Cell(".", None, "dim"),
    }
    columns = tuple("abcdefgh")
    row_labels = tuple("87654321")
    square_pattern = re.compile(r"([a-h])([1-8])")

    def picture(self, position: Position) -> list[Block]:
        after = position.data["board"]
        if position.before is None or position.move is None:
            return [(self.grid(after, position.move),)]
        mover = "" if position.mover is None else f"{position.seats[position.mover]} "
        before = self._moved(position.before["board"], self.squares(position.move))
        return [
            (
                self.grid(before, position.move, f"{mover}{position.move}, before the crank"),
                self.grid(after, position.move, "after the crank"),
            )
        ]

    def facts(self, position: Position) -> list[str]:
        lines = [f"{position.data['ply']} of {MOVE_LIMIT} moves played"]
        if position.before is not None and position.move is not None:
            moved = self._moved(position.before["board"], self.squares(position.move))
            before = owner_counts(moved, self.cell_of)
            after = self.pieces(position.data)
            changes = ", ".join(
                f"{seat} {was} -> {now}"
                for seat, was, now in zip(position.seats, before, after, strict=True)
            )
            lines.append(f"the crank: {changes}")
        return lines

    @staticmethod
    def _moved(board: list[str], squares: list[Square]) -> list[str]:
        """The board with the move's piece stepped from its first square to its second."""
        if len(squares) != 2:
            return board
        cells = [list(row) for row in board]
        (from_row, from_column), (to_row, to_column) = squares
        cells[to_row][to_column] = cells[from_row][from_column]
        cells[from_row][from_column] = "."
        return ["".join(row) for row in cells]


DRAWING = WarOfLifeDrawing()
