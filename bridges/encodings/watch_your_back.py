"""Watch Your Back!: one action per move over a stated space of 577.

A placement on `(x, y)` is `8 * y + x` (0-63); a slide or jump from `(x, y)` is
`64 + 8 * (8 * y + x) + 2 * direction + (distance - 1)` with directions up, left, right, down
(64-575); the forfeited turn is 576. The tensor is the planes the game's boards name (white, black,
corners, removed squares), a plane of ones when white moves and one during the placing phase,
each 8x8 with row 0 the top (y = 0).
"""

from __future__ import annotations

from arbiter.bridges.encoding import Encoding, Tensor, Turn
from arbiter.games.watch_your_back import (
    DIRECTIONS,
    PASS,
    PLACEMENTS,
    SIZE,
    SQUARE_INDEX,
    SQUARES,
    Move,
)

CELLS = SIZE * SIZE
STEP_BASE = CELLS
PASS_ACTION = STEP_BASE + CELLS * 2 * len(DIRECTIONS)


class WatchYourBackEncoding(Encoding):
    game_name = "watch-your-back"
    num_actions = PASS_ACTION + 1
    tensor_shape = (6, SIZE, SIZE)

    def tokens(self, move: Move) -> tuple[int, ...]:
        if move is PASS:
            return (PASS_ACTION,)
        if isinstance(move[0], int):
            return (SQUARE_INDEX[move],)
        (xa, ya), (xb, yb) = move
        distance = max(abs(xb - xa), abs(yb - ya))
        direction = DIRECTIONS.index(((xb - xa) // distance, (yb - ya) // distance))
        return (STEP_BASE + 8 * SQUARE_INDEX[(xa, ya)] + 2 * direction + distance - 1,)

    def move_of_action(self, action: int) -> Move:
        if action == PASS_ACTION:
            return PASS
        if action < STEP_BASE:
            return SQUARES[action]
        start, rest = divmod(action - STEP_BASE, 2 * len(DIRECTIONS))
        (dx, dy), distance = DIRECTIONS[rest // 2], rest % 2 + 1
        x, y = SQUARES[start]
        return (x, y), (x + dx * distance, y + dy * distance)

    def more_planes(self, turn: Turn) -> list[Tensor | float]:
        """Whose turn it is, then whether the placing phase goes on."""
        placing = 1.0 if turn.state.ply < PLACEMENTS else 0.0
        return [*super().more_planes(turn), placing]
