"""Decision makers: a state and a time budget in, a move out; no sockets, no clocks of their own.

Agents are registered by the name the command line uses, either for every game or for the games
they understand (`register(..., games=("war-of-life",))`). `make_agent(name, game, seed)` builds
one; `agents_for(game_name)` lists what a game can be played by.

Packages outside the core add agents through the `arbiter.agents` entry point: each names a
list of `Registration`s, registered the first time the registry is asked (not at import, so a
plugin may import this package).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from arbiter.agents import search, shobu, war_of_life
from arbiter.agents._base import Agent, AgentBase, AgentFactory, Lifecycle, lifecycle
from arbiter.agents.greedy import GreedyAgent
from arbiter.agents.random_agent import RandomAgent
from arbiter.games import Game

__all__ = [
    "Agent",
    "AgentBase",
    "AgentError",
    "AgentInfo",
    "Lifecycle",
    "agents_for",
    "all_agent_names",
    "lifecycle",
    "make_agent",
]


class AgentError(ValueError):
    """No agent by that name for that game."""


@dataclass(frozen=True, slots=True)
class AgentInfo:
    name: str
    factory: AgentFactory
    help: str
    games: frozenset[str] | None
    """The games it plays; None for every game."""

    def plays(self, game_name: str) -> bool:
        return self.games is None or game_name in self.games


_REGISTRY: dict[str, AgentInfo] = {}


def register(
    name: str, factory: AgentFactory, help: str, games: Iterable[str] | None = None
) -> None:
    if name in _REGISTRY:
        raise ValueError(f"agent {name!r} is registered twice")
    _REGISTRY[name] = AgentInfo(name, factory, help, None if games is None else frozenset(games))


PLUGIN_GROUP = "arbiter.agents"


@functools.cache
def _registry() -> dict[str, AgentInfo]:
    """The registry, with the agents of installed plugins (`PLUGIN_GROUP`) added once."""
    for entry in entry_points(group=PLUGIN_GROUP):
        for plugin in entry.load():
            register(plugin.name, plugin.factory, plugin.help, plugin.games)
    return _REGISTRY


def agents_for(game_name: str) -> list[AgentInfo]:
    return [info for info in _registry().values() if info.plays(game_name)]


def all_agent_names() -> list[str]:
    return sorted(_registry())


def make_agent(name: str, game: Game[Any, Any], seed: int | None = None) -> Agent:
    info = _registry().get(name)
    if info is None or not info.plays(game.name):
        names = ", ".join(info.name for info in agents_for(game.name))
        raise AgentError(f"no agent {name!r} for {game.name} (agents: {names})")
    return info.factory(game, seed)


register("random", RandomAgent, "a legal move at random (seeded)")
register(
    "greedy", GreedyAgent, "the best position one move ahead by the game's evaluation (a win first)"
)
for _entry in (*war_of_life.AGENTS, *search.AGENTS, *shobu.AGENTS):
    register(_entry.name, _entry.factory, _entry.help, _entry.games)
