"""Watch Your Back!'s compiled kernel against the Python rules: same moves, ends and positions.

Random games are played in lockstep (tests/games/lockstep.py says what is compared), perft
counts are taken both ways, and the kernel's playouts are replayed through the Python rules;
positions on the eve of each shrink, near the no-capture limit and with only a pass left check
one kernel move at a time. The skip when no kernel is built turns into a failure under `CI`,
where a compiler is present.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arbiter.games import watch_your_back
from arbiter.games.watch_your_back import GAME, PASS, PLACEMENTS, Move, WatchYourBackState
from tests.conftest import VOLUME
from tests.games.lockstep import both, kernel_or_skip, memory_held, perft, python_rules
from tests.games.test_watch_your_back import BEFORE_FIRST_SHRINK


@pytest.fixture(scope="module")
def kernel() -> watch_your_back.Kernel:
    found: watch_your_back.Kernel = kernel_or_skip(watch_your_back)
    return found


def board(rows: str, ply: int, since_capture: int = 0, limit: int = 64) -> WatchYourBackState:
    return WatchYourBackState.from_rows(rows, ply, since_capture, limit)


def playout_record(
    kernel: watch_your_back.Kernel, state: WatchYourBackState, seed: int, max_plies: int
) -> tuple[tuple[int, int, int, int, int], list[Move]]:
    """A kernel playout's end and its moves (a pass as `PASS`)."""
    record: list[Move | None] = []
    counters = (state.ply, state.shrinks, state.since_capture, state.no_capture_limit)
    end = kernel.playout(state.white, state.black, *counters, seed, max_plies, record)
    return end, [PASS if move is None else move for move in record]


@VOLUME
def test_perft_agrees_from_the_start_and_the_moving_phase(kernel: watch_your_back.Kernel) -> None:
    start = GAME.new_game()
    assert both(watch_your_back, lambda: perft(start, 2), "perft 2", start) == 2084
    for seed in range(8):
        rng = random.Random(seed)
        state = start
        while state.ply < PLACEMENTS:
            state = state.play(rng.choice(state.legal_moves()))
        both(watch_your_back, lambda: perft(state, 2), f"perft 2, seed {seed}", state)  # noqa: B023


BEFORE_SECOND_SHRINK = """
    ########
    #X----X#
    #--@O--#
    #-O--O@#
    #-@--@-#
    #--O@--#
    #X----X#
    ########
"""
LAST_BOARD = """
    ########
    ########
    ##X-@X##
    ##O---##
    ##-O-@##
    ##X-@X##
    ########
    ########
"""
STUCK = """
    ########
    ########
    ##XOOX##
    ##OOO@##
    ##O@@-##
    ##X@@X##
    ########
    ########
"""


@pytest.mark.parametrize(
    "state",
    [
        GAME.new_game(),
        board(BEFORE_FIRST_SHRINK, PLACEMENTS + 127),
        board(BEFORE_SECOND_SHRINK, PLACEMENTS + 191),
        board(LAST_BOARD, PLACEMENTS + 300, since_capture=7, limit=8),
        board(LAST_BOARD, PLACEMENTS + 300, since_capture=3),
        board(STUCK, PLACEMENTS + 250, since_capture=5),
    ],
    ids=["start", "first-shrink", "second-shrink", "limit", "last-board", "pass"],
)
def test_each_kernel_move_is_the_python_rules_move(
    kernel: watch_your_back.Kernel, state: WatchYourBackState
) -> None:
    """One ply at a time from positions where shrinks, the count and the pass decide."""
    for seed in range(100):
        end, moves = playout_record(kernel, state, seed, 1)
        assert len(moves) == 1
        assert moves[0] in state.legal_moves()
        with python_rules(watch_your_back):
            after = state.play(moves[0])
        assert (after.white, after.black, after.ply, after.shrinks, after.since_capture) == end


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (board(LAST_BOARD, PLACEMENTS + 300, since_capture=8, limit=8), "8 moves in a row"),
        (board(STUCK.replace("-", "@"), PLACEMENTS + 250), "neither player can ever move again"),
        (board(LAST_BOARD.replace("@", "-"), PLACEMENTS + 300), "black has fewer than 2 pieces"),
    ],
)
def test_a_playout_stops_where_the_python_rules_end_the_game(
    kernel: watch_your_back.Kernel, state: WatchYourBackState, reason: str
) -> None:
    assert state.random_playout(random.Random(1), 100) == state
    outcome = state.outcome()
    with python_rules(watch_your_back):
        assert state.outcome() == outcome
    assert outcome is not None
    assert outcome.reason.startswith(reason)


