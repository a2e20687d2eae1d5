"""The bridge's agents, as `agents.register` takes them: the `arbiter.agents` entry point.

Empty where OpenSpiel is not installed, so `--agent` lists only what can run here. The factories
import OpenSpiel when they build an agent, not when the registry lists them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from arbiter.agents import Agent
from arbiter.agents._base import Registration
from arbiter.games import Game

SIMULATION_LEVELS = (100, 1000)


def _mcts(simulations: int | None) -> Callable[[Game[Any, Any], int | None], Agent]:
    def factory(game: Game[Any, Any], seed: int | None) -> Agent:
        from arbiter.bridges.openspiel_agent import OpenSpielMCTS

        return OpenSpielMCTS(game, seed, simulations)

    return factory


def _registrations() -> list[Registration]:
    if importlib.util.find_spec("pyspiel") is None:
        return []
    return [
        Registration(
            "openspiel-mcts",
            _mcts(None),
            "OpenSpiel's MCTSBot (UCT with random playouts), as many simulations as the clock "
            "allows (the openspiel extra)",
        ),
        *(
            Registration(
                f"openspiel-mcts-s{count}",
                _mcts(count),
                f"OpenSpiel's MCTSBot with at most {count} simulations a decision, fewer if the "
                "clock says so (the openspiel extra)",
            )
            for count in SIMULATION_LEVELS
        ),
    ]


AGENTS = _registrations()
