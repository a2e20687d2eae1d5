"""The per-game evaluations: what each one rewards, on positions built from the games' text."""

from __future__ import annotations

import random

import pytest

from arbiter.agents.evaluation import (
    HEURISTIC,
    MATERIAL,
    WIN,
    evaluation_for,
    outcome_value,
    result,
    score,
)
from arbiter.agents.evaluations import amazons, kings_court, shobu, war_of_life, watch_your_back
from arbiter.games import GAME_NAMES, Outcome, get_game
from arbiter.games.amazons import FULL as AMAZONS_FULL
from arbiter.games.amazons import AmazonsState
from arbiter.games.kings_court import KingsCourtState
from arbiter.games.shobu import ShobuState
from arbiter.games.war_of_life import WarOfLifeState
from arbiter.games.watch_your_back import PLACEMENTS, WatchYourBackState
from tests.agents.positions import sample


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_evaluation_is_one_sides_gain_and_the_others_loss(name: str) -> None:
    """Negamax needs `evaluate(s, me) == -evaluate(s, them)`; and no score reaches a result's."""
    evaluate = evaluation_for(get_game(name)).evaluate
    for state in sample(name, 30, seed=8):
        mine, theirs = evaluate(state, 0), evaluate(state, 1)
        assert mine == pytest.approx(-theirs)
        assert abs(mine) < HEURISTIC


def test_every_game_has_its_own_evaluation() -> None:
    assert all(evaluation_for(get_game(name)) is not MATERIAL for name in GAME_NAMES)


def test_a_finished_game_scores_its_result() -> None:
    state = sample("kings-court", 1)[0]
    assert outcome_value(Outcome.win(0, "x"), 0) == 1
    assert outcome_value(Outcome.win(0, "x"), 1) == -1
    assert outcome_value(Outcome.draw("x"), 0) == 0
    assert outcome_value(Outcome.both_forfeit("x"), 1) == 0  # 0 points each: no gain on them
    rows = ["b.......", "........", "........", "........", "...w....", "........", "........"]
    over = KingsCourtState.from_rows([*rows, "........"], ply=11)
    assert score(over, 0, kings_court.EVALUATION) == WIN  # black to move, no Court piece
    assert abs(score(state, 0, kings_court.EVALUATION)) < HEURISTIC


@pytest.mark.parametrize("name", ["kings-court", "shobu"])
def test_a_quick_result_agrees_with_the_rules_but_may_miss_a_player_without_moves(name) -> None:
    quick_result = evaluation_for(get_game(name)).quick_result
    assert quick_result is not None
    game, rng, checked = get_game(name), random.Random(5), 0
    for _ in range(40):
        state = game.new_game()
        while True:
            quick, outcome = quick_result(state), state.outcome()
            if quick is not None or outcome is None:
                assert quick == result(state)
            else:
                assert "no legal" in outcome.reason
            checked += outcome is not None
            if outcome is not None:
                break
            state = state.play(state.random_move(rng))
    assert checked == 40


# -- King's Court: the Court rule -------------------------------------------------------------


def court_position(*rows: str, ply: int = 10) -> KingsCourtState:
    return KingsCourtState.from_rows(list(rows), ply=ply)


def test_kings_court_a_second_court_piece_is_worth_more_than_a_piece_outside() -> None:
    two_in_court = court_position(
        "b.......",
        "........",
        "...w....",
        "........",
        "..w.....",
        "...b....",
        "........",
        "b.......",
    )
    one_in_court = court_position(
        "b.......",
        "...w....",
        "........",
        "........",
        "..w.....",
        "...b....",
        "........",
        "b.......",
    )
    assert kings_court_value(two_in_court) > kings_court_value(one_in_court) + 30


def kings_court_value(state: KingsCourtState) -> float:
    return kings_court.evaluate(state, 0)


def test_kings_court_a_court_piece_open_to_a_jump_is_half_lost_when_they_move() -> None:
    safe = court_position(
        "........",
        "........",
        ".b......",
        "........",
        "..w.....",
        "...b....",
        "........",
        "w.......",
        ply=11,
    )
    open_to_jump = court_position(
        "........",
        "........",
        "........",
        "........",
        ".bw.....",
        "...b....",
        "........",
        "w.......",
        ply=11,
    )
    assert kings_court.jumpable(open_to_jump.white, open_to_jump.black, 0) == 0
    empty = kings_court.FULL & ~(open_to_jump.white | open_to_jump.black)
    assert kings_court.jumpable(open_to_jump.white, open_to_jump.black, empty) == 1 << 26  # C4
    assert kings_court_value(open_to_jump) < kings_court_value(safe) - 100


def test_kings_court_orders_the_biggest_capture_first() -> None:
    state = court_position(
        "........",
        "........",
        "........",
        "....b...",
        "..wb....",
        "........",
        "........",
        "w.......",
    )
    moves = state.legal_moves()
    kings_court.order(state, moves)
    assert [state.game.format_move(move) for move in moves[:2]] == ["C4E4E6", "C4E4"]
    assert all(len(move) == 2 and abs(move[1] - move[0]) in (1, 8) for move in moves[2:])