def test_random_playout_stops_at_max_plies_and_ends_games(kernel: watch_your_back.Kernel) -> None:
    start = GAME.new_game(no_capture_limit=4)
    rng = random.Random(3)
    assert start.random_playout(rng, 0) == start
    assert start.random_playout(rng, 30).ply == 30
    for _ in range(20):
        end = start.random_playout(rng, watch_your_back.max_plies(4))
        with python_rules(watch_your_back):
            assert end.outcome() is not None


def test_a_ply_beyond_any_game_plays_out_in_python(kernel: watch_your_back.Kernel) -> None:
    state = board(LAST_BOARD, 10**30, since_capture=3)
    end = state.random_playout(random.Random(2), 1000)
    assert end.outcome() is not None


@pytest.mark.parametrize("moving", [False, True])
def test_a_playout_draws_uniformly_over_the_legal_moves(
    kernel: watch_your_back.Kernel, moving: bool
) -> None:
    state = GAME.new_game()
    rng = random.Random(6)
    while moving and state.ply < PLACEMENTS:
        state = state.play(rng.choice(state.legal_moves()))
    moves = state.legal_moves()
    draws: Counter[Move] = Counter()
    for seed in range(200 * len(moves)):
        draws[playout_record(kernel, state, seed, 1)[1][0]] += 1
    assert set(draws) == set(moves)
    assert all(120 < count < 280 for count in draws.values()), draws


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda k: k.moves("w", 0, 0), "own must be an int bitboard"),
        (lambda k: k.moves(0, -1, 0), "other must be a bitboard of 64 squares"),
        (lambda k: k.can_move(1, 1, 0), "own and other share a square"),
        (lambda k: k.moves(1, 2, 3), "shrinks must be from 0 to 2"),
        (lambda k: k.squares(1 << 64), "board must be a bitboard of 64 squares"),
        (lambda k: k.squares(), r"squares\(\) takes 1 arguments \(0 given\)"),
        (lambda k: k.playout(1, 1, 0, 0, 0, 64, 1, 10, None), "white and black share a square"),
        (lambda k: k.playout(0, 0, -1, 0, 0, 64, 1, 10, None), "ply must be from 0"),
        (lambda k: k.playout(0, 0, 0, 0, 0, 0, 1, 10, None), "limit must be from 1"),
        (lambda k: k.playout(0, 0, 0, 0, 0, 64, 1, 10, ()), "record must be a list or None"),
    ],
)
def test_bad_input_is_refused_with_a_reason(
    kernel: watch_your_back.Kernel, call: Any, error: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        call(kernel)


def test_ten_thousand_playouts_hold_no_memory(kernel: watch_your_back.Kernel) -> None:
    rng = random.Random(5)
    state = GAME.new_game(no_capture_limit=2)
    while state.ply < PLACEMENTS + 180:  # short playouts that still shrink the board
        state = state.play(rng.choice(state.legal_moves()))
    counters = (state.ply, state.shrinks, state.since_capture, state.no_capture_limit)

    def run(count: int) -> None:
        for seed in range(count):
            record: list[Move | None] | None = [] if seed % 2 else None
            kernel.playout(state.white, state.black, *counters, seed, 10**6, record)
            if seed % 16 == 0:
                kernel.moves(state.white, state.black, state.shrinks)
                kernel.squares(state.white)

    assert memory_held(run) < 64 * 1024
