"""Game of the Amazons: territory and mobility (seed 002, RULINGS.md).

The player who runs out of moves loses, so the game is about space. Two measures, both read from
bitboards with no square-by-square walk:

- territory: every empty square belongs to the side whose amazons reach it in fewer king steps
  (a breadth-first flood of both sides at once, one shifted bitboard per step); squares reached
  at the same step belong to nobody. Late in the game, when the board has split into rooms, this
  is close to the number of moves each side has left.
- mobility: an amazon with few free neighbours is about to be walled in and lose all its moves,
  which territory sees too late; each amazon scores by its free neighbours, the first ones most.
"""

from __future__ import annotations

from arbiter.agents.evaluation import Evaluation
from arbiter.games import Seat
from arbiter.games._bitboard import squares_of
from arbiter.games.amazons import FULL, NEIGHBOURS, AmazonsState, touching

SQUARE = 10.0
"""One square of territory."""
FREEDOM = (-60.0, -25.0, -8.0, 0.0, 4.0, 7.0, 9.0, 10.0, 11.0)
"""Worth of an amazon by its free neighbours (0-8): a trapped amazon is a lost one."""
TEMPO = 0.5
"""Squares both sides reach at once lean this far toward the side to move."""


def territory(mine: int, theirs: int, empty: int) -> tuple[int, int, int]:
    """(squares I reach first, squares they reach first, squares reached at the same step)."""
    reached_mine, reached_theirs = mine, theirs
    front_mine, front_theirs = mine, theirs
    owned_mine = owned_theirs = 0
    while front_mine or front_theirs:
        front_mine = touching(front_mine) & empty & ~reached_mine
        front_theirs = touching(front_theirs) & empty & ~reached_theirs
        owned_mine |= front_mine & ~reached_theirs & ~front_theirs
        owned_theirs |= front_theirs & ~reached_mine & ~front_mine
        reached_mine |= front_mine
        reached_theirs |= front_theirs
    shared = reached_mine & reached_theirs & empty & ~owned_mine & ~owned_theirs
    return owned_mine.bit_count(), owned_theirs.bit_count(), shared.bit_count()


def freedom(amazons: int, empty: int) -> float:
    return sum(FREEDOM[(NEIGHBOURS[square] & empty).bit_count()] for square in squares_of(amazons))


def evaluate(state: AmazonsState, seat: Seat) -> float:
    mine, theirs = (state.black, state.white) if seat else (state.white, state.black)
    empty = FULL & ~(state.white | state.black | state.arrows)
    owned_mine, owned_theirs, shared = territory(mine, theirs, empty)
    lean = TEMPO * shared if state.turn == seat else -TEMPO * shared
    score = SQUARE * (owned_mine - owned_theirs + lean)
    return score + freedom(mine, empty) - freedom(theirs, empty)


EVALUATION = Evaluation(evaluate, scale=8 * SQUARE)
