"""The search toolkit: alpha-beta finds forced wins, both searches keep to the clock."""

from __future__ import annotations

import time

import pytest

from arbiter.agents.evaluation import HEURISTIC, WIN, evaluation_for
from arbiter.agents.search import AlphaBetaAgent, MCTSAgent, clock
from arbiter.agents.search.alphabeta import INFINITY, _Tree
from arbiter.games import get_game
from tests.agents.positions import (
    KINGS_COURT_LAST_COURT_PIECE,
    SHOBU_BOARD_CLEAR,
    WATCH_YOUR_BACK_LAST_PAIR,
    sample,
)
from tests.agents.test_every_agent import STALL
from tests.conftest import TIMED

FORCED_WINS = [
    pytest.param(KINGS_COURT_LAST_COURT_PIECE, {"C4E4"}, id="kings-court-last-court-piece"),
    pytest.param(
        SHOBU_BOARD_CLEAR,
        {f"bl{file}1 wda3 n1" for file in "abcd"},
        id="shobu-one-turn-board-clear",
    ),
    pytest.param(WATCH_YOUR_BACK_LAST_PAIR, {"4,4-4,3"}, id="watch-your-back-last-pair"),
]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize(("state", "winning"), FORCED_WINS)
def test_alphabeta_at_fixed_depth_takes_the_win_in_one(state, winning, depth) -> None:
    agent = AlphaBetaAgent(state.game, seed=depth, max_depth=depth)
    move = agent.choose(state, 30.0)
    assert state.game.format_move(move) in winning
    assert agent.last is not None
    assert agent.last.score == WIN - 1


@pytest.mark.parametrize(("state", "winning"), FORCED_WINS)
def test_alphabeta_stops_deepening_once_the_win_is_proved(state, winning) -> None:
    agent = AlphaBetaAgent(state.game, seed=1)
    agent.choose(state, 30.0)
    assert agent.last is not None
    assert agent.last.depth == 1
    assert agent.last.seconds < 5


def test_fixed_depth_is_the_deepest_search_finished() -> None:
    state = sample("kings-court", 2, seed=4)[1]
    agent = AlphaBetaAgent(state.game, seed=1, max_depth=2)
    agent.choose(state, 30.0)
    assert agent.last is not None
    assert agent.last.depth == 2


def test_alphabeta_sees_a_loss_coming_and_scores_it() -> None:
    """Black's lone Court piece on D4 is lost to C4E4 whatever black does but move it away:
    at depth 2 every move leaving it there scores a loss."""
    state = KINGS_COURT_LAST_COURT_PIECE.game.state_from_data(
        KINGS_COURT_LAST_COURT_PIECE.to_data() | {"ply": 11}
    )
    agent = AlphaBetaAgent(state.game, seed=1, max_depth=2)
    move = agent.choose(state, 30.0)
    assert move[0] == 27  # D4 steps out of C4's reach (to D3, D5 or E4)
    assert agent.last is not None
    assert abs(agent.last.score) < HEURISTIC


def test_the_transposition_table_answers_a_repeated_search_at_once() -> None:
    state = sample("shobu", 2, seed=2)[1]
    search = _Tree(evaluation_for(state.game), {}, float("inf"), time.perf_counter)
    value = search.node(state, 3, -INFINITY, INFINITY, 0)
    nodes = search.nodes
    assert search.node(state, 3, -INFINITY, INFINITY, 0) == value
    assert search.nodes == nodes + 1


@TIMED
@pytest.mark.parametrize("name", ["kings-court", "watch-your-back", "amazons", "shobu"])
def test_alphabeta_answers_within_its_budget(name: str) -> None:
    state = sample(name, 2, seed=3)[1]
    agent = AlphaBetaAgent(state.game, seed=1)
    start = time.perf_counter()
    move = agent.choose(state, 0.2)
    assert time.perf_counter() - start < 0.2 + STALL  # a loaded machine's pause allowed
    assert state.why_illegal(move) is None


@TIMED
@pytest.mark.parametrize("cutoff", [None, 4], ids=["random-playouts", "heuristic-playouts"])
@pytest.mark.parametrize("name", ["kings-court", "watch-your-back", "amazons", "shobu"])
def test_mcts_answers_within_its_budget(name: str, cutoff: int | None) -> None:
    state = get_game(name).new_game()
    agent = MCTSAgent(state.game, seed=1, cutoff=cutoff)
    start = time.perf_counter()
    move = agent.choose(state, 0.2)
    elapsed = time.perf_counter() - start
    assert clock.thinking_time(0.2) - 0.05 < elapsed < 0.2 + STALL
    assert agent.iterations > 0
    assert state.why_illegal(move) is None


def test_mcts_with_heuristic_playouts_finds_the_board_clear() -> None:
    agent = MCTSAgent(SHOBU_BOARD_CLEAR.game, seed=1, cutoff=2)
    move = agent.choose(SHOBU_BOARD_CLEAR, 1.0)
    assert SHOBU_BOARD_CLEAR.game.format_move(move).endswith("wda3 n1")


def test_a_budget_too_short_to_think_still_gets_a_legal_move() -> None:
    state = get_game("amazons").new_game()
    for agent in (AlphaBetaAgent(state.game, seed=1), MCTSAgent(state.game, seed=1)):
        assert state.why_illegal(agent.choose(state, 0.0)) is None


def test_a_per_move_limit_is_spent_nearly_whole_every_move() -> None:
    keeper = clock.TimeKeeper()
    assert [keeper.allot(2.0) for _ in range(3)] == [clock.thinking_time(2.0)] * 3
    assert not keeper.clock


def test_a_shrinking_budget_is_a_game_clock_shared_out_over_the_moves_to_come() -> None:
    keeper = clock.TimeKeeper()
    keeper.allot(20.0)  # a per-move limit, as far as anyone can tell
    assert keeper.allot(16.0) == pytest.approx(16.0 / clock.MOVES_TO_GO)
    assert keeper.clock
    assert keeper.allot(20.0) == pytest.approx(20.0 / clock.MOVES_TO_GO)


def test_a_first_budget_too_long_for_a_move_is_taken_for_a_game_clock() -> None:
    assert clock.TimeKeeper().allot(300.0) == pytest.approx(300.0 / clock.MOVES_TO_GO)
