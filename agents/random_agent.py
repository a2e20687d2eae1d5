"""`random`: a legal move drawn at random; seeded, so a game against it can be replayed."""

from __future__ import annotations

import random
from typing import Any

from arbiter.games import Game, State


class RandomAgent:
    def __init__(self, game: Game[Any, Any], seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: State[Any], budget: float) -> Any:
        return state.random_move(self._rng)
