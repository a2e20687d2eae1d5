"""War of Life: one action per move, `source * 8 + direction`, 512 in all.

The direction of the step is numbered from north (toward rank 8) clockwise: n, ne, e, se, s,
sw, w, nw. The tensor is the planes the game's boards name (blue's pieces, red's) and a plane of
ones when blue moves, each 8x8 with row 0 the top row (rank 8), as the board is drawn.
"""

from __future__ import annotations

from arbiter.bridges.encoding import Encoding
from arbiter.games.war_of_life import Move

SIZE = 8
STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""(file step, rank step) of each direction, in action order."""


class WarOfLifeEncoding(Encoding):
    game_name = "war-of-life"
    num_actions = SIZE * SIZE * len(STEPS)
    tensor_shape = (3, SIZE, SIZE)

    def tokens(self, move: Move) -> tuple[int, ...]:
        step = (move.target % SIZE - move.source % SIZE, move.target // SIZE - move.source // SIZE)
        return (move.source * len(STEPS) + STEPS.index(step),)

    def move_of_action(self, action: int) -> Move:
        source, direction = divmod(action, len(STEPS))
        file_step, rank_step = STEPS[direction]
        return Move(source, source + file_step + SIZE * rank_step)
