"""King's Court: a move is the squares its piece visits, one action each, then `END` (64).

Squares are numbered as the game numbers them, `column + 8 * row` with A1 = 0. The end action
is what lets a jump stop where a longer jump could go on: no move's actions are then a prefix of
another's. The tensor is the planes the game's boards name (white's pieces, black's), the squares
the pending move has visited, and a plane of ones when white moves, each 8x8 with row 0 the top
row (row 8), as the board is drawn.
"""

from __future__ import annotations

from arbiter.bridges.encoding import Encoding, Tensor, Turn, top_row_first
from arbiter.games.kings_court import (
    MAX_SQUARES_PER_MOVE,
    SIZE,
    SQUARE_NAMES,
    Move,
)

SQUARES = SIZE * SIZE
END = SQUARES


class KingsCourtEncoding(Encoding):
    game_name = "kings-court"
    num_actions = SQUARES + 1
    max_tokens = MAX_SQUARES_PER_MOVE + 1
    decisions = 2  # a slide: two squares (its end is forced, no search)
    tensor_shape = (4, SIZE, SIZE)

    def tokens(self, move: Move) -> tuple[int, ...]:
        return (*move, END)

    def more_planes(self, turn: Turn) -> list[Tensor | float]:
        """The squares the pending move has visited, before whose turn it is."""
        visited = sum(1 << square for square in turn.pending)
        return [top_row_first([visited], SIZE)[0], *super().more_planes(turn)]

    def action_name(self, token: int) -> str:
        return "end" if token == END else SQUARE_NAMES[token]
