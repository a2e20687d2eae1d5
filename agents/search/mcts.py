"""`mcts`: Monte Carlo tree search (UCT) under the clock, with random or heuristic playouts.

Each iteration walks down the tree by UCB1 (the child whose win rate plus exploration bonus
`c * sqrt(ln N / n)` is highest, from the point of view of the seat choosing there), adds one
untried move as a new leaf, plays the game on from it, and credits the result to every node on
the way back. Where the game's evaluation can order moves (`order`, or `parts`), a node opens its
children best first and only as its visits grow (progressive widening), so a wide position is
searched deep along its likely moves instead of one playout per move; where a move comes in
parts (`Evaluation.parts`: Amazons' amazon, destination, arrow), the tree branches on each part.
When the time is up the most visited root move is the answer: visits are a steadier judge than
win rates, which a lucky few playouts can inflate. A playout watches the clock too (a random
Shobu game is long): one cut short by the deadline is dropped.

Playouts run through `State.random_playout`, which draws moves with `State.random_move` (which a
game can make cheap: Amazons draws an amazon, a square, an arrow instead of listing 2000 moves)
and which a game with a compiled kernel runs whole in C. A playout is played in slices of a few
plies between looks at the clock, the slice growing while it takes less than `PLAYOUT_SLICE`
seconds: a compiled playout then runs in one call, a slow pure-Python one still stops near the
deadline. Two kinds:

- random: play on to the end; a playout still going after `MAX_PLAYOUT_PLIES` is judged by
  the evaluation instead (War of Life's 250 moves, Watch Your Back!'s shrinks take that long);
- heuristic: play `cutoff` random moves, then squash the game's evaluation into a winning
  chance, `1 / (1 + exp(-score / scale))`: far less noise per playout for games whose random
  endings say little about the position (Amazons, Shobu).

Where the game's kernel and its compiled searches are built and the evaluation is the game's
own, the whole search of a move runs in C (agents/native/uct.h's `Tree`, on the rules kernel's
playouts), without the interpreter lock, until the deadline: the same algorithm, with its random
numbers from splitmix64 seeded once a move from this agent's generator. Its tree is this one on
`mcts_reference.SplitMix64`: given a seed and a number of iterations, both end with the same
visits and wins (tests/agents/test_native_tree.py). The Python tree here runs where nothing is
compiled (`ARBITER_PURE_PYTHON=1`, or no compiler) or for a caller's `evaluation=`.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Protocol, cast

from arbiter.agents.evaluation import Evaluation, evaluation_for, outcome_value
from arbiter.agents.search import clock
from arbiter.agents.search.alphabeta import compiled_search
from arbiter.games import Game, Seat, State

EXPLORATION = 1.4
"""UCB1's c: about sqrt(2), the textbook value for rewards in [0, 1]."""
HEURISTIC_EXPLORATION = 0.4
"""UCB1's c for heuristic playouts: their rewards are graded chances, mostly near 0.5, not wins
and losses, so the textbook bonus would swamp their differences and spread the search evenly."""
MAX_PLAYOUT_PLIES = 400
DEFAULT_CUTOFF = 1
"""Random moves a heuristic playout makes before judging the position: one, for a little noise
against the evaluation's blind spots (at Amazons, 2 and 4 did no better against alphabeta in
short trials, and cost playouts)."""
PLAYOUT_SLICE = 0.001
"""Seconds of playout between two looks at the clock, about: what a playout may overrun the
deadline by, against a call into the rules per slice."""
WIDENING = 1.0
WIDENING_BASE = 2.0
"""Progressive widening: a node holds `WIDENING_BASE + WIDENING * sqrt(visits)` children."""
FREE_COST = 1e-7
"""Seconds to free one listed move when the search drops its tree, with room to spare. Freeing
happens after the search, so the search stops early enough to leave time for it: in Amazons a
second's tree lists over a million moves."""


MEMORY_LIMIT = 1 << 27
"""Bytes a compiled tree's nodes and listed moves may use (128 MB: a few seconds of the fastest
game's search). A full tree stops growing; its iterations go on, playing out from the leaves."""
FREE_BYTE_COST = 2e-10
"""Seconds to free a byte of a compiled tree, with room to spare (a full tree's 128 MB took 17
ms): the tree is freed before the agent answers, so its search stops early enough for that."""
UNLIMITED = 1 << 62
"""Iterations of a compiled search that only its deadline stops."""


class CompiledTree(Protocol):
    """A game's compiled MCTS tree (agents/native/uct.h's `Tree`): one `choose`."""

    @property
    def stall(self) -> float:
        """The longest iteration in seconds (no clock check runs during one)."""

    def run(self, deadline: float, iterations: int, /) -> int:
        """Iterates until `iterations` are done in all or `deadline` is near; answers how many
        are done."""

    def best(self) -> int:
        """The index in the moves given of the most visited root move."""

    def line(self) -> list[Any]:
        """In parts, the most visited part at each step from the root, as far as grown."""

    def children(self) -> list[tuple[int, int, float]]:
        """(index in the moves given, visits, wins) of each root child, in opening order."""


