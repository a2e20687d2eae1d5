"""`alphabeta`: negamax with alpha-beta pruning, iterative deepening under the clock.

The search deepens one ply at a time until the deadline (see `clock`), and answers with the best
move of the deepest search it finished, or of the unfinished one when it has already found a
better move than the last finished search did (that move was searched at the greater depth).
Depth 1 always finishes when there is any time at all; before it, the first legal move stands.

Pruning works best when the best move is tried first, so every node orders its moves:

1. the move a transposition table remembers as best here from an earlier, shallower search
   (the table is keyed by `State.key()` and made afresh for each move: kept across a game it
   grows large, and the garbage collector's full passes over it cost more than it saves);
2. the two "killer" moves that last refuted a sibling position at the same ply;
3. the rest in the game's own static order (captures first) when it has one, and among equals
   by a history score that grows every time a move causes a cut-off anywhere in the tree.

Moves after the first are searched with a null window (principal variation search): most only
need proving no better than the best so far, which is cheaper than finding their exact score.

The deepening, the root's order and the clock's policy are Python's (`AlphaBetaAgent`,
`_Search`); an iteration over the root moves and the search below them, where nearly all the
nodes are, a game with a compiled search runs in C (agents/native/NAME.c, the engine
agents/native/negamax.h written once for all games), one call an iteration: it makes the
same choices as `_Tree` here, which stays the readable reference, and computes the same scores,
so a fixed-depth search answers the same move, score, depth and node count on both paths
(tests/agents/test_native_search.py). The compiled search runs when the game's kernel is loaded
(`ARBITER_PURE_PYTHON=1` refuses both) and the evaluation is the game's own: a caller's
`evaluation=` is Python code, so the search stays in Python to call it.

The evaluation comes from `agents.evaluation`, from the side to move's point of view (negamax).
A finished game scores `WIN` less the plies to reach it, so the search prefers a quicker win and
a slower loss; scores beyond `HEURISTIC` are results, stored in the table relative to the node.
"""

from __future__ import annotations

import importlib
import random
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol, cast

from arbiter.agents.evaluation import (
    HEURISTIC,
    WIN,
    Evaluation,
    evaluation_for,
    result,
)
from arbiter.agents.search import clock
from arbiter.games import Game, State
from arbiter.games._native import kernel

INFINITY = float("inf")
EXACT, LOWER, UPPER = 0, 1, 2
"""What a stored score is: the exact value, or a lower or an upper bound (a cut-off's)."""
TABLE_LIMIT = 1 << 18
"""Entries the transposition table may hold (about 50 MB) before it starts again empty."""
UNLIMITED_DEPTH = 64
NULL_WINDOW = 1e-6
"""Width of a principal variation search's test window: far below any evaluation's step."""


@dataclass(frozen=True, slots=True)
class SearchReport:
    """What the last `choose` did: for tests, benchmarks and the curious."""

    move: Any
    score: float
    depth: int
    """The deepest search finished (0: not even depth 1)."""
    nodes: int
    seconds: float


class CompiledSearch(Protocol):
    """A game's compiled search below the root (agents/native/negamax.h's `Search`): one move's
    tables, kept across its iterations."""

    @property
    def nodes(self) -> int: ...

    @property
    def stall(self) -> float:
        """The longest stretch in seconds between two of its clock checks."""

    def root(self, state: Any, moves: list[Any], depth: int, /) -> tuple[int, float, list[float]]:
        """`_Tree.root`'s answer."""


class CompiledModule(Protocol):
    """An `arbiter.agents._search_NAME_c` module."""

    def Search(
        self, deadline: float, table_limit: int, null_window: float, /
    ) -> CompiledSearch: ...


def compiled_search(game: Game[Any, Any]) -> CompiledModule | None:
    """The game's compiled search, where it and the game's rules kernel are built and loaded;
    else None (the Python search runs)."""
    name = game.name.replace("-", "_")
    if kernel(name) is None:
        return None
    try:
        return cast(CompiledModule, importlib.import_module(f"arbiter.agents._search_{name}_c"))
    except ImportError:
        return None


def _to_table(score: float, ply: int) -> float:
    """A result's score relative to this node, so it reads right wherever the node recurs."""
    if score > HEURISTIC:
        return score + ply
    return score - ply if score < -HEURISTIC else score


def _from_table(score: float, ply: int) -> float:
    if score > HEURISTIC:
        return score - ply
    return score + ply if score < -HEURISTIC else score


