"""OpenSpiel's MCTSBot as an Arbiter agent, for every game: `--agent openspiel-mcts`.

The bot searches our game as an OpenSpiel game (`spiel.py`); a move of several actions
(Amazons: three) is one search per action, each given a share of the move's time. Playouts run
on our rules directly (`state.random_move` and `play` until the end), not through OpenSpiel's
action-by-action interface: the search is OpenSpiel's, the playouts are ours, and they are many
times faster than OpenSpiel's own random rollouts of a Python game.

OpenSpiel's Python MCTSBot runs a fixed number of simulations (its C++ MCTSBot, which has a
clock, crashes on Python games in open-spiel 2.0). So the agent measures how many simulations a
second it runs in this game and asks for as many as fit in the time the server's budget allows
(`agents.search.clock`); a first search of `FIRST_SIMULATIONS` gives the first measure. The
playouts keep the deadline: a playout it cuts short counts as a draw, so a search asked for too
many simulations finishes its count in tree steps and stubs of playouts.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
from open_spiel.python.algorithms import mcts

from arbiter.agents.search.clock import TimeKeeper
from arbiter.bridges import spiel
from arbiter.bridges.encoding import Turn, returns
from arbiter.bridges.encodings import encoding_for
from arbiter.games import Game, State

UCT_C = 2.0
"""The exploration constant OpenSpiel's examples use."""
FIRST_SIMULATIONS = 16
RATE_SHARE = 0.7
DEADLINE_EVERY = 8
"""Plies of a playout between two looks at the clock."""
"""The share of the measured rate asked for: positions differ in cost, and time lost is a game."""


class OurPlayouts:
    """OpenSpiel's `Evaluator` interface: a random game to the end under our rules, and a
    uniform prior (what OpenSpiel's RandomRolloutEvaluator gives)."""

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed)
        self.deadline = float("inf")
        """`time.perf_counter()` past which a playout stops and counts as a draw."""

    def evaluate(self, state: spiel.SpielState) -> Any:
        turn, encoding = state.turn, state.encoding
        draw = np.zeros(2)
        while turn.pending and encoding.outcome(turn, state.options) is None:
            turn = encoding.advance(turn, self.rng.choice(encoding.legal_actions(turn)))
        position: State[Any] = turn.state
        cap = encoding.move_cap(state.options)
        while position.outcome() is None and (cap is None or position.ply < cap):
            if not position.ply % DEADLINE_EVERY and time.perf_counter() > self.deadline:
                return draw
            position = position.play(position.random_move(self.rng))
        return np.array(returns(encoding.outcome(Turn(position), state.options)))

    def prior(self, state: spiel.SpielState) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(action, 1.0 / len(actions)) for action in actions]


class OpenSpielMCTS:
    """OpenSpiel's MCTSBot (UCT, MCTS-Solver) choosing our moves under the server's clock."""

    def __init__(self, game: Game[Any, Any], seed: int | None, simulations: int | None) -> None:
        self.encoding = encoding_for(game.name)
        self.spiel_game = spiel.GAMES[game.name]()
        self.limit = simulations
        self.rate: float | None = None
        """Simulations a second, as the last search ran."""
        self.keeper = TimeKeeper()
        self.playouts = OurPlayouts(seed)
        self.bot = mcts.MCTSBot(self.spiel_game, UCT_C, FIRST_SIMULATIONS, self.playouts)

    def choose(self, state: State[Any], budget: float) -> Any:
        deadline = time.perf_counter() + self.keeper.allot(budget)
        position = self.spiel_game.new_initial_state(state)
        tokens: list[int] = []
        while position.turn.pending or not tokens:
            left = max(0, self.encoding.decisions - len(tokens))
            share = (deadline - time.perf_counter()) / max(1, left)
            action = self._search(position, share)
            tokens.append(action)
            position.apply_action(action)
        return self.encoding.move_of(state, tuple(tokens))

    def _search(self, position: spiel.SpielState, seconds: float) -> int:
        actions = position.legal_actions()
        if len(actions) == 1:
            return int(actions[0])
        wanted = FIRST_SIMULATIONS if self.rate is None else int(self.rate * seconds * RATE_SHARE)
        if self.limit is not None:
            wanted = min(wanted, self.limit)
        self.bot.max_simulations = max(2, wanted)
        started = time.perf_counter()
        self.playouts.deadline = started + seconds
        action = int(self.bot.step(position))
        rate = self.bot.max_simulations / max(1e-6, time.perf_counter() - started)
        # A slower search counts at once, a faster one by half: running over loses the game.
        self.rate = rate if self.rate is None or rate < self.rate else (self.rate + rate) / 2
        return action
