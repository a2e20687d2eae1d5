"""`mcts`: Monte Carlo tree search (UCT) under the clock, with random or heuristic playouts.

Each iteration walks down the tree by UCB1 (the child whose win rate plus exploration bonus
`c * sqrt(ln N / n)` is highest, from the point of view of the seat choosing there), adds one
untried move as a new leaf, plays the game on from it, and credits the result to every node on
the way back. When the time is up the most visited root move is the answer: visits are a
steadier judge than win rates, which a lucky few playouts can inflate. A playout watches the
clock too (a random Shobu game can take 40 ms): one cut short by the deadline is dropped.

Playouts draw their moves with `State.random_move`, which a game can make cheap (Amazons draws
an amazon, a square, an arrow instead of listing 2000 moves). Two kinds:

- random: play on to the end; a playout still going after `MAX_PLAYOUT_PLIES` is judged by
  the evaluation instead (War of Life's 250 moves, Watch Your Back!'s shrinks take that long);
- heuristic: play `cutoff` random moves, then squash the game's evaluation into a winning
  chance, `1 / (1 + exp(-score / scale))`: far less noise per playout for games whose random
  endings say little about the position (Amazons, Shobu).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from arbiter.agents.evaluation import Evaluation, evaluation_for, outcome_value
from arbiter.agents.search import clock
from arbiter.games import Game, Seat, State

EXPLORATION = 1.4
"""UCB1's c: about sqrt(2), the textbook value for rewards in [0, 1]."""
MAX_PLAYOUT_PLIES = 400
DEFAULT_CUTOFF = 4
"""Random moves a heuristic playout makes before judging the position."""
FREE_COST = 1e-7
"""Seconds to free one listed move when the search drops its tree (measured: 65 ns). Freeing
happens after the search, so the search stops early enough to leave time for it: in Amazons a
second's tree lists over a million moves."""


class _Node:
    """A position in the tree. `wins` counts for `mover`, the seat whose move led here.

    No link back to the parent: an iteration keeps its path in a list instead, so the tree
    holds no reference cycles and is freed the moment the search drops it. The untried moves
    are listed only when the node is first expanded: most leaves never are, and in Amazons a
    list is 2000 moves, which would cost far more to build, hold and free than the playout.
    """

    __slots__ = ("children", "move", "mover", "state", "untried", "visits", "wins")

    def __init__(self, state: State[Any], move: Any):
        self.state = state
        self.move = move
        self.mover: Seat = 1 - state.turn
        self.children: list[_Node] = []
        self.untried: list[Any] | None = None
        """Listed on the node's first expansion, in a random order for `pop()`."""
        self.visits = 0
        self.wins = 0.0

    def best_child(self, exploration: float) -> _Node:
        log_visits = math.log(self.visits)
        best, best_value = self.children[0], -1.0
        for child in self.children:
            value = child.wins / child.visits + exploration * math.sqrt(log_visits / child.visits)
            if value > best_value:
                best, best_value = child, value
        return best


class MCTSAgent:
    """UCT; `cutoff=None` plays random playouts to the end, a number makes them heuristic."""

    def __init__(
        self,
        game: Game[Any, Any],
        seed: int | None = None,
        *,
        cutoff: int | None = None,
        exploration: float = EXPLORATION,
        evaluation: Evaluation | None = None,
    ) -> None:
        self._evaluation = evaluation or evaluation_for(game)
        self._rng = random.Random(seed)
        self.cutoff = cutoff
        self.exploration = exploration
        self.iterations = 0
        """Playouts of the last `choose`, for tests and benchmarks."""
        self._time = clock.TimeKeeper()
        self._listed = 0
        """Moves listed in the tree so far (what freeing it will cost)."""
        self._listing = 0.0
        """The longest one node's moves took to list (no check runs meanwhile): an iteration
        starts only if that much time is left."""

    def choose(self, state: State[Any], budget: float) -> Any:
        with clock.collector_paused():
            move = self._choose(state, budget)  # the tree is freed on its return
        self._time.done()
        return move

    def _choose(self, state: State[Any], budget: float) -> Any:
        deadline = time.perf_counter() + self._time.allot(budget)
        root = _Node(state, None)
        self._listed = 0
        if len(self._untried(root)) == 1:
            return self._untried(root)[0]
        self.iterations = 0
        try:  # none starts unless freeing the tree after it would still end in time
            while self._time.now() + self._listed * FREE_COST + self._listing < deadline:
                self._iterate(root, deadline)
                self.iterations += 1
        except clock.OutOfTime:
            pass
        if not root.children:  # no time for one playout: any legal move beats none
            return self._untried(root)[-1]
        return max(root.children, key=lambda child: child.visits).move

    def _untried(self, node: _Node) -> list[Any]:
        if node.untried is None:
            started = time.perf_counter()
            node.untried = node.state.legal_moves()
            self._rng.shuffle(node.untried)
            self._listed += len(node.untried)
            self._listing = max(self._listing, time.perf_counter() - started)
        return node.untried

    def _iterate(self, root: _Node, deadline: float) -> None:
        """One selection, expansion, playout and backup; `OutOfTime` leaves the tree as it was."""
        node, path = root, [root]
        while not self._untried(node) and node.children:
            node = node.best_child(self.exploration)
            path.append(node)
        untried = self._untried(node)
        if untried:
            move = untried[-1]
            child = _Node(node.state.play(move), move)
            chance = self._playout(child.state, deadline)
            untried.pop()
            node.children.append(child)
            path.append(child)
        else:  # a finished game: its result needs no playout
            chance = self._playout(node.state, deadline)
        for node in path:
            node.visits += 1
            node.wins += chance if node.mover == 0 else 1.0 - chance

    def _playout(self, state: State[Any], deadline: float) -> float:
        """Seat 0's winning chance from `state`: 1, 0.5 or 0 for a finished game."""
        rng = self._rng
        plies = MAX_PLAYOUT_PLIES if self.cutoff is None else self.cutoff
        for _ in range(plies):
            if self._time.now() > deadline:
                raise clock.OutOfTime
            outcome = state.outcome()
            if outcome is not None:
                return (1.0 + outcome_value(outcome, 0)) / 2.0
            state = state.play(state.random_move(rng))
        outcome = state.outcome()
        if outcome is not None:
            return (1.0 + outcome_value(outcome, 0)) / 2.0
        score = self._evaluation.evaluate(state, 0) / self._evaluation.scale
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, score))))
