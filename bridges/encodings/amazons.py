"""Amazons as OpenSpiel numbers it, so our states and OpenSpiel's C++ `amazons` interchange.

A move is three actions, OpenSpiel's phases: the amazon's square, the square it moves to, the
square its arrow lands on. Each is a square numbered `row * 10 + column` with row 0 at the top
(rank 10), so our square `file + 10 * rank` is action `(9 - rank) * 10 + file`. The tensor and
the string are OpenSpiel's too: the planes the game's boards name (empty, black, white, arrow)
over the board top row first,
and between the first two actions the chosen amazon is off the board, as OpenSpiel lifts it.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridges.encoding import Encoding, Tensor, Turn
from arbiter.games import State
from arbiter.games._bitboard import squares_of
from arbiter.games.amazons import (
    ARROW_CHAR,
    BIT,
    BLACK_CHAR,
    NEIGHBOURS,
    SIZE,
    SQUARE_NAMES,
    WHITE_CHAR,
    AmazonsState,
    Move,
    reach,
)

SQUARES = SIZE * SIZE
OPENSPIEL_CELLS = str.maketrans(WHITE_CHAR + BLACK_CHAR + ARROW_CHAR, "XO#")
"""Our cells as OpenSpiel's `amazons` writes them (an empty one is `.` in both)."""


def action(square: int) -> int:
    """OpenSpiel's action for our square (the map is its own inverse)."""
    return (SIZE - 1 - square // SIZE) * SIZE + square % SIZE


class AmazonsEncoding(Encoding):
    game_name = "amazons"
    num_actions = SQUARES
    max_tokens = decisions = 3
    tensor_shape = (4, SIZE, SIZE)

    def tokens(self, move: Move) -> tuple[int, ...]:
        return tuple(action(square) for square in move)

    def legal_actions(self, turn: Turn) -> list[int]:
        """Each phase's choices from the rules' own ray scans, not from the whole move list
        (some 2000 moves): a playout asks this three times a move."""
        state: AmazonsState = turn.state
        if state.outcome() is not None:
            return []
        occupied = state.occupied
        if not turn.pending:
            empty = ~occupied
            mine = state.black if state.to_move else state.white
            squares = [s for s in squares_of(mine) if NEIGHBOURS[s] & empty]
        elif len(turn.pending) == 1:
            squares = reach(action(turn.pending[0]), occupied)
        else:
            squares = reach(action(turn.pending[1]), occupied ^ BIT[action(turn.pending[0])])
        return sorted(map(action, squares))

    def advance(self, turn: Turn, token: int) -> Turn:
        if token not in self.legal_actions(turn):
            raise ValueError(f"action {token} is not legal here")
        if len(turn.pending) < 2:
            return Turn(turn.state, (*turn.pending, token))
        src, dst = (action(t) for t in turn.pending)
        return Turn(turn.state.play((src, dst, action(token))))

    def move_of(self, state: State[Any], tokens: tuple[int, ...]) -> Any:
        """The move read off its squares and checked by the rules, not looked up in the whole
        move list: a bot asks this once its time is up."""
        move = tuple(action(token) for token in tokens)
        if len(move) != self.max_tokens or state.why_illegal(move) is not None:
            raise ValueError(f"actions {list(tokens)} make no legal move here")
        return move

    def _boards(self, turn: Turn) -> tuple[int, int, int]:
        """White, black and arrows with the pending part of the move made, as OpenSpiel shows."""
        state: AmazonsState = turn.state
        white, black = state.white, state.black
        mover = BIT[action(turn.pending[0])] if turn.pending else 0
        if len(turn.pending) > 1:
            mover ^= BIT[action(turn.pending[1])]
        if state.to_move:
            return white, black ^ mover, state.arrows
        return white ^ mover, black, state.arrows

    def shown_data(self, turn: Turn) -> dict[str, Any]:
        """The position with the pending part of the move made, as OpenSpiel shows it."""
        return AmazonsState(*self._boards(turn), turn.state.to_move).to_data()

    def more_planes(self, turn: Turn) -> list[Tensor | float]:
        """None: OpenSpiel's planes are the board's alone."""
        return []

    def observation_string(self, turn: Turn) -> str:
        """The game's own rows (`AmazonsState.rows`, top row first) in OpenSpiel's letters."""
        rows = AmazonsState(*self._boards(turn), turn.state.to_move).rows()
        return "\n".join(row.translate(OPENSPIEL_CELLS) for row in rows)

    def action_name(self, token: int) -> str:
        return SQUARE_NAMES[action(token)]
