"""Decision makers: a state and a time budget in, a move out; no sockets, no clocks of their own.

`make_agent(name, game, seed)` builds an agent by the name the command line uses.
"""

from __future__ import annotations

from typing import Any

from agents._base import Agent, AgentFactory
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from games import Game

__all__ = ["AGENTS", "Agent", "AgentError", "make_agent"]

AGENTS: dict[str, tuple[AgentFactory, str]] = {
    "random": (RandomAgent, "a legal move at random (seeded)"),
    "greedy": (GreedyAgent, "the best position one move ahead: wins first, then material"),
}


class AgentError(ValueError):
    """No agent by that name."""


def make_agent(name: str, game: Game[Any, Any], seed: int | None = None) -> Agent:
    try:
        factory, _ = AGENTS[name]
    except KeyError:
        raise AgentError(f"no agent {name!r} (agents: {', '.join(AGENTS)})") from None
    return factory(game, seed)
