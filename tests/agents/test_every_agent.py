"""Every registered agent of every game answers a legal move within its budget."""

from __future__ import annotations

import time

import pytest

from arbiter.agents import agents_for, all_agent_names, make_agent
from arbiter.agents.search import FIXED_DEPTHS
from arbiter.agents.shobu import SHOBU_LEVELS
from arbiter.games import GAME_NAMES, get_game
from tests.agents.positions import sample
from tests.conftest import TIMED

BUDGET = 0.1
STALL = 0.3
"""Seconds a loaded shared machine can keep a process off the CPU at once: no agent can answer
through that. Keeping the budget under
load is `bench/strength.py --load`'s claim; here an agent must only never run on past it."""
POSITIONS = 2


@TIMED
@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_agent_answers_a_legal_move_within_its_budget(name: str) -> None:
    game = get_game(name)
    for state in sample(name, POSITIONS, seed=11):
        for info in agents_for(name):
            agent = make_agent(info.name, game, seed=1)
            start = time.perf_counter()
            move = agent.choose(state, BUDGET)
            elapsed = time.perf_counter() - start
            assert elapsed < BUDGET + STALL, f"{info.name} took {elapsed:.3f} s at ply {state.ply}"
            assert state.why_illegal(move) is None, f"{info.name}: {game.format_move(move)}"


def test_the_search_agents_are_registered_for_every_game() -> None:
    names = {"greedy", "alphabeta", "mcts", "mcts-eval"}
    names |= {f"alphabeta-d{depth}" for depth in FIXED_DEPTHS}
    for game in GAME_NAMES:
        assert names <= {info.name for info in agents_for(game)}


def test_shobu_levels_play_shobu_only() -> None:
    assert set(SHOBU_LEVELS) <= set(all_agent_names())
    for game in GAME_NAMES:
        offered = {info.name for info in agents_for(game)}
        assert (set(SHOBU_LEVELS) <= offered) == (game == "shobu")


def test_shobu_levels_search_ever_deeper() -> None:
    game = get_game("shobu")
    state = sample("shobu", 2, seed=5)[1]
    depths = []
    for level in ("easy", "medium", "hard"):
        agent = make_agent(level, game, seed=1)
        agent.choose(state, 30.0)
        depths.append(agent.last.depth)  # type: ignore[attr-defined]
    assert depths == [1, 2, 3]
