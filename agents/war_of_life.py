"""War of Life's four strategies, exactly as the course that set the game defines them.

Every strategy judges a move by the board it leaves after Conway's Crank (`state.play(move)`),
counting pieces only:

- `bloodlust`: fewest opponent pieces;
- `self-preservation`: most of the mover's own pieces;
- `land-grab`: most (own pieces - opponent pieces);
- `minimax`: two plies, the land-grab count after the opponent's best reply.

Ties go to the first move in `WarOfLifeState.legal_moves()` order (by source square, then target
square, both a1, b1, ..., h8), so a game between strategies from a given start is always the
same game: comparing strategies compares them, not luck. None of them searches
under the clock: each looks a fixed depth ahead, which takes milliseconds, so `budget` is unused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arbiter.agents._base import Agent, Registration
from arbiter.games import Game, Seat, State
from arbiter.games.war_of_life import Move, WarOfLifeState

Score = Callable[[WarOfLifeState, Seat], int]
"""How good a board (after the crank) is for a seat: higher is better."""


def bloodlust(board: WarOfLifeState, me: Seat) -> int:
    return -board.piece_count(1 - me)


def self_preservation(board: WarOfLifeState, me: Seat) -> int:
    return board.piece_count(me)


def land_grab(board: WarOfLifeState, me: Seat) -> int:
    return board.piece_count(me) - board.piece_count(1 - me)


def _war_of_life(state: State[Any]) -> WarOfLifeState:
    """The state as a War of Life position: the strategies count its pieces per colour."""
    if not isinstance(state, WarOfLifeState):
        raise TypeError(f"War of Life strategies play War of Life, not {type(state).__name__}")
    return state


@dataclass(frozen=True, slots=True)
class OnePlyStrategy:
    """Bloodlust, self-preservation and land grab: the best board one move ahead by `score`."""

    score: Score

    def choose(self, state: State[Any], budget: float) -> Move:
        """The first move (in legal-move order) whose board after the crank scores highest."""
        position = _war_of_life(state)
        me = position.turn
        best_move, best_score = None, 0
        for move in position.legal_moves():
            score = self.score(position.play(move), me)
            if best_move is None or score > best_score:  # strict: a tie keeps the earlier move
                best_move, best_score = move, score
        if best_move is None:
            raise ValueError("no legal move: the game is over")
        return best_move


@dataclass(frozen=True, slots=True)
class MinimaxStrategy:
    """Two plies of minimax with the land-grab count: my move, then the reply that hurts me most.

    A move after which the opponent cannot move (the game is over, or a stalemate) is scored by
    its own board. Alpha-beta cut-offs skip replies that cannot change the choice: once a move's
    worst reply scores no better than the best move so far, that move can at most tie, and a tie
    goes to the earlier move anyway. So the choice is plain minimax's, tie-break included.
    """

    def choose(self, state: State[Any], budget: float) -> Move:
        """The first move (in legal-move order) whose worst reply leaves the best land grab."""
        position = _war_of_life(state)
        me = position.turn
        best_move, best_score = None, 0
        for move in position.legal_moves():
            floor = None if best_move is None else best_score
            score = _worst_reply(position.play(move), me, floor)
            if best_move is None or score > best_score:
                best_move, best_score = move, score
        if best_move is None:
            raise ValueError("no legal move: the game is over")
        return best_move


def _worst_reply(board: WarOfLifeState, me: Seat, floor: int | None) -> int:
    """The land grab for `me` after the opponent's best reply on `board`.

    Stops as soon as the value is at most `floor` (the best move so far), because from then on
    the exact value no longer matters: the move cannot beat the one already chosen.
    """
    worst = None
    for reply in board.legal_moves():
        score = land_grab(board.play(reply), me)
        if worst is None or score < worst:
            worst = score
            if floor is not None and worst <= floor:
                break
    return land_grab(board, me) if worst is None else worst


def _factory(make: Callable[[], Agent]) -> Callable[[Game[Any, Any], int | None], Agent]:
    """The registry's factory shape; the strategies are deterministic, so the seed is unused."""

    def factory(game: Game[Any, Any], seed: int | None) -> Agent:
        return make()

    return factory


def _strategy(name: str, make: Callable[[], Agent], help: str) -> Registration:
    return Registration(name, _factory(make), f"seed 001: {help}", games=("war-of-life",))


AGENTS: list[Registration] = [
    _strategy(
        "bloodlust",
        lambda: OnePlyStrategy(bloodlust),
        "the move leaving the fewest opponent pieces after the crank",
    ),
    _strategy(
        "self-preservation",
        lambda: OnePlyStrategy(self_preservation),
        "the move leaving the most of its own pieces after the crank",
    ),
    _strategy(
        "land-grab",
        lambda: OnePlyStrategy(land_grab),
        "the move maximising own pieces minus opponent pieces after the crank",
    ),
    _strategy(
        "minimax",
        MinimaxStrategy,
        "two plies of minimax on own minus opponent pieces after each crank",
    ),
]
"""Seed 001's strategies, registered by `agents/__init__.py`."""
