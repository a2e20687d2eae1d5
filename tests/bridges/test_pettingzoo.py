"""Our games as PettingZoo AEC environments (PettingZoo's own `api_test`), and a policy trained
on one playing as an Arbiter agent."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test

from arbiter.bridges.pettingzoo_env import Observation, PolicyAgent, env
from arbiter.games import GAME_NAMES, get_game

# api_test plays random moves unseeded, and War of Life's board can empty (every cell dead): a
# real position whose tensor is all zeros, which api_test flags as suspicious.
EMPTY_BOARD_IS_A_POSITION = pytest.mark.filterwarnings(
    "ignore:Observation numpy array is all zeros:UserWarning:pettingzoo.test.api_test"
)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=EMPTY_BOARD_IS_A_POSITION if name == "war-of-life" else ())
        for name in GAME_NAMES
    ],
)
def test_pettingzoos_api_test_passes(name: str) -> None:
    api_test(env(name), num_cycles=60)


def first_legal(observation: Observation) -> int:
    """A stand-in for a trained policy: the lowest legal action."""
    return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_policy_is_an_agent_playing_legal_moves(name: str) -> None:
    game, rng = get_game(name), random.Random(5)
    state: Any = game.new_game(seed=5) if name == "war-of-life" else game.new_game()
    agent = PolicyAgent(game, first_legal)
    for _ in range(6):
        if state.outcome() is not None:
            break
        move = agent.choose(state, 1.0)
        assert state.why_illegal(move) is None
        state = state.play(move)
        if state.outcome() is None:
            state = state.play(rng.choice(state.legal_moves()))


def test_a_game_played_through_the_environment_ends_with_opposite_rewards() -> None:
    amazons = env("amazons")
    amazons.reset(seed=1)
    rng = np.random.default_rng(1)
    final: dict[str, float] = {}
    for agent in amazons.agent_iter():
        observation, reward, terminated, truncated, _ = amazons.last()
        if terminated or truncated:
            final[agent] = reward
            amazons.step(None)
            continue
        amazons.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert sorted(final.values()) == [-1.0, 1.0]
