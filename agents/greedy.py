"""`greedy`: the move whose resulting position is best one ply ahead.

A win ends the search at once and a losing move is avoided when anything else exists; between
the rest, material decides (more of my pieces, fewer of theirs), so in King's Court it prefers
captures. Ties are broken by a seeded random draw so two greedy agents do not replay one game.
"""

from __future__ import annotations

import random
from typing import Any

from agents.evaluation import material
from games import Game, Result, State

WIN = float("inf")


class GreedyAgent:
    def __init__(self, game: Game[Any, Any], seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: State[Any], budget: float) -> Any:
        me = state.turn
        best_score = -WIN
        best: list[Any] = []
        for move in state.legal_moves():
            score = score_after(state.play(move), me)
            if score > best_score:
                best_score, best = score, [move]
            elif score == best_score:
                best.append(move)
        return self._rng.choice(best)


def score_after(after: State[Any], me: int) -> float:
    outcome = after.outcome()
    if outcome is None:
        return material(after, me)
    if outcome.result is Result.WIN:
        return WIN if outcome.winner == me else -WIN
    return 0.0 if outcome.result is Result.DRAW else -WIN / 2
