"""Shobu's compiled rules (games/native/shobu.c) against its Python rules, in lockstep.

The checks are bench/shobu_lockstep.py's, which runs them over ten thousand games; here a fixed
batch and Hypothesis's seeds keep the suite's share to a few seconds. Skipped where
`ARBITER_PURE_PYTHON` asks for the Python rules alone, and where no kernel is built unless
`CI=true` (there a missing kernel fails).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from arbiter.games import shobu
from arbiter.games._native import pure_python
from arbiter.games.shobu import GAME, KERNEL, ShobuState
from bench.shobu_lockstep import check_playout, check_position, perfts, random_position
from tests.conftest import VOLUME
from tests.games.lockstep import memory_held, python_rules

pytestmark = pytest.mark.skipif(
    pure_python() or (KERNEL is None and os.environ.get("CI") != "true"),
    reason="the Shobu kernel is not built, or ARBITER_PURE_PYTHON refuses it",
)


def test_the_kernel_compiles_without_a_warning() -> None:
    compiler = shutil.which("gcc")
    if compiler is None:
        pytest.skip("no gcc to compile with")
    source = Path(__file__).parents[2] / "games" / "native" / "shobu.c"
    include = sysconfig.get_paths()["include"]
    flags = ["-c", "-o", os.devnull, "-O2", "-Wall", "-Wextra", "-Werror", f"-I{include}"]
    done = subprocess.run([compiler, *flags, str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@VOLUME
def test_c_playouts_replay_through_the_python_rules() -> None:
    for seed in range(150):
        check_playout(seed)


@VOLUME
def test_random_positions_agree_including_ended_ones() -> None:
    ends = set()
    for seed in range(300):
        state = random_position(random.Random(seed))
        check_position(state, random.Random(seed))
        with python_rules(shobu):
            outcome = state.outcome()
        ends.add(None if outcome is None else outcome.reason.split()[-1])
    assert ends == {None, "board", "stones"}  # going on, the limit, a cleared board


WALLED = ["....", "....", "WW..", "BW.."]
"""A homeboard whose one Black stone has no passive move: walled in by White in its corner."""


@pytest.mark.parametrize(
    "boards",
    [
        {"black-dark": WALLED, "black-light": WALLED},  # no passive move at all
        {  # passive moves on black-light, but none an aggressive move can follow
            "black-dark": ["BW..", "WW..", "....", "...."],
            "black-light": ["W..W", ".W..", "....", "...B"],
            "white-dark": ["B..W", "....", "..W.", "...."],
            "white-light": ["W...", "....", "W.B.", "...."],
        },
    ],
)
def test_positions_without_a_turn_agree(boards: dict[str, list[str]]) -> None:
    for turn in ("black", "white"):
        state = ShobuState.from_rows(boards, turn)
        check_position(state, random.Random(1))
    outcome = ShobuState.from_rows(boards).outcome()
    assert outcome is not None
    assert outcome.reason == "black has no legal turn"


@VOLUME
def test_perft_two_agrees_from_the_start_and_from_the_middle() -> None:
    positions = [GAME.new_game(), GAME.new_game().random_playout(random.Random(5), 40)]
    counts = [perfts(state, 2) for state in positions]
    assert counts[0] == (50508, 50508)
    assert counts[1][0] == counts[1][1] > 0


def test_a_whole_playout_ends_the_game_or_stops_at_its_plies() -> None:
    start = GAME.new_game(no_capture_limit=30)
    ended = start.random_playout(random.Random(1), 10**6)
    assert ended.outcome() is not None
    assert type(ended) is ShobuState
    assert start.random_playout(random.Random(1), 7).ply == 7
    assert start.random_playout(random.Random(1), 0) == start


def test_random_move_draws_as_the_python_rules_do_or_fails_as_they_do() -> None:
    state = GAME.new_game()
    with python_rules(shobu):
        python_draw = state.random_move(random.Random(9))
    assert state.random_move(random.Random(9)) == python_draw
    turnless = ShobuState.from_rows({"black-dark": WALLED, "black-light": WALLED})
    with python_rules(shobu), pytest.raises(ValueError, match="empty range"):
        turnless.random_move(random.Random(1))
    with pytest.raises(ValueError, match="empty range"):
        turnless.random_move(random.Random(1))


def test_why_illegal_of_what_is_not_a_turn_tuple_is_the_python_rules_answer() -> None:
    state = GAME.new_game()
    as_list: list[int] = [0, 48, 0, 1]  # bda1 wla1 n1
    assert state.why_illegal(as_list) is None  # type: ignore[arg-type]
    off_board = GAME.parse_move("bdd1 wld1 e1")
    with python_rules(shobu):
        python_reason = state.why_illegal(off_board)
    assert state.why_illegal(off_board) == python_reason
    assert python_reason is not None


def test_play_refuses_a_turn_off_the_tables_instead_of_reading_past_them() -> None:
    state = GAME.new_game()
    for bad in [(64, 0, 0, 1), (0, 0, 8, 1), (0, 0, 0, 3), (15, 15, 0, 1), (0, 0), "n1"]:
        with pytest.raises(ValueError, match="not a Shobu turn"):
            state.play(bad)  # type: ignore[arg-type]


def test_the_kernel_refuses_wrong_arguments_with_a_type_error() -> None:
    assert KERNEL is not None
    state = GAME.new_game()
    with pytest.raises(TypeError, match="takes 1 arguments"):
        KERNEL.legal_moves(state, state)  # type: ignore[call-arg]
    with pytest.raises(AttributeError):
        KERNEL.legal_moves("not a state")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list or None"):
        KERNEL.playout(state, 1, 5, ())  # type: ignore[arg-type]


@VOLUME
def test_ten_thousand_calls_of_each_kernel_function_hold_no_memory() -> None:
    assert KERNEL is not None
    states = [GAME.new_game().random_playout(random.Random(n), n) for n in range(50)]
    rng = random.Random(1)

    def calls(count: int) -> None:
        for n in range(count):
            state = states[n % len(states)]
            moves = state.legal_moves()
            state.play(moves[n % len(moves)])
            state.why_illegal(moves[0])
            state.why_illegal((0, 0, 0, 1))
            state.random_move(rng)
            state.outcome()
            KERNEL.playout(state, n, 4, [])

    grown = memory_held(calls)  # its warm-up fills the reasons' sentences, the Random's state
    assert grown < 16_000, f"{grown} bytes still held after 10,000 calls of each"
