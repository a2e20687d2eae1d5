"""`openspiel-mcts` keeps time itself: its search stops at a deadline with a move ready."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("pyspiel")

from arbiter.agents import make_agent
from arbiter.agents.search import clock
from arbiter.bridges.openspiel_agent import OpenSpielMCTS
from arbiter.games import GAME_NAMES, get_game
from tests.agents.positions import sample
from tests.conftest import TIMED

BUDGET = 0.3


@TIMED
@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_unlimited_search_stops_at_its_deadline_with_simulations_done(name: str) -> None:
    game = get_game(name)
    agent = make_agent("openspiel-mcts", game, seed=1)
    assert isinstance(agent, OpenSpielMCTS)
    state = sample(name, 2, seed=4)[1]
    start = time.perf_counter()
    move = agent.choose(state, BUDGET)
    elapsed = time.perf_counter() - start
    assert elapsed < BUDGET
    assert agent.simulations > 0
    assert state.why_illegal(move) is None
    # its clock checks time the stretches between them, for the reserve (`TimeKeeper.now`)
    assert len(clock.LATENESS.stalls()) == 1
    assert 0 < clock.LATENESS.stalls()[0] < BUDGET


def test_a_simulation_limit_ends_the_search_before_the_clock_does() -> None:
    game = get_game("war-of-life")
    agent = make_agent("openspiel-mcts-s100", game, seed=1)
    assert isinstance(agent, OpenSpielMCTS)
    state = game.new_game(seed=2)
    agent.choose(state, 30.0)
    assert agent.bot.simulations == 100


@pytest.mark.parametrize("name", GAME_NAMES)
def test_no_time_to_think_still_gets_a_legal_move(name: str) -> None:
    game = get_game(name)
    agent = make_agent("openspiel-mcts", game, seed=1)
    for state in sample(name, 3, seed=6):
        assert state.why_illegal(agent.choose(state, 0.0)) is None