class AlphaBetaAgent:
    """Alpha-beta to `max_depth` plies (or as deep as time allows), never past the deadline."""

    def __init__(
        self,
        game: Game[Any, Any],
        seed: int | None = None,
        *,
        max_depth: int | None = None,
        evaluation: Evaluation | None = None,
    ) -> None:
        self.max_depth = max_depth or UNLIMITED_DEPTH
        self._evaluation = evaluation or evaluation_for(game)
        self._compiled = None if evaluation is not None else compiled_search(game)
        self._rng = random.Random(seed)
        self._time = clock.TimeKeeper()
        self.last: SearchReport | None = None

    def choose(self, state: State[Any], budget: float) -> Any:
        with clock.collector_paused():
            move = self._choose(state, budget)  # the search's tables are freed on its return
        self._time.done()
        return move

    def _choose(self, state: State[Any], budget: float) -> Any:
        start = time.perf_counter()
        allotted = self._time.allot(budget)
        moves = state.legal_moves()
        self._rng.shuffle(moves)  # equal scores then fall to a seeded draw, not to list order
        deadline = start + allotted
        below: _Tree | _CompiledTree
        if self._compiled is not None:
            below = _CompiledTree(self._compiled, deadline)
        else:
            below = _Tree(self._evaluation, {}, deadline, self._time.now)
        search = _Search(below)
        best, score, depth = moves[0], 0.0, 0
        stop_deepening = start + allotted * clock.NEXT_ITERATION_SHARE
        while depth < self.max_depth and len(moves) > 1:
            try:
                best, score, moves = search.root(state, moves, depth + 1)
            except clock.OutOfTime:
                if search.improved is not None:
                    best, score = search.improved
                break
            depth += 1
            if abs(score) > HEURISTIC or time.perf_counter() > stop_deepening:
                break
        self._time.stalled(below.stall)
        self.last = SearchReport(best, score, depth, below.nodes, time.perf_counter() - start)
        return best


class _Search:
    """One iteration at the root, over a search below it (`_Tree` or `_CompiledTree`)."""

    __slots__ = ("below", "improved")

    def __init__(self, below: _Tree | _CompiledTree) -> None:
        self.below = below
        self.improved: tuple[Any, float] | None = None
        """The best move of the unfinished iteration, once it beats the finished one's."""

    def root(self, state: State[Any], moves: list[Any], depth: int) -> tuple[Any, float, list[Any]]:
        """Search every root move to `depth`; return the best, its score, and the moves sorted
        best first for the next iteration (previous scores break ties, keeping the order).
        Raises `clock.OutOfTime` when the deadline stops it, with `improved` set when a move
        after the first had already beaten it."""
        self.improved = None
        best, alpha, scores = self.below.root(state, moves, depth)
        if best > 0:
            self.improved = (moves[best], alpha)
        if len(scores) < len(moves):
            raise clock.OutOfTime
        ranked = sorted(range(len(moves)), key=scores.__getitem__, reverse=True)
        return moves[best], alpha, [moves[index] for index in ranked]


class _CompiledTree:
    """The game's compiled search below the root, answering as `_Tree` does."""

    __slots__ = ("_search", "root")

    def __init__(self, module: CompiledModule, deadline: float) -> None:
        self._search = module.Search(deadline, TABLE_LIMIT, NULL_WINDOW)
        self.root = self._search.root
        """`_Tree.root`, compiled: one call an iteration, however many the root moves."""

    @property
    def nodes(self) -> int:
        return self._search.nodes

    @property
    def stall(self) -> float:
        """The longest stretch between two of its deadline checks: it reads the clock itself."""
        return self._search.stall


