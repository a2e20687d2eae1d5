"""War of Life's compiled kernel against the Python rules: same cranks, ends and positions.

Random games are played in lockstep (tests/games/lockstep.py says what is compared), random
boards are cranked both ways, and the kernel's playouts are replayed through the Python rules.
The skip when no kernel is built turns into a failure under `CI`, where a compiler is present.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games import war_of_life
from arbiter.games.war_of_life import GAME, MAX_PLY, Move, WarOfLifeState, crank
from tests.games.lockstep import both, kernel_or_skip, memory_held, perft, python_rules


@pytest.fixture(scope="module")
def kernel() -> war_of_life.Kernel:
    found: war_of_life.Kernel = kernel_or_skip(war_of_life)
    return found


@settings(max_examples=300, deadline=None)
@given(blue=st.integers(0, 2**64 - 1), red=st.integers(0, 2**64 - 1))
def test_random_boards_crank_alike(kernel: war_of_life.Kernel, blue: int, red: int) -> None:
    red &= ~blue  # a cell holds one piece
    both(war_of_life, lambda: crank(blue, red), f"crank({blue}, {red})", None)


def test_perft_to_depth_two_agrees(kernel: war_of_life.Kernel) -> None:
    for seed in range(5):
        start = GAME.new_game(seed=seed)
        assert both(war_of_life, lambda: perft(start, 2), "perft 2", start) > 1000  # noqa: B023


def test_a_playout_draws_uniformly_over_the_legal_moves(kernel: war_of_life.Kernel) -> None:
    state = GAME.new_game(seed=0)
    moves = state.legal_moves()
    draws: Counter[Move] = Counter()
    for seed in range(200 * len(moves)):
        record: list[tuple[int, int]] = []
        kernel.playout(state.blue, state.red, state.ply, MAX_PLY, seed, 1, record)
        draws[Move(*record[0])] += 1
    assert set(draws) == set(moves)
    assert all(120 < count < 280 for count in draws.values()), draws


def test_random_playout_uses_the_kernel_and_stops_at_max_plies(kernel: war_of_life.Kernel) -> None:
    start = GAME.new_game(seed=7)
    rng = random.Random(3)
    assert start.random_playout(rng, 0) == start
    stopped = start.random_playout(rng, 2)
    assert stopped.ply == 2 or stopped.outcome() is not None
    end = start.random_playout(rng, MAX_PLY)
    assert end.outcome() is not None
    with python_rules(war_of_life):
        assert end.outcome() is not None
        assert start.random_playout(random.Random(3), MAX_PLY).outcome() is not None


def test_the_exhausted_draw_stops_a_playout(kernel: war_of_life.Kernel) -> None:
    # Two still blocks far apart, one step left before the move limit.
    rows = ["bb......", "bb......", "........", "........", "........", "......rr", "......rr"]
    state = WarOfLifeState.from_rows([*rows, "........"], ply=MAX_PLY - 1)
    end = state.random_playout(random.Random(1), 10)
    assert end.ply == MAX_PLY
    assert end.outcome() == both(war_of_life, end.outcome, "outcome", end)


@pytest.mark.parametrize(
    ("board", "error"),
    [
        (("b", 0), "blue must be an int bitboard"),
        ((0, -1), "red must be a bitboard of the 64 squares"),
        ((1 << 64, 0), "blue must be a bitboard of the 64 squares"),
    ],
)
def test_bad_input_is_refused_with_a_reason(
    kernel: war_of_life.Kernel, board: tuple[object, object], error: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        kernel.crank(*board)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError), match=error):
        kernel.playout(*board, 0, MAX_PLY, 1, 10, None)  # type: ignore[arg-type]


def test_a_record_that_is_not_a_list_is_refused(kernel: war_of_life.Kernel) -> None:
    start = GAME.new_game(seed=1)
    with pytest.raises(TypeError, match="record must be a list or None"):
        kernel.playout(start.blue, start.red, 0, MAX_PLY, 1, 10, ())  # type: ignore[arg-type]


def test_ten_thousand_playouts_hold_no_memory(kernel: war_of_life.Kernel) -> None:
    starts = [GAME.new_game(seed=seed) for seed in range(100)]

    def run(count: int) -> None:
        for seed in range(count):
            start = starts[seed % len(starts)]
            kernel.playout(
                start.blue, start.red, 0, MAX_PLY, seed, MAX_PLY, [] if seed % 2 else None
            )
            kernel.crank(start.blue, start.red)

    assert memory_held(run) < 64 * 1024
