"""Amazons search: the packed territory flood, moves in parts, and MCTS over them."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.agents.evaluations import amazons
from arbiter.agents.search import MCTSAgent
from arbiter.games import get_game
from arbiter.games.amazons import FULL, NEIGHBOURS, AmazonsState
from tests.conftest import TIMED

GAME = get_game("amazons")
BENCH = Path(__file__).resolve().parents[2] / "bench"


def random_position(seed: int, plies: int) -> AmazonsState:
    rng = random.Random(seed)
    state: AmazonsState = GAME.new_game()
    while state.outcome() is None and state.ply < plies:
        state = state.play(state.random_move(rng))
    return state


def king_distances(sources: int, empty: int) -> dict[int, int]:
    """Steps from the nearest source to each empty square it reaches, square by square."""
    distance, frontier, step = {}, [s for s in range(100) if sources >> s & 1], 0
    while frontier:
        step += 1
        frontier = [
            n
            for s in frontier
            for n in range(100)
            if NEIGHBOURS[s] >> n & 1 and empty >> n & 1 and n not in distance
        ]
        frontier = list(dict.fromkeys(frontier))
        distance.update(dict.fromkeys(frontier, step))
    return distance


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 90))
def test_the_packed_flood_counts_what_two_distance_maps_say(seed: int, plies: int) -> None:
    state = random_position(seed, plies)
    empty = FULL & ~state.occupied
    mine, theirs = king_distances(state.white, empty), king_distances(state.black, empty)
    never = 10**9
    owned_mine = sum(mine[s] < theirs.get(s, never) for s in mine)
    owned_theirs = sum(theirs[s] < mine.get(s, never) for s in theirs)
    shared = sum(mine[s] == theirs.get(s) for s in mine)
    assert amazons.territory(state.white, state.black, empty) == (
        owned_mine,
        owned_theirs,
        shared,
    )


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 90))
def test_moves_chosen_in_parts_are_exactly_the_legal_moves(seed: int, plies: int) -> None:
    state = random_position(seed, plies)
    by_parts = {
        (src, dst, arrow)
        for src in amazons.part_choices(state, ())
        for dst in amazons.part_choices(state, (src,))
        for arrow in amazons.part_choices(state, (src, dst))
    }
    assert by_parts == set(state.legal_moves())


def test_arrows_are_ordered_by_the_board_they_make() -> None:
    state = random_position(5, 30)
    src = amazons.part_choices(state, ())[0]
    dst = amazons.part_choices(state, (src,))[0]
    arrows = amazons.part_choices(state, (src, dst))
    amazons.order_parts(state, (src, dst), arrows)
    scores = [amazons.evaluate(state.play((src, dst, arrow)), state.turn) for arrow in arrows]
    assert scores == sorted(scores, reverse=True)


WALL_IN = AmazonsState.from_rows(
    [
        "BBx.......",
        "BBx.......",
        "xx........",
        "..........",
        "..........",
        "..........",
        "..........",
        "..........",
        "..........",
        "..W.W..W.W",
    ]
)
"""White to move. Black's four amazons can only step to c8: any white move that puts an amazon
or an arrow on c8 wins at once, and any other loses the chance."""


def test_mcts_in_parts_takes_the_move_that_walls_the_opponent_in() -> None:
    agent = MCTSAgent(GAME, seed=1, cutoff=1)
    move = agent.choose(WALL_IN, 1.0)
    assert WALL_IN.play(move).outcome() is not None
    assert agent.iterations > 0


@TIMED
def test_mcts_reports_its_playouts_and_builds_whole_moves() -> None:
    state = random_position(7, 20)
    agent = MCTSAgent(GAME, seed=2, cutoff=1)
    move = agent.choose(state, 0.3)
    assert state.why_illegal(move) is None
    assert agent.iterations > 20  # at least what a tree of whole moves manages in that time


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_search_bench_measures_the_baseline_evaluation_from_git() -> None:
    bench = load("amazons_search")
    old = bench.baseline_evaluation(bench.BASELINE)
    positions = bench.middle_games(3)
    assert all(16 <= state.ply <= 50 and state.outcome() is None for state in positions)
    for state in positions:
        assert old.evaluate(state, 0) == amazons.evaluate(state, 0)  # same counts, faster


def test_the_wilson_interval_brackets_the_rate_even_at_the_extremes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))  # it imports bench/strength.py, as a script would
    wilson = load("versus").wilson
    low, high = wilson(40, 40)
    assert 0.9 < low < 1.0
    assert high == 1.0
    low, high = wilson(20, 40)
    assert low < 0.5 < high
    assert abs((low + high) / 2 - 0.5) < 1e-9
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 20)
    assert low == 0.0
    assert f"{low:.0%}" == "0%"
    assert 0.1 < high < 0.2
