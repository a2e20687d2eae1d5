"""`greedy`: one ply ahead by the game's evaluation, a win taken at once, and on time."""

from __future__ import annotations

import time

from arbiter.agents.greedy import GreedyAgent
from arbiter.games import get_game
from arbiter.games.kings_court import KingsCourtState
from tests.agents.positions import KINGS_COURT_LAST_COURT_PIECE, SHOBU_BOARD_CLEAR
from tests.conftest import TIMED


def test_greedy_takes_a_win_in_one() -> None:
    for state in (KINGS_COURT_LAST_COURT_PIECE, SHOBU_BOARD_CLEAR):
        agent = GreedyAgent(state.game, seed=1)
        assert state.play(agent.choose(state, 5.0)).outcome().winner == state.turn


def test_greedy_captures_by_the_evaluation() -> None:
    """A capture that is not a win: C4E4E6 takes two pieces, C4E4 one; greedy takes two."""
    rows = ["b.......", "........", "........", "....b...", "..wb..b.", ".....b..", "........"]
    state = KingsCourtState.from_rows([*rows, "w......."])
    agent = GreedyAgent(state.game, seed=1)
    assert state.game.format_move(agent.choose(state, 5.0)) == "C4E4E6"


@TIMED
def test_greedy_answers_in_time_where_one_ply_is_thousands_of_positions() -> None:
    state = get_game("amazons").new_game()
    agent = GreedyAgent(state.game, seed=1)
    start = time.perf_counter()
    move = agent.choose(state, 0.05)
    assert time.perf_counter() - start < 0.05
    assert state.why_illegal(move) is None
