"""Shobu: the per-board balance of the original rules' evaluation, with a quadratic sum.

The game is lost on the weakest board, not on the total, so each of the four boards is scored
alone and the scores are summed as signed squares: one board where the opponent is down to one
stone outweighs a small lead spread over all four. Per board, as the seed describes it:

- ahead (more stones than the opponent there): the lead, plus more the fewer stones the
  opponent has left there (4 minus their count);
- behind: the mirror image, the deficit plus how few of our own stones are left;
- level: a small edge to the side to move, growing with the stones on the board (the seed's
  "if White's turn, increase score based on how many pieces are in that board").

Where the game's kernel is built, `balance` runs in it (the same sum; the function here stays the
reference, and tests/agents/test_native_evaluations.py compares the two).
"""

from __future__ import annotations

from arbiter.agents.evaluation import Evaluation
from arbiter.games import Seat
from arbiter.games.shobu import BOARD_MASK, KERNEL, PATH, ShobuState

UNIT = 10.0
"""Score of a board term of 1 (its square is 1)."""
TEMPO = 0.1
"""Per stone on a level board, for the side to move: less than a stone's worth in all."""


def _board_term(mine: int, theirs: int, my_turn: bool, tempo: float) -> float:
    lead = mine - theirs
    if lead > 0:
        return lead + (4 - theirs)
    if lead < 0:
        return lead - (4 - mine)
    return tempo * (mine + theirs) if my_turn else -tempo * (mine + theirs)


def balance(mine: int, theirs: int, my_turn: bool, tempo: float) -> float:
    """Each board's term for `mine`, summed as signed squares."""
    total = 0.0
    for mask in BOARD_MASK:
        term = _board_term((mine & mask).bit_count(), (theirs & mask).bit_count(), my_turn, tempo)
        total += term * abs(term)
    return total


_balance = balance if KERNEL is None else KERNEL.balance
"""The sum the evaluation uses: compiled where the kernel is built."""


def evaluate(state: ShobuState, seat: Seat) -> float:
    mine, theirs = (state.white, state.black) if seat else (state.black, state.white)
    return UNIT * _balance(mine, theirs, state.turn == seat, TEMPO)


def order(state: ShobuState, moves: list[tuple[int, int, int, int]]) -> None:
    """Turns whose aggressive half pushes a stone first; the rules list the rest in order."""
    theirs = state.black if state.turn else state.white

    def pushes(move: tuple[int, int, int, int]) -> bool:
        _, aggressive, direction, distance = move
        return bool(PATH[direction * 2 + distance - 1][aggressive] & theirs)

    moves.sort(key=pushes, reverse=True)


def quick_result(state: ShobuState) -> float | None:
    """The rules' ends that need no move list: a board cleared of one side's stones, or the
    no-capture limit reached (a draw)."""
    cleared = state.cleared_board()
    if cleared is not None:
        return -1.0 if cleared[0] == state.turn else 1.0
    return 0.0 if state.since_capture >= state.no_capture_limit else None


EVALUATION = Evaluation(evaluate, scale=6 * UNIT, order=order, quick_result=quick_result)