class CompiledTrees(Protocol):
    """An `arbiter.agents._search_NAME_c` module with a compiled tree."""

    def Tree(
        self,
        state: Any,
        moves: list[Any],
        seed: int,
        exploration: float,
        widening: float | None,
        plies: int,
        scale: float,
        memory_limit: int,
        /,
    ) -> CompiledTree: ...


def compiled_tree(game: Game[Any, Any]) -> CompiledTrees | None:
    """The game's compiled MCTS tree, where its compiled searches are built (each module holds
    alpha-beta's `Search` and this `Tree`); else None (the Python tree runs)."""
    return cast(CompiledTrees | None, compiled_search(game))


class _Node:
    """A position in the tree, or a move in progress. `wins` counts for `mover`, the seat whose
    choice led here.

    In a game whose moves come in parts (`Evaluation.parts`), a node may stand for the first
    parts of a move (`prefix`) chosen in `state`; the node whose last part completes the move
    holds the position after it, with an empty prefix.

    No link back to the parent: an iteration keeps its path in a list instead, so the tree
    holds no reference cycles and is freed the moment the search drops it. The untried choices
    are listed only when the node is first expanded: most leaves never are, and in Amazons a
    list of whole moves is 2000 long, which would cost far more to build, hold and free than
    the playout.
    """

    __slots__ = ("children", "move", "mover", "prefix", "state", "untried", "visits", "wins")

    def __init__(self, state: State[Any], move: Any, mover: Seat, prefix: tuple[Any, ...] = ()):
        self.state = state
        self.move = move
        """The move, or the part of one, chosen to get here."""
        self.mover = mover
        self.prefix = prefix
        self.children: list[_Node] = []
        self.untried: list[Any] | None = None
        """Listed on the node's first expansion, likeliest-best last, for `pop()`."""
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
    """UCT; `cutoff=None` plays random playouts to the end, a number makes them heuristic.

    `widening` (progressive widening) lets a node hold at most `WIDENING_BASE + widening *
    sqrt(visits)` children, opened likeliest-best first; None opens every child before going
    deeper. It needs an order of the choices to pay: a game's evaluation with neither `order`
    nor `parts` gets none.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        seed: int | None = None,
        *,
        cutoff: int | None = None,
        exploration: float | None = None,
        widening: float | None = WIDENING,
        evaluation: Evaluation | None = None,
    ) -> None:
        self._evaluation = evaluation or evaluation_for(game)
        self._parts = self._evaluation.parts
        self._rng = random.Random(seed)
        self.cutoff = cutoff
        default = EXPLORATION if cutoff is None else HEURISTIC_EXPLORATION
        self.exploration = default if exploration is None else exploration
        ordered = self._parts is not None or self._evaluation.order is not None
        self.widening = widening if ordered else None
        self._compiled = None if evaluation is not None else compiled_tree(game)
        self.iterations = 0
        """Playouts of the last `choose`, for tests and benchmarks."""
        self._time = clock.TimeKeeper()
        self._slice_plies = 1
        """Plies a playout plays between looks at the clock: grown and shrunk to take about
        `PLAYOUT_SLICE` seconds, as the game's rules (compiled or not) allow."""
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
        if self._compiled is not None:
            return self._choose_compiled(self._compiled, state, deadline)
        root = _Node(state, None, 1 - state.turn)
        self._listed = 0
        if self._parts is None and len(self._untried(root)) == 1:
            return self._untried(root)[0]
        self.iterations = 0
        try:  # none starts unless freeing the tree after it would still end in time
            while self._time.now() + self._listed * FREE_COST + self._listing < deadline:
                self._iterate(root, deadline)
                self.iterations += 1
        except clock.OutOfTime:
            pass
        return self._answer(root)

    def _choose_compiled(self, module: CompiledTrees, state: State[Any], deadline: float) -> Any:
        """The same search in the game's compiled tree, until the deadline: its random numbers
        come from splitmix64 seeded once from this agent's generator. In parts, the root's
        choices are the first part's."""
        parts = self._parts
        moves = state.legal_moves() if parts is None else parts.choices(state, ())
        if parts is None and len(moves) == 1:
            return moves[0]
        tree = module.Tree(
            state,
            moves,
            self._rng.getrandbits(64),
            self.exploration,
            self.widening,
            self.playout_plies,
            self._evaluation.scale,
            MEMORY_LIMIT,
        )
        self.iterations = tree.run(deadline, UNLIMITED)
        self._time.stalled(tree.stall)
        if parts is None:
            return moves[tree.best()]
        return self._complete(state, tuple(tree.line()))

    @property
    def playout_plies(self) -> int:
        """The most random plies a playout plays before the evaluation judges it."""
        return MAX_PLAYOUT_PLIES if self.cutoff is None else self.cutoff

    def _answer(self, root: _Node) -> Any:
        """The most visited move; in parts, the most visited part at each step, and where the
        tree stops short of a whole move (no time to grow it), the likeliest-best part."""
        if self._parts is None:
            if not root.children:  # no time for one playout: any legal move beats none
                return self._untried(root)[-1]
            return max(root.children, key=lambda child: child.visits).move
        node = root
        chosen: tuple[Any, ...] = ()
        while len(chosen) < self._parts.count and node.children:
            node = max(node.children, key=lambda child: child.visits)
            chosen += (node.move,)
        return self._complete(root.state, chosen)

    def _complete(self, state: State[Any], chosen: tuple[Any, ...]) -> tuple[Any, ...]:
        """The parts `chosen` in `state` completed to a move by the likeliest-best part at each
        step left."""
        assert self._parts is not None
        while len(chosen) < self._parts.count:
            options = self._parts.choices(state, chosen)
            self._parts.order(state, chosen, options)
            chosen += (options[0],)
        return chosen

    def _untried(self, node: _Node) -> list[Any]:
        if node.untried is None:
            started = time.perf_counter()
            parts, order = self._parts, self._evaluation.order
            if parts is None:
                options = node.state.legal_moves()
            else:
                options = parts.choices(node.state, node.prefix)
            self._rng.shuffle(options)  # equals then come in a seeded random order
            if parts is not None:
                parts.order(node.state, node.prefix, options)
            elif order is not None and self.widening is not None:
                order(node.state, options)
            options.reverse()
            node.untried = options
            self._listed += len(options)
            self._listing = max(self._listing, time.perf_counter() - started)
        return node.untried

    def _width(self, node: _Node) -> float:
        """How many children `node` may have now."""
        if self.widening is None:
            return math.inf
        return WIDENING_BASE + self.widening * math.sqrt(node.visits)

    def _child(self, node: _Node, choice: Any) -> _Node:
        mover = node.state.turn
        if self._parts is None:
            return _Node(node.state.play(choice), choice, mover)
        chosen = (*node.prefix, choice)
        if len(chosen) < self._parts.count:
            return _Node(node.state, choice, mover, chosen)
        return _Node(node.state.play(chosen), choice, mover)

    def _position(self, node: _Node) -> State[Any]:
        """The node's position, a move in progress completed at random (for its playout)."""
        if not node.prefix or self._parts is None:
            return node.state
        chosen, choices = node.prefix, self._parts.choices
        while len(chosen) < self._parts.count:
            chosen = (*chosen, self._rng.choice(choices(node.state, chosen)))
        return node.state.play(chosen)

    def _iterate(self, root: _Node, deadline: float) -> None:
        """One selection, expansion, playout and backup; `OutOfTime` leaves the tree as it was."""
        node, path = root, [root]
        while True:
            untried = self._untried(node)
            if (untried and len(node.children) < self._width(node)) or not node.children:
                break
            node = node.best_child(self.exploration)
            path.append(node)
        if untried:
            choice = untried[-1]
            child = self._child(node, choice)
            chance = self._playout(self._position(child), deadline)
            untried.pop()
            node.children.append(child)
            path.append(child)
        else:  # a finished game: its result needs no playout
            chance = self._playout(node.state, deadline)
        for node in path:
            node.visits += 1
            node.wins += chance if node.mover == 0 else 1.0 - chance

    def _resize_slice(self, took: float) -> None:
        """Doubles or halves the slice after one that took `took` seconds, toward
        `PLAYOUT_SLICE`."""
        if took < PLAYOUT_SLICE / 2:
            self._slice_plies = min(2 * self._slice_plies, MAX_PLAYOUT_PLIES)
        elif took > PLAYOUT_SLICE:
            self._slice_plies = max(self._slice_plies // 2, 1)

    def _playout(self, state: State[Any], deadline: float) -> float:
        """Seat 0's winning chance from `state`: 1, 0.5 or 0 for a finished game."""
        rng = self._rng
        plies = self.playout_plies
        while plies > 0 and state.outcome() is None:
            started = self._time.now()
            if started > deadline:
                raise clock.OutOfTime
            played = min(self._slice_plies, plies)
            state = state.random_playout(rng, played)
            plies -= played
            self._resize_slice(self._time.now() - started)
        return self._judge(state)

    def _judge(self, state: State[Any]) -> float:
        """Seat 0's winning chance in a playout's last position: the result if it has finished,
        else the evaluation squashed into a chance."""
        outcome = state.outcome()
        if outcome is not None:
            return (1.0 + outcome_value(outcome, 0)) / 2.0
        score = self._evaluation.evaluate(state, 0) / self._evaluation.scale
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, score))))