class _Tree:
    """One move's search below the root in Python: the deadline, the tables, the recursion."""

    __slots__ = (
        "deadline",
        "evaluate",
        "expansion",
        "history",
        "killers",
        "nodes",
        "now",
        "order",
        "quick_result",
        "table",
    )

    def __init__(
        self,
        evaluation: Evaluation,
        table: dict[Any, tuple[int, int, float, Any]],
        deadline: float,
        now: clock.Now,
    ) -> None:
        self.evaluate = evaluation.evaluate
        self.order = evaluation.order
        self.quick_result = evaluation.quick_result or result
        self.table = table
        self.deadline = deadline
        self.now = now
        """The clock of every deadline check: the agent's `TimeKeeper.now`, which times the
        stretches between checks."""
        self.expansion = 0.0
        """The longest a node took to list and sort its moves (no check runs meanwhile): a
        node starts only if that much time is left, so a slow expansion never overruns."""
        self.history: defaultdict[Any, int] = defaultdict(int)
        self.killers: list[list[Any]] = [[] for _ in range(UNLIMITED_DEPTH + 1)]
        self.nodes = 0

    @property
    def stall(self) -> float:
        """None to report: its checks read the clock through `now`, which times them."""
        return 0.0

    def root(
        self, state: State[Any], moves: list[Any], depth: int
    ) -> tuple[int, float, list[float]]:
        """One iteration over the root `moves` in their order, each searched `depth - 1` plies
        below with the best score so far as alpha: the index of the first best move, its score,
        and the moves' scores in order, fewer than the moves when the deadline stopped it (none,
        and the score -infinity, when the first did not finish)."""
        best, alpha, scores = 0, -INFINITY, []
        for index, move in enumerate(moves):
            try:
                value = self.root_child(state, move, depth - 1, alpha, index == 0)
            except clock.OutOfTime:
                break
            scores.append(value)
            if value > alpha:
                best, alpha = index, value
        return best, alpha, scores

    def root_child(
        self, state: State[Any], move: Any, depth: int, alpha: float, first: bool
    ) -> float:
        """The score of the root `state`'s `move`: the position it leads to searched `depth`
        plies deep at ply 1 with the window (alpha, infinity). The table starts again empty
        first when it has grown past `TABLE_LIMIT`."""
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        return self.child(state.play(move), depth, alpha, INFINITY, 1, first)

    def leaf(self, state: State[Any], ply: int) -> float:
        """A position at the horizon: its result if it has ended, else its evaluation."""
        ended = self.quick_result(state)
        if ended is not None:
            return (WIN - ply) * ended
        return self.evaluate(state, state.turn)

    def node(self, state: State[Any], depth: int, alpha: float, beta: float, ply: int) -> float:
        """The negamax score of `state` for its side to move, searched `depth` plies deep."""
        self.nodes += 1
        started = self.now()
        if started + self.expansion > self.deadline:
            raise clock.OutOfTime
        if depth <= 0:
            return self.leaf(state, ply)
        key = state.key()
        entry = self.table.get(key)
        hint = None
        if entry is not None:
            stored_depth, kind, stored, hint = entry
            if stored_depth >= depth:
                value = _from_table(stored, ply)
                if (
                    kind == EXACT
                    or (kind == LOWER and value >= beta)
                    or (kind == UPPER and value <= alpha)
                ):
                    return value
        original_alpha, best, best_move = alpha, -INFINITY, None
        for move in self.moves(state, hint, ply):
            child = state.play(move)
            if depth > 1:
                value = self.child(child, depth - 1, alpha, beta, ply + 1, best == -INFINITY)
            else:  # the leaves, inlined: most nodes are leaves
                self.nodes += 1
                if self.now() > self.deadline:
                    raise clock.OutOfTime
                value = -self.leaf(child, ply + 1)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self.reward(move, depth, ply)
                        break
        if best_move is None:  # no move: over (the full check, since `quick_result` may miss why)
            return (WIN - ply) * (result(state) or 0.0)
        kind = LOWER if best >= beta else UPPER if best <= original_alpha else EXACT
        self.table[key] = (depth, kind, _to_table(best, ply), best_move)
        return best

    def child(
        self, state: State[Any], depth: int, alpha: float, beta: float, ply: int, first: bool
    ) -> float:
        """A child's score for its parent, by principal variation search: the first move gets
        the full window; the others are only tested against the best so far (a null window,
        cheap when they fail, as most do), and searched again in full when one beats it."""
        if first:
            return -self.node(state, depth, -beta, -alpha, ply)
        value = -self.node(state, depth, -alpha - NULL_WINDOW, -alpha, ply)
        if alpha < value < beta:
            value = -self.node(state, depth, -beta, -value, ply)
        return value

    def moves(self, state: State[Any], hint: Any, ply: int) -> Iterator[Any]:
        """Likeliest-best first: the table's move and the killers, then static or history order.

        The table's move and the killers come before the node lists its moves at all, each
        checked legal first (a hint may come from a colliding key, a killer from a sibling): a
        node that one of them cuts off, as most do, never lists its moves, which costs far more
        than the check (Amazons: some 500 moves against one path checked).
        """
        first: list[Any] = []
        for move in (hint, *self.killers[ply]):
            if move is not None and move not in first and state.why_illegal(move) is None:
                first.append(move)
                yield move
        listed_at = time.perf_counter()
        moves = state.legal_moves()
        if self.history:
            moves.sort(key=self.history.__getitem__, reverse=True)
        if self.order is not None:  # a stable sort: history still orders the quiet moves
            self.order(state, moves)
        self.expansion = max(self.expansion, time.perf_counter() - listed_at)
        for move in moves:
            if move not in first:
                yield move

    def reward(self, move: Any, depth: int, ply: int) -> None:
        """Remember a move that caused a cut-off: as a killer at this ply and in the history."""
        self.history[move] += depth * depth
        killers = self.killers[ply]
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]
