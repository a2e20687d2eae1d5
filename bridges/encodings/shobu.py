"""Shobu: one action per turn, `(passive * 64 + aggressive) * 16 + vector`, 65,536 in all.

`passive` and `aggressive` are the squares of the two stones as the game numbers them
(`board * 16 + row * 4 + column`, boards black-dark, black-light, white-dark, white-light, row 0
nearest Black) and `vector` is `direction * 2 + distance - 1`, directions n, ne, e, se, s, sw,
w, nw (north toward White). The tensor is the planes the game's boards name (black's stones,
white's) and a plane of ones when black moves, each shaped (board, row, column) in that
numbering, as the boards describe it.
"""

from __future__ import annotations

from arbiter.bridges.encoding import Encoding
from arbiter.games.shobu import Move

SQUARES = 64
VECTORS = 16


class ShobuEncoding(Encoding):
    game_name = "shobu"
    num_actions = SQUARES * SQUARES * VECTORS
    tensor_shape = (3, 4, 4, 4)

    def tokens(self, move: Move) -> tuple[int, ...]:
        passive, aggressive, direction, distance = move
        return ((passive * SQUARES + aggressive) * VECTORS + direction * 2 + distance - 1,)

    def move_of_action(self, action: int) -> Move:
        stones, vector = divmod(action, VECTORS)
        passive, aggressive = divmod(stones, SQUARES)
        return passive, aggressive, vector >> 1, (vector & 1) + 1
