"""`greedy`: the move whose resulting position is best one ply ahead, by the game's evaluation.

A winning move scores `WIN` and a losing one `-WIN`, so a win is taken at once and a loss
avoided whenever anything else exists; between the rest the game's evaluation decides (see
`agents/evaluations/`). The moves are tried in a seeded random order and the first of equal
scores kept, so two greedy agents do not replay one game. Amazons has some 2000 moves to a
position, so greedy watches the clock too: past the deadline it answers with the best so far.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arbiter.agents.evaluation import evaluation_for, score
from arbiter.agents.search import clock
from arbiter.games import Game, State


class GreedyAgent:
    def __init__(self, game: Game[Any, Any], seed: int | None = None) -> None:
        self._evaluation = evaluation_for(game)
        self._rng = random.Random(seed)
        self._time = clock.TimeKeeper()

    def choose(self, state: State[Any], budget: float) -> Any:
        move = self._choose(state, time.perf_counter() + self._time.allot(budget))
        self._time.done()
        return move

    def _choose(self, state: State[Any], deadline: float) -> Any:
        me = state.turn
        moves = state.legal_moves()
        self._rng.shuffle(moves)
        best, best_score = moves[0], -float("inf")
        for move in moves:
            if self._time.now() > deadline:
                break
            value = score(state.play(move), me, self._evaluation)
            if value > best_score:
                best, best_score = move, value
        return best
