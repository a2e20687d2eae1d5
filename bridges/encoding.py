"""How a game's moves become integer actions and its positions become tensors.

OpenSpiel and PettingZoo both speak in actions numbered 0..N-1 and observations as arrays; our
games speak in move objects and states. An `Encoding` is the translation for one game. A move is
one or more actions (its *tokens*): a flat index over the game's move space is one token, and
Amazons is three (OpenSpiel's own sub-actions). Between the tokens of one move the mover stays
the same and the position is a `Turn`: the state plus the tokens chosen so far.

The legal actions of a `Turn` come from the legal moves of its state: the next token of every
legal move whose tokens begin with the pending ones. That keeps one source of truth (the rules
in games/) and asks of an encoding only that no move's tokens are a prefix of another's.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from arbiter.games import Boards, Game, Outcome, State, get_game

Tensor = npt.NDArray[np.float32]


class Encoding(ABC):
    """The actions and observations of one game, fixed so trained policies stay valid."""

    game_name: ClassVar[str]
    num_actions: ClassVar[int]
    """Actions are 0..num_actions-1."""
    max_tokens: ClassVar[int] = 1
    """Most actions one move takes."""
    decisions: ClassVar[int] = 1
    """Actions with a choice a move usually takes: how many parts a bot splits a move's time
    into (a forced action takes none)."""
    tensor_shape: ClassVar[tuple[int, ...]]

    @functools.cached_property
    def game(self) -> Game[Any, Any]:
        return get_game(self.game_name)

    @abstractmethod
    def tokens(self, move: Any) -> tuple[int, ...]:
        """The actions that make `move`, in the order they are taken."""

    def tensor(self, turn: Turn) -> Tensor:
        """The position (and the pending tokens, where a move takes several) as an array: the
        planes the game's description of its boards names (`board_planes`), then the
        encoding's own (`more_planes`)."""
        pieces = board_planes(self.game.boards, self.shown_data(turn))
        more = self.more_planes(turn)
        if not more:
            return pieces
        shape = pieces.shape[1:]
        extra = [np.broadcast_to(plane, shape) for plane in more]
        return np.concatenate([pieces, np.stack(extra).astype(np.float32)])

    def shown_data(self, turn: Turn) -> dict[str, Any]:
        """The data form of the position the planes show."""
        data: dict[str, Any] = turn.state.to_data()
        return data

    def more_planes(self, turn: Turn) -> list[Tensor | float]:
        """Planes after the board's, each an array of the boards' shape or one number for
        every square: by default a plane of ones when the first seat moves."""
        return [1.0 if turn.state.turn == 0 else 0.0]

    def observation_string(self, turn: Turn) -> str:
        """The picture `render()` draws, and the actions chosen toward the move, if any."""
        picture: str = turn.state.render()
        if not turn.pending:
            return picture
        chosen = " ".join(self.action_name(action) for action in turn.pending)
        return f"{picture}\nchosen so far: {chosen}"

    def action_name(self, action: int) -> str:
        """An action in words: a whole move's notation, or a part of one."""
        return self.game.format_move(self.move_of_action(action))

    def move_of_action(self, action: int) -> Any:
        """The move a one-token action stands for; sub-action encodings name parts instead."""
        raise NotImplementedError

    # -- what a Turn asks, answered from the rules -------------------------------------------

    def legal_actions(self, turn: Turn) -> list[int]:
        """The next token of every legal move that begins with the pending ones, ascending."""
        return _table(self, turn.state).following.get(turn.pending, [])

    def advance(self, turn: Turn, action: int) -> Turn:
        """The turn after `action`: the next position once it completes a move."""
        tokens = (*turn.pending, action)
        table = _table(self, turn.state)
        move = table.moves.get(tokens)
        if move is not None:
            return Turn(turn.state.play(move))
        if tokens not in table.following:
            raise ValueError(f"action {action} is not legal here")
        return Turn(turn.state, tokens)

    def move_of(self, state: State[Any], tokens: tuple[int, ...]) -> Any:
        """The legal move these tokens make in `state`, or ValueError."""
        move = _table(self, state).moves.get(tokens)
        if move is None:
            raise ValueError(f"actions {list(tokens)} make no legal move here")
        return move


@dataclass(frozen=True, slots=True)
class Turn:
    """A position and the tokens chosen so far toward its next move (empty between moves)."""

    state: Any
    """One `State` of the encoding's game (typed `Any` so each encoding reads its own kind)."""
    pending: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class _Table:
    following: dict[tuple[int, ...], list[int]]
    """Pending tokens -> the tokens that may come next, ascending."""
    moves: dict[tuple[int, ...], Hashable]
    """A legal move's whole tokens -> the move."""


@functools.lru_cache(maxsize=4096)
def _table(encoding: Encoding, state: State[Any]) -> _Table:
    """Every legal move of `state` by its tokens. Cached: a search asks again and again (states
    are values, so a cached table never goes stale)."""
    following: dict[tuple[int, ...], set[int]] = {}
    moves: dict[tuple[int, ...], Hashable] = {}
    for move in state.legal_moves():
        tokens = encoding.tokens(move)
        moves[tokens] = move
        for index, token in enumerate(tokens):
            following.setdefault(tokens[:index], set()).add(token)
    return _Table({prefix: sorted(nexts) for prefix, nexts in following.items()}, moves)


def forget_tables() -> None:
    """Drop the cached tables: a search calls it as it ends, so that the collector never walks
    them (they hold thousands of objects; the next search makes its own)."""
    _table.cache_clear()


def planes(boards: list[int], squares: int) -> Tensor:
    """Bitboards as 0/1 rows of `squares` cells, bit i in column i, one row per bitboard."""
    raw = b"".join(board.to_bytes((squares + 7) // 8, "little") for board in boards)
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    return bits.reshape(len(boards), -1)[:, :squares].astype(np.float32)


def top_row_first(boards: list[int], size: int) -> Tensor:
    """Bitboards of a `size` x `size` board numbered from its bottom row (`column + size * row`)
    as planes with the top row first, as the game's `render()` draws the board."""
    cells = planes(boards, size * size).reshape(len(boards), size, size)
    return np.ascontiguousarray(cells[:, ::-1, :])


def board_planes(boards: Boards, data: Mapping[str, Any]) -> Tensor:
    """One 0/1 plane per character `boards.planes` names, marking the squares holding it, over
    the grids in `boards.plane_grids` order (a single grid's planes are 2-D)."""
    grids = [boards.grids[index].cells(data) for index in boards.plane_grids]
    if boards.planes_bottom_up:
        grids = [rows[::-1] for rows in grids]
    cells = np.array([[list(row) for row in rows] for rows in grids])
    if len(grids) == 1:
        cells = cells[0]
    return np.stack([cells == char for char in boards.planes]).astype(np.float32)


def returns(outcome: Outcome | None) -> list[float]:
    """Each seat's return: win 1, loss -1, draw 0, a double forfeit -1 for both."""
    if outcome is None:
        return [0.0, 0.0]
    return [2.0 * outcome.score(seat) - 1.0 for seat in (0, 1)]
