"""The game-independent search toolkit: alpha-beta and MCTS under the server's clock.

Both take any game through the `State` interface and its evaluation from `agents.evaluation`;
`AGENTS` lists the registered names built from them (`agents/__init__.py` registers them); a
game's own levels built from them sit with that game (`agents/shobu.py`).
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
    "AlphaBetaAgent",
    "MCTSAgent",
    "Registration",
    "SearchReport",
    "alphabeta_factory",
]

FIXED_DEPTHS = range(1, 7)


def alphabeta_factory(depth: int | None) -> Callable[[Game[Any, Any], int | None], Agent]:
    """An alpha-beta agent's factory searching at most `depth` plies (None: until the clock
    says stop), for the fixed-depth agents here and a game's levels."""

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
        alphabeta_factory(None),
        "alpha-beta with the game's evaluation, deepening until the clock says stop",
    ),
    *(
        Registration(
            f"alphabeta-d{depth}",
            alphabeta_factory(depth),
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
]