# -- Shobu: the seed's per-board balance, quadratic sum ---------------------------------------


def shobu_value(boards: dict[str, list[str]], turn: str = "black") -> float:
    return shobu.evaluate(ShobuState.from_rows(boards, turn), 0)


def test_shobu_start_leans_only_to_the_side_to_move() -> None:
    assert 0 < shobu_value({}) < shobu.UNIT * 4
    assert shobu_value({}, turn="white") == -shobu_value({})


def test_shobu_one_board_nearly_won_outweighs_a_lead_spread_thin() -> None:
    """Quadratic sum: one board with white down to one stone (3 ahead) beats being one stone
    ahead on three boards, though both are three stones in all."""
    one_board = shobu_value({"white-dark": ["W...", "....", "....", "BBBB"]})
    spread = shobu_value(
        {
            "white-dark": ["WWW.", "....", "....", "BBBB"],
            "white-light": ["WWW.", "....", "....", "BBBB"],
            "black-dark": ["WWW.", "....", "....", "BBBB"],
        }
    )
    assert one_board > spread > 0


def test_shobu_a_board_where_we_are_down_to_one_stone_is_grave() -> None:
    down = shobu_value({"black-dark": ["WWWW", "....", "....", "B..."]})
    # -(3 behind + 3 of ours missing) squared, and the three level boards' lean to black
    assert down == pytest.approx(shobu.UNIT * (-36 + 3 * (8 * shobu.TEMPO) ** 2))


def test_shobu_orders_pushing_turns_first() -> None:
    state = ShobuState.from_rows({"white-dark": ["W...", "B...", "....", "...."]})
    moves = state.legal_moves()
    shobu.order(state, moves)
    assert state.game.format_move(moves[0]).endswith("wda3 n1")


# -- Watch Your Back!: material, danger, the shrinking board ----------------------------------


def wyb(rows: str, ply: int) -> WatchYourBackState:
    return WatchYourBackState.from_rows(rows, ply)


EDGE_PIECE = """
X------X
--------
---O----
-----@--
--------
----@---
--------
XO-----X
"""
"""White's 1,7 stands on the edge, which the first shrink (after move 128) removes."""


def test_watch_your_back_a_piece_on_the_edge_loses_worth_as_the_shrink_nears() -> None:
    values = [
        watch_your_back.evaluate(wyb(EDGE_PIECE, PLACEMENTS + moved), 0)
        for moved in (10, 100, 120, 126)
    ]
    assert values[0] == values[1] > values[2] > values[3]
    share = 1 - 2 / watch_your_back.DOOM_HORIZON  # 2 moves before the shrink
    assert values[0] - values[3] == pytest.approx(watch_your_back.DOOM * share)


def test_watch_your_back_a_flanked_piece_is_in_danger_when_the_enemy_moves() -> None:
    rows = """
X------X
--------
--------
--@O----
----@---
--------
------O-
X------X
"""
    danger = watch_your_back.in_danger
    state = wyb(rows, PLACEMENTS + 11)
    arrivals = watch_your_back.arrivals(state, 1)
    assert danger(state.white, state.black, arrivals) == 1 << (3 * 8 + 3)  # 3,3: @ can reach 4,3
    assert watch_your_back.evaluate(state, 0) < -watch_your_back.DANGER_WAITING / 2


# -- Amazons: territory and mobility ----------------------------------------------------------

WALLED = [
    "....x.....",
    ".W..x.....",
    "....x.....",
    "W...x.....",
    "....x.B...",
    "....x.....",
    "....x...B.",
    ".W..x.....",
    "....x....B",
    "W...x..B..",
]


def test_amazons_territory_counts_the_rooms_behind_a_wall() -> None:
    state = AmazonsState.from_rows(WALLED)
    empty = AMAZONS_FULL & ~state.occupied
    assert amazons.territory(state.white, state.black, empty) == (36, 46, 0)
    assert amazons.evaluate(state, 0) < -5 * amazons.SQUARE


def test_amazons_a_walled_in_amazon_is_a_lost_one() -> None:
    rows = ["xx........", "Wx.....B..", "xx........", *(["." * 10] * 3)]
    state = AmazonsState.from_rows([*rows, "W..B......", "..........", "W.....B...", "W.....B..."])
    empty = AMAZONS_FULL & ~state.occupied
    assert (
        amazons.freedom(1 << 80, empty, amazons.FREEDOM) == amazons.FREEDOM[0]
    )  # a9, arrows all round
    assert amazons.FREEDOM[0] < -5 * amazons.SQUARE


# -- War of Life: pieces after the crank ------------------------------------------------------


def test_war_of_life_counts_pieces() -> None:
    rows = ["bb......", "bb......", "........", "........", "......rr", "......r.", "", ""]
    state = WarOfLifeState.from_rows([row or "........" for row in rows])
    assert war_of_life.evaluate(state, 0) == war_of_life.PIECE
