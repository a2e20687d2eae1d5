"""Static evaluations of a position from one seat's point of view (positive is good for it).

They live beside the agents, not in `games/`: the rules say what is legal, never what is wise.
Each game's evaluation is a module of `agents/evaluations/` defining `EVALUATION`; this module
finds it by the game's name, so the search agents never branch on a game.

Scores share one scale across games so the search can mix them with results: a finished game
is worth `WIN` (times the points difference), and an evaluation stays well inside `HEURISTIC`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arbiter.games import Game, Outcome, Result, Seat, State

WIN = 1_000_000.0
"""A won game. The search shades it by the plies taken, so a quicker win scores higher."""
HEURISTIC = 100_000.0
"""No evaluation reaches this; a score beyond it is a result the search has proved."""

Evaluate = Callable[[Any, Seat], float]
"""`evaluate(state, seat)`: how good an unfinished position is for `seat`."""


@dataclass(frozen=True, slots=True)
class MoveParts:
    """How to choose a game's move one part at a time, for a tree that branches on parts.

    An Amazons move is an amazon, its destination and its arrow: some 2000 moves a position, but
    a few, a few dozen and a few dozen choices one after another. MCTS branches on the parts, so
    a node lists a few dozen choices instead of every move, and its statistics are shared by
    every move starting the same way (the amazon worth moving, then where).
    """

    count: int
    """Parts in a move; a move is the tuple of its parts."""
    choices: Callable[[Any, tuple[Any, ...]], list[Any]]
    """`choices(state, prefix)`: the next part's options after the parts `prefix`, each of
    which completes to a legal move. Cheap: random playouts complete moves with it."""
    order: Callable[[Any, tuple[Any, ...], list[Any]], None]
    """`order(state, prefix, options)`: sorts the options likeliest-best first, in place."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A game's evaluation and what an agent needs to read its numbers.

    `scale` is the advantage worth about a 3-to-1 chance of winning: MCTS squashes scores
    through it into win probabilities. `order`, when a game has one, sorts a position's moves
    likeliest-best first (captures before quiet moves, the rest kept in the order they came):
    alpha-beta prunes most when the best move comes first. `quick_result`,
    when a game has one, stands in for `outcome()` at the search's horizon, where it is called
    for every leaf: it sees the ends that need no move generation, and leaves "no legal move"
    to the next deeper search (listing the moves to find that out costs more than the rest of
    the leaf together in King's Court and Shobu).
    """

    evaluate: Evaluate
    scale: float
    order: Callable[[Any, list[Any]], None] | None = None
    """Sorts the list in place."""
    quick_result: Callable[[Any], float | None] | None = None
    """The result for the side to move (1, 0 or -1) of an end seen cheaply, else None."""
    parts: MoveParts | None = None
    """For a game whose moves are made of parts, how to choose them one by one."""


_MODULES = {
    "kings-court": "arbiter.agents.evaluations.kings_court",
    "watch-your-back": "arbiter.agents.evaluations.watch_your_back",
    "war-of-life": "arbiter.agents.evaluations.war_of_life",
    "amazons": "arbiter.agents.evaluations.amazons",
    "shobu": "arbiter.agents.evaluations.shobu",
}


def material(state: State[Any], seat: Seat) -> float:
    """My pieces minus theirs, for games whose states count pieces; 0 for the others."""
    count = getattr(state, "piece_count", None)
    if count is None:
        return 0.0
    return float(count(seat) - count(1 - seat))


MATERIAL = Evaluation(lambda state, seat: 100.0 * material(state, seat), scale=100.0)
"""The fallback for a game without an evaluation module: a piece is worth 100."""


def evaluation_for(game: Game[Any, Any]) -> Evaluation:
    """The game's own evaluation, loaded on first use; material for a game without one."""
    module_name = _MODULES.get(game.name)
    if module_name is None:
        return MATERIAL
    evaluation: Evaluation = importlib.import_module(module_name).EVALUATION
    return evaluation


def outcome_value(outcome: Outcome, seat: Seat) -> float:
    """A finished game for `seat`: its points minus the opponent's, so 1, 0 or -1.

    A double forfeit (King's Court's no-capture rule) scores 0 for both, so it is worth a draw
    here: as bad as a loss for a player ahead, as good as a draw for one behind.
    """
    if outcome.result is Result.WIN:
        return 1.0 if outcome.winner == seat else -1.0
    return 0.0


def result(state: State[Any]) -> float | None:
    """The result for the side to move (1, 0 or -1) if the game is over, else None."""
    outcome = state.outcome()
    return None if outcome is None else outcome_value(outcome, state.turn)


def score(state: State[Any], seat: Seat, evaluation: Evaluation) -> float:
    """The position for `seat` on the search's scale: a result if the game is over."""
    outcome = state.outcome()
    if outcome is not None:
        return WIN * outcome_value(outcome, seat)
    return evaluation.evaluate(state, seat)
