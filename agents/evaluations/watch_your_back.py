"""Watch Your Back!: material, pieces in danger, and the shrinking board.

Material decides the game (under 2 pieces loses), so a piece is worth 100 and everything else is
a fraction of it:

- danger: a piece with a hostile square (enemy or corner) on one side and, on the other side, a
  square an enemy can reach next turn (place on, slide or jump to) is likely lost when the enemy
  moves next, hardly at all when we move first and can step away;
- the shrinking board: a piece standing where the next shrink removes squares or makes a corner
  is lost when it comes, so as the shrink draws near such a piece is worth less and less, until
  at the shrink it is worth nothing;
- the centre: inner squares are safe from shrinks and from corners, so they earn a little.

Squares are bits `8 * row + column`, so every feature is a few shifted bitboards, no loops.
Where the game's kernel is built, `reach` and `in_danger` run in it (the same bitboards; the
functions here stay the reference, and tests/agents/test_native_evaluations.py compares the two).
"""

from __future__ import annotations

from arbiter.agents.evaluation import Evaluation
from arbiter.games import Seat
from arbiter.games.watch_your_back import (
    BLOCKED,
    CORNERS,
    KERNEL,
    OFF_BOARD,
    PLACEMENTS,
    SHRINK_AFTER,
    SIZE,
    ZONES,
    WatchYourBackState,
)

PIECE = 100.0
DANGER_WAITING = 60.0
"""A piece in danger when the enemy moves next."""
DANGER_MOVING = 10.0
"""A piece in danger when its owner moves next (it may step away)."""
DOOM = 90.0
"""What a piece on a square the next shrink takes is worth less, once the shrink has come."""
DOOM_HORIZON = 24
"""Moves before a shrink from which doomed pieces start losing worth."""
CENTRE = (0.0, 3.0, 6.0, 8.0)
"""By ring (0 the edge, 3 the centre)."""

FULL = (1 << SIZE * SIZE) - 1
_COLUMN_0 = sum(1 << (SIZE * row) for row in range(SIZE))
_NOT_COLUMN_0 = FULL & ~_COLUMN_0
_NOT_COLUMN_7 = FULL & ~(_COLUMN_0 << SIZE - 1)


def _east(bits: int) -> int:
    return (bits << 1) & _NOT_COLUMN_0


def _west(bits: int) -> int:
    return (bits >> 1) & _NOT_COLUMN_7


def _south(bits: int) -> int:
    return (bits << SIZE) & FULL


def _north(bits: int) -> int:
    return bits >> SIZE


_SHIFTS = ((_east, _west), (_west, _east), (_south, _north), (_north, _south))
"""Pairs of opposite shifts: a square's neighbour one way, and the square beyond the other way."""


def _ring_masks() -> tuple[int, ...]:
    rings = [0, 0, 0, 0]
    for square in range(SIZE * SIZE):
        column, row = square % SIZE, square // SIZE
        rings[min(column, row, SIZE - 1 - column, SIZE - 1 - row)] |= 1 << square
    return tuple(rings)


RINGS = _ring_masks()
DOOMED = tuple(BLOCKED[shrinks] & ~OFF_BOARD for shrinks in (1, 2))
"""Squares the first and second shrink take (removed or turned into corners)."""
SHRINK_AT = tuple(sorted(SHRINK_AFTER))


def arrivals(state: WatchYourBackState, seat: Seat) -> int:
    """Squares `seat` could put a piece on with its next move (a placement, slide or jump)."""
    free = FULL & ~(state.white | state.black)
    if state.ply < PLACEMENTS:
        return free & ZONES[seat]
    pieces = state.black if seat else state.white
    return _reach(pieces, state.white | state.black, free & ~BLOCKED[state.shrinks])


def reach(pieces: int, occupied: int, open_squares: int) -> int:
    """The open squares `pieces` reach with one slide, or one jump over an occupied square."""
    reached = 0
    for step, _ in _SHIFTS:
        reached |= step(pieces) & open_squares
        reached |= step(step(pieces) & occupied) & open_squares
    return reached


def in_danger(pieces: int, hostile: int, enemy_arrivals: int) -> int:
    """Pieces flanked on one side by `hostile` with an enemy able to arrive on the other side."""
    danger = 0
    for step, back in _SHIFTS:
        danger |= step(hostile) & back(enemy_arrivals)
    return pieces & danger


_reach = reach if KERNEL is None else KERNEL.reach
_in_danger = in_danger if KERNEL is None else KERNEL.in_danger
"""The features the evaluation uses: compiled where the kernel is built."""


def _centre(pieces: int) -> float:
    edge, outer, inner, centre = RINGS
    return (
        CENTRE[0] * (pieces & edge).bit_count()
        + CENTRE[1] * (pieces & outer).bit_count()
        + CENTRE[2] * (pieces & inner).bit_count()
        + CENTRE[3] * (pieces & centre).bit_count()
    )


def _doom(state: WatchYourBackState) -> tuple[int, float]:
    """(squares the next shrink takes, the share of worth a piece there has lost by now)."""
    moved = state.ply - PLACEMENTS
    for shrinks, at in enumerate(SHRINK_AT):
        if moved < at and state.shrinks == shrinks:
            left = at - max(moved, 0)
            return DOOMED[shrinks], max(0.0, 1.0 - left / DOOM_HORIZON)
    return 0, 0.0


def evaluate(state: WatchYourBackState, seat: Seat) -> float:
    mine, theirs = (state.black, state.white) if seat else (state.white, state.black)
    corners = CORNERS[state.shrinks]
    score = PIECE * (mine.bit_count() - theirs.bit_count()) + _centre(mine) - _centre(theirs)
    mine_hit = _in_danger(mine, theirs | corners, arrivals(state, 1 - seat)).bit_count()
    theirs_hit = _in_danger(theirs, mine | corners, arrivals(state, seat)).bit_count()
    if state.turn == seat:
        score += DANGER_WAITING * theirs_hit - DANGER_MOVING * mine_hit
    else:
        score += DANGER_MOVING * theirs_hit - DANGER_WAITING * mine_hit
    doomed, share = _doom(state)
    if share:
        lost = (mine & doomed).bit_count() - (theirs & doomed).bit_count()
        score -= DOOM * share * lost
    return score


EVALUATION = Evaluation(evaluate, scale=150.0)
