"""MCTS's tree on splitmix64's numbers: the reference the compiled tree (agents/native/uct.h) is
proved against.

The compiled tree draws its random numbers from splitmix64 (games/native/splitmix64.h), not from
Python's generator, so it cannot repeat `MCTSAgent`'s tree draw for draw. `SplitMix64` is a
`random.Random` whose numbers are splitmix64's and whose draws below n are the same Lemire draws
as the C's, so `random.shuffle` and `choice` on it make the C's choices; `ReferenceMCTS` is
`MCTSAgent`'s own tree on it, run for a fixed number of iterations, each playout one call into
the rules' kernel seeded by one draw (as the compiled tree plays it, where the agent's clock
would cut a playout into slices). Given the same seed and count, both trees end with the same
visits and wins at the root.
"""

from __future__ import annotations

import math
import random
from typing import Any

from arbiter.agents.evaluation import evaluation_for
from arbiter.agents.search.mcts import MCTSAgent, _Node
from arbiter.games import Game, State

_MASK = (1 << 64) - 1


class SplitMix64(random.Random):
    """splitmix64 behind `random.Random`'s interface: `getrandbits(64)` is its next number, and
    every draw below n (`shuffle`, `choice`, `randrange`) is Lemire's multiply-and-reject."""

    def __init__(self, seed: int) -> None:
        self._state = 0
        super().__init__(seed)

    def seed(self, a: Any = None, version: int = 2) -> None:
        if not isinstance(a, int):
            raise TypeError(f"SplitMix64 is seeded by an int, not {a!r}")
        self._state = a & _MASK

    def next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def getrandbits(self, k: int) -> int:
        if not 0 <= k <= 64:
            raise ValueError(f"SplitMix64 draws from 0 to 64 bits at a time, not {k}")
        return self.next() >> (64 - k)

    def random(self) -> float:
        return (self.next() >> 11) * 2.0**-53

    def _randbelow(self, n: int) -> int:
        """A number in 0..n-1, every one equally likely (games/native/splitmix64.h's)."""
        product = self.next() * n
        if product & _MASK < n:
            threshold = ((1 << 64) - n) % n
            while product & _MASK < threshold:
                product = self.next() * n
        return product >> 64


class ReferenceMCTS(MCTSAgent):
    """`MCTSAgent`'s tree drawing from `SplitMix64(seed)`, with the game's own evaluation run
    in Python; `options` are `MCTSAgent`'s."""

    def __init__(self, game: Game[Any, Any], seed: int, **options: Any) -> None:
        super().__init__(game, evaluation=evaluation_for(game), **options)
        self._rng = SplitMix64(seed)

    def grow(self, state: State[Any], iterations: int) -> _Node:
        """The root of the tree after `iterations` iterations from `state`."""
        root = _Node(state, None, 1 - state.turn)
        for _ in range(iterations):
            self._iterate(root, math.inf)
        return root

    def children(self, state: State[Any], iterations: int) -> list[tuple[Any, int, float]]:
        """(move, visits, wins) of the root's children in the order they were opened, after
        `iterations` iterations from `state`."""
        return [
            (child.move, child.visits, child.wins)
            for child in self.grow(state, iterations).children
        ]

    def _playout(self, state: State[Any], deadline: float) -> float:
        """The playout in one call, drawing its seed only if the game goes on."""
        if self.playout_plies > 0 and state.outcome() is None:
            state = state.random_playout(self._rng, self.playout_plies)
        return self._judge(state)
