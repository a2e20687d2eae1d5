"""Our five games as PettingZoo AEC environments, and a trained policy as an Arbiter agent.

`env("amazons")` is an `AECEnv`: agents are the game's seat names, an action is the game's
`Encoding` action (docs/ecosystem.md lists each game's), and an observation is a dict of the
encoding's tensor and an `action_mask` of the legal actions. A move of several actions (Amazons)
is as many steps by the same agent. Rewards come at the end: win 1, loss -1, draw 0.

`PolicyAgent` closes the loop: a policy trained on the environment (a function from that
observation dict to an action) is an Arbiter agent, so `arbiter bot`, `referee` and tournaments
can seat it (docs/ecosystem.md shows the two lines of plugin that register one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from arbiter.bridges.encoding import Encoding, Turn, returns
from arbiter.bridges.encodings import encoding_for
from arbiter.games import Game, State

Observation = dict[str, npt.NDArray[Any]]
Policy = Callable[[Observation], int]
"""A trained policy: an observation dict (`observation`, `action_mask`) in, a legal action out."""


def observe(encoding: Encoding, turn: Turn) -> Observation:
    mask = np.zeros(encoding.num_actions, np.int8)
    mask[encoding.legal_actions(turn)] = 1
    return {"observation": encoding.tensor(turn), "action_mask": mask}


class ArbiterEnv(AECEnv):  # type: ignore[misc]
    """One of our games, two agents taking turns; options as the game takes them."""

    def __init__(self, game_name: str, options: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.encoding = encoding_for(game_name)
        game = self.encoding.game
        self.options = game.resolve_options(dict(options or {}), fresh_seed=lambda: 0)
        self.possible_agents = list(game.seats)
        name = f"arbiter_{game_name.replace('-', '_')}_v0"
        self.metadata = {"render_modes": ["ansi"], "name": name, "is_parallelizable": False}
        tensor = spaces.Box(0.0, 1.0, self.encoding.tensor_shape, np.float32)
        mask = spaces.Box(0, 1, (self.encoding.num_actions,), np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": tensor, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.encoding.num_actions) for agent in self.possible_agents
        }
        self.render_mode = "ansi"

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game: Game[Any, Any] = self.encoding.game
        chosen = dict(self.options)
        if seed is not None:
            chosen.update({option.name: seed for option in game.options if option.is_seed})
        self.turn = Turn(game.initial_state(chosen))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.turn.state.turn]

    def observe(self, agent: str) -> Observation:
        return observe(self.encoding, self.turn)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.turn = self.encoding.advance(self.turn, int(action))  # type: ignore[arg-type]
        outcome = self.turn.state.outcome()
        if outcome is None:
            self.agent_selection = self.agents[self.turn.state.turn]
        else:
            for agent_name, value in zip(self.possible_agents, returns(outcome), strict=True):
                self.rewards[agent_name] = value
                self.terminations[agent_name] = True
        self._accumulate_rewards()

    def render(self) -> str:
        return self.encoding.observation_string(self.turn)

    def close(self) -> None:
        """Nothing to release: the environment holds one position."""


def env(game_name: str, **options: Any) -> ArbiterEnv:
    return ArbiterEnv(game_name, options)


class PolicyAgent:
    """A policy trained on `ArbiterEnv` playing our game as an Arbiter agent: it sees what the
    environment would show and answers one action at a time until the move is whole."""

    def __init__(self, game: Game[Any, Any], policy: Policy) -> None:
        self.encoding = encoding_for(game.name)
        self.policy = policy

    def choose(self, state: State[Any], budget: float) -> Any:
        turn = Turn(state)
        while True:
            action = int(self.policy(observe(self.encoding, turn)))
            tokens = (*turn.pending, action)
            turn = self.encoding.advance(turn, action)
            if not turn.pending:
                return self.encoding.move_of(state, tokens)
