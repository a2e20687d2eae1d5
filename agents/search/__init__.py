"""The game-independent search toolkit: alpha-beta and MCTS under the server's clock.

Both take any game through the `State` interface and its evaluation from `agents.evaluation`;
`AGENTS` lists the registered names built from them (`agents/__init__.py` registers them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arbiter.agents._base import Agent, Registration
from arbiter.agents.search.alphabeta import AlphaBetaAgent, SearchReport
from arbiter.agents.search.mcts import DEFAULT_CUTOFF, MCTSAgent
from arbiter.games import Game

__all__ = [
    "AGENTS",
    "FIXED_DEPTHS",
    "SHOBU_LEVELS",
    "AlphaBetaAgent",
    "MCTSAgent",
    "Registration",
    "SearchReport",
]

FIXED_DEPTHS = range(1, 7)
SHOBU_LEVELS = {"easy": 1, "medium": 2, "hard": 3}
"""Shobu's difficulty levels: alpha-beta at increasing fixed depth."""


def _alphabeta(depth: int | None) -> Callable[[Game[Any, Any], int | None], Agent]:
    def factory(game: Game[Any, Any], seed: int | None) -> Agent:
        return AlphaBetaAgent(game, seed, max_depth=depth)

    return factory


def _mcts(cutoff: int | None) -> Callable[[Game[Any, Any], int | None], Agent]:
    def factory(game: Game[Any, Any], seed: int | None) -> Agent:
        return MCTSAgent(game, seed, cutoff=cutoff)

    return factory


AGENTS: list[Registration] = [
    Registration(
        "alphabeta",
        _alphabeta(None),
        "alpha-beta with the game's evaluation, deepening until the clock says stop",
    ),
    *(
        Registration(
            f"alphabeta-d{depth}",
            _alphabeta(depth),
            f"alpha-beta searching {depth} {'ply' if depth == 1 else 'plies'} deep "
            "(less if the clock runs out first)",
        )
        for depth in FIXED_DEPTHS
    ),
    Registration("mcts", _mcts(None), "Monte Carlo tree search (UCT) with random playouts"),
    Registration(
        "mcts-eval",
        _mcts(DEFAULT_CUTOFF),
        f"Monte Carlo tree search with short playouts ({DEFAULT_CUTOFF} random "
        f"{'move' if DEFAULT_CUTOFF == 1 else 'moves'}) judged by the game's evaluation, "
        "widening each node best first (Amazons: the amazon, its square, its arrow in turn)",
    ),
    *(
        Registration(
            level,
            _alphabeta(depth),
            f"Shobu level {level}: alpha-beta {depth} {'turn' if depth == 1 else 'turns'} deep "
            "with the seed's per-board balance",
            ("shobu",),
        )
        for level, depth in SHOBU_LEVELS.items()
    ),
]
