"""Any game's encoding from its description of its boards: what a game without an encoding of
its own gets, so the bridges take a new game from its games/ module alone.

A move is the squares it touches (`Boards.move_squares`), one action each, numbered over the
grids in order (`column + columns * row` within a grid, row 0 at the top as drawn), then `END`,
so that no move's actions are a prefix of another's; a move that touches no square (a pass) is
`END` alone. The tensor is the planes the boards name and a plane of ones when the first seat
moves. It asks of a game only that no two legal moves touch the same squares in the same order.
"""

from __future__ import annotations

import functools
from typing import Any

from arbiter.bridges.encoding import Encoding, board_planes
from arbiter.games import Boards, get_game


class SquaresEncoding(Encoding):
    """The squares encoding of one game; `squares_encoding` makes one per game."""

    @functools.cached_property
    def boards(self) -> Boards:
        return self.game.boards

    @functools.cached_property
    def _offsets(self) -> list[int]:
        """The first action of each grid's squares."""
        offsets, total = [], 0
        for grid in self.boards.grids:
            offsets.append(total)
            total += len(grid.rows) * len(grid.columns)
        return offsets

    @property
    def end(self) -> int:
        return self.num_actions - 1

    def tokens(self, move: Any) -> tuple[int, ...]:
        squares = self.boards.move_squares(self.game.format_move(move))
        return (
            *(
                self._offsets[grid] + row * len(self.boards.grids[grid].columns) + column
                for grid, row, column in squares
            ),
            self.end,
        )

    def action_name(self, action: int) -> str:
        if action == self.end:
            return "end"
        grid = max(index for index, offset in enumerate(self._offsets) if offset <= action)
        row, column = divmod(action - self._offsets[grid], len(self.boards.grids[grid].columns))
        return self.boards.grids[grid].name(row, column)


@functools.cache
def squares_encoding(game_name: str) -> Encoding:
    """The squares encoding of the game called `game_name`, its sizes read off its boards and
    its start position."""
    game = get_game(game_name)
    boards = game.boards
    squares = sum(len(grid.rows) * len(grid.columns) for grid in boards.grids)
    start = game.new_game(lambda: 0).to_data()
    shape = board_planes(boards, start).shape
    fields = {
        "game_name": game_name,
        "num_actions": squares + 1,
        "max_tokens": game.max_move_text // 2 + 1,
        "tensor_shape": (shape[0] + 1, *shape[1:]),
    }
    encoding: Encoding = type(f"SquaresEncoding[{game_name}]", (SquaresEncoding,), fields)()
    return encoding
