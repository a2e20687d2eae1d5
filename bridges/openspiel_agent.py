"""OpenSpiel's MCTSBot as an Arbiter agent, for every game: `--agent openspiel-mcts`.

The bot searches our game as an OpenSpiel game (`spiel.py`); a move of several actions
(Amazons: three) is one search per action, each given a share of the move's time. Playouts run
on our rules directly (`state.random_move` and `play` until the end), not through OpenSpiel's
action-by-action interface: the search is OpenSpiel's, the playouts are ours, and they are many
times faster than OpenSpiel's own random rollouts of a Python game.

OpenSpiel's Python MCTSBot runs a fixed number of simulations and has no clock (its C++
MCTSBot, which has one, crashes on Python games in open-spiel 2.0). Guessing how many
simulations fit a budget loses games on time: one position's simulations cost many times
another's, and a busy machine slows them all. So the search keeps a deadline itself
(`DeadlineBot`): every simulation starts with a look at the clock, and so does every few plies
of a playout; past the deadline the search unwinds (`clock.OutOfTime`) and the move is the best
child of the simulations that finished, or a random legal action if none did.

The deadline is what the server's budget allows (`agents.search.clock`'s `TimeKeeper`, whose
reserve is learned from how late this process's moves ran: the work after the search, such as
dropping its tables before the garbage collector is back on, and on a busy machine the moments
the process waits for a core).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from open_spiel.python.algorithms import mcts

from arbiter.agents.search import clock
from arbiter.bridges import spiel
from arbiter.bridges.encoding import forget_tables, returns
from arbiter.bridges.encodings import encoding_for
from arbiter.games import Game, State

UCT_C = 2.0
"""The exploration constant OpenSpiel's examples use."""
UNLIMITED = 10**9
"""Simulations asked for when only the clock limits the search."""
DEADLINE_EVERY = 8
"""Plies of a playout between two looks at the clock."""


class OurPlayouts:
    """OpenSpiel's `Evaluator` interface: a random game to the end under our rules, and a
    uniform prior (what OpenSpiel's RandomRolloutEvaluator gives)."""

    def __init__(self, rng: random.Random, now: clock.Now) -> None:
        self.rng = rng
        self.now = now
        """The clock of every deadline check: the agent's `TimeKeeper.now`, which times the
        stretches between checks for the learned reserve, as alpha-beta's and mcts's do."""
        self.deadline = float("inf")
        """`now()` past which a playout stops the search (`clock.OutOfTime`)."""

    def evaluate(self, state: spiel.SpielState) -> Any:
        turn, encoding = state.turn, state.encoding
        while turn.pending:  # a move under way: its position has a legal move, so no outcome
            turn = encoding.advance(turn, self.rng.choice(encoding.legal_actions(turn)))
        position: State[Any] = turn.state
        while (outcome := position.outcome()) is None:
            if not position.ply % DEADLINE_EVERY and self.now() > self.deadline:
                raise clock.OutOfTime
            position = position.play(position.random_move(self.rng))
        return np.array(returns(outcome))

    def prior(self, state: spiel.SpielState) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]


class DeadlineBot(mcts.MCTSBot):  # type: ignore[misc]
    """OpenSpiel's MCTSBot, stopped by a deadline: `search` returns the action the finished
    simulations chose, however many there were.

    It wraps the one piece of OpenSpiel's search loop each simulation starts with, the descent
    of the tree (`_apply_tree_policy`): there it keeps the root and looks at the clock. A
    simulation cut short by the deadline has changed no counts yet (they are backed up after the
    playout), so the tree it leaves holds whole simulations only."""

    def __init__(self, game: spiel.SpielGame, playouts: OurPlayouts, seed: int) -> None:
        super().__init__(game, UCT_C, UNLIMITED, playouts, random_state=np.random.RandomState(seed))
        self.playouts = playouts
        self._root: mcts.SearchNode | None = None
        self.simulations = 0
        """Simulations the last search finished (tests, benchmarks)."""

    def search(self, position: spiel.SpielState, deadline: float) -> int | None:
        """The best action by the simulations done before `deadline`; None if none was."""
        self.playouts.deadline = deadline
        try:
            return int(self.step(position))
        except clock.OutOfTime:
            root = self._root
            if root is None or not any(child.explore_count for child in root.children):
                return None
            return int(root.best_child().action)
        finally:
            self.simulations = 0 if self._root is None else self._root.explore_count
            self._root = None  # the tree goes now, while the caller keeps the collector off

    def _apply_tree_policy(self, root: mcts.SearchNode, state: spiel.SpielState) -> Any:
        self._root = root
        if self.playouts.now() > self.playouts.deadline:
            raise clock.OutOfTime
        return super()._apply_tree_policy(root, state)


class OpenSpielMCTS:
    """OpenSpiel's MCTSBot (UCT, MCTS-Solver) choosing our moves under the server's clock, with
    at most `simulations` a decision if given."""

    def __init__(self, game: Game[Any, Any], seed: int | None, simulations: int | None) -> None:
        self.encoding = encoding_for(game.name)
        self.spiel_game = spiel.GAMES[game.name]()
        self.keeper = clock.TimeKeeper()
        self.rng = random.Random(seed)
        playouts = OurPlayouts(self.rng, self.keeper.now)
        self.bot = DeadlineBot(self.spiel_game, playouts, self.rng.getrandbits(31))
        self.bot.max_simulations = UNLIMITED if simulations is None else simulations
        self.simulations = 0
        """Simulations the last move's searches ran, over all its decisions."""

    def choose(self, state: State[Any], budget: float) -> Any:
        allotted = self.keeper.allot(budget)  # first: it starts the move's clock checks
        deadline = self.keeper.now() + allotted
        with clock.collector_paused():
            move = self._choose(state, deadline)
            forget_tables()
        self.keeper.done()
        return move

    def _choose(self, state: State[Any], deadline: float) -> Any:
        position = self.spiel_game.new_initial_state(state)
        tokens: list[int] = []
        self.simulations = 0
        while position.turn.pending or not tokens:
            now, left = self.keeper.now(), max(1, self.encoding.decisions - len(tokens))
            action = self._decide(position, now + max(0.0, deadline - now) / left)
            tokens.append(action)
            position.apply_action(action)
        return self.encoding.move_of(state, tuple(tokens))

    def _decide(self, position: spiel.SpielState, deadline: float) -> int:
        actions = position.legal_actions()
        if len(actions) == 1:
            return int(actions[0])
        action = self.bot.search(position, deadline)
        self.simulations += self.bot.simulations
        return self.rng.choice(actions) if action is None else action
