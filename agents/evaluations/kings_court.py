"""King's Court: material, and above all the Court.

A player loses the moment their last Court piece goes, so Court pieces are worth far more than
others, and the first ones most: the drop from two to one is the drop from safe to one capture
from defeat. A Court piece an opposing piece can jump right now is half lost already when that
opponent is to move, and a threat of ours matters little when they can answer it first.

Threats are found for every piece at once with shifted bitboards: a piece can be jumped along a
line when an enemy stands on one side of it and the other side is empty (one jump only; the
search sees the chains). Where the game's kernel is built, `jumpable` runs in it (the same
bitboard; the function here stays the reference, and tests/agents/test_native_evaluations.py
compares the two).
"""

from __future__ import annotations

from arbiter.agents.evaluation import Evaluation
from arbiter.games import Seat
from arbiter.games.kings_court import (
    COURT,
    COURT_RULE_FROM_PLY,
    FILE_A,
    FULL,
    KERNEL,
    KingsCourtState,
    Move,
)

PIECE = 100.0
COURT_WORTH = (0.0, 90.0, 150.0, 185.0, 205.0, 215.0, 220.0)
"""Worth of holding n Court pieces (n capped at 6): each more is worth less than the last."""
THREAT_TO_MOVER = 15.0
"""A piece of the side to move that could be jumped: it can usually step away or cover."""
THREAT_TO_WAITER = 70.0
"""A piece of the side not to move that could be jumped: likely lost on the next move."""

_NOT_FILE_A = FULL & ~FILE_A
_NOT_FILE_H = FULL & ~(FILE_A << 7)


def jumpable(victims: int, attackers: int, empty: int) -> int:
    """The victims with an attacker on one side and an empty square on the other, in a line."""
    west_attacker = (attackers << 1) & _NOT_FILE_A
    east_attacker = (attackers >> 1) & _NOT_FILE_H
    west_empty = (empty << 1) & _NOT_FILE_A
    east_empty = (empty >> 1) & _NOT_FILE_H
    south_attacker, north_attacker = (attackers << 8) & FULL, attackers >> 8
    south_empty, north_empty = (empty << 8) & FULL, empty >> 8
    return victims & (
        west_attacker & east_empty
        | east_attacker & west_empty
        | south_attacker & north_empty
        | north_attacker & south_empty
    )


_jumpable = jumpable if KERNEL is None else KERNEL.jumpable
"""The threat finder the evaluation uses: compiled where the kernel is built."""


def _court_worth(pieces: int) -> float:
    return COURT_WORTH[min((pieces & COURT).bit_count(), len(COURT_WORTH) - 1)]


def evaluate(state: KingsCourtState, seat: Seat) -> float:
    mine, theirs = (state.black, state.white) if seat else (state.white, state.black)
    empty = FULL & ~(mine | theirs)
    score = PIECE * (mine.bit_count() - theirs.bit_count())
    score += _court_worth(mine) - _court_worth(theirs)
    mine_hit = _jumpable(mine, theirs, empty)
    theirs_hit = _jumpable(theirs, mine, empty)
    if state.turn == seat:
        mine_weight, theirs_weight = THREAT_TO_MOVER, THREAT_TO_WAITER
    else:
        mine_weight, theirs_weight = THREAT_TO_WAITER, THREAT_TO_MOVER
    # A threatened Court piece counts twice: it is material and a step toward losing the Court.
    score -= mine_weight * (mine_hit.bit_count() + (mine_hit & COURT).bit_count())
    score += theirs_weight * (theirs_hit.bit_count() + (theirs_hit & COURT).bit_count())
    return score


_SLIDE_STEPS = frozenset((1, -1, 8, -8))


def order(state: KingsCourtState, moves: list[Move]) -> None:
    """Jumps that capture most first, then other jumps, then slides (their order kept).

    A jump captures the opposing pieces it passes over: the midpoints of its steps. Slides
    are told apart first with one cheap test each, since most moves are slides.
    """
    jumps = [move for move in moves if len(move) > 2 or move[1] - move[0] not in _SLIDE_STEPS]
    if not jumps:
        return
    theirs = state.white if state.turn else state.black

    def captures(move: Move) -> int:
        taken = 0
        for i in range(1, len(move)):
            taken |= 1 << ((move[i - 1] + move[i]) >> 1)
        return (taken & theirs).bit_count()

    jumps.sort(key=captures, reverse=True)
    slides = [move for move in moves if len(move) == 2 and move[1] - move[0] in _SLIDE_STEPS]
    moves[:] = [*jumps, *slides]


def quick_result(state: KingsCourtState) -> float | None:
    """The rules' two ends that need no move list, in the rules' order: the side to move has
    no Court piece left (a loss), or the no-capture limit has passed (a double forfeit)."""
    if state.moves_played >= COURT_RULE_FROM_PLY and not state.pieces(state.turn) & COURT:
        return -1.0
    return 0.0 if state.since_capture > state.no_capture_limit else None


EVALUATION = Evaluation(evaluate, scale=150.0, order=order, quick_result=quick_result)
