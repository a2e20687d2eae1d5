"""Amazons' compiled kernel against the Python rules: same moves, ends, reasons and positions.

Random games are played in lockstep (tests/games/lockstep.py says what is compared), random
positions with arrows strewn about are asked the same questions, and the kernel's playouts are
replayed through the Python rules. The skip when no kernel is built turns into a failure under
`CI`, where a compiler is present.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games import amazons
from arbiter.games.amazons import GAME, MAX_PLY, AmazonsState
from tests.games.lockstep import both, kernel_or_skip, memory_held, python_rules
from tests.games.test_amazons import ONLY_VACATED_ARROW, position, random_position


@pytest.fixture(scope="module")
def kernel() -> amazons.Kernel:
    found: amazons.Kernel = kernel_or_skip(amazons)
    return found


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), arrow_share=st.sampled_from([0.0, 0.3, 0.6, 0.8, 0.9]))
def test_random_positions_get_the_same_answers(
    kernel: amazons.Kernel, seed: int, arrow_share: float
) -> None:
    state = random_position(seed, arrow_share)
    both(amazons, state.legal_moves, "legal moves", state)
    both(amazons, state.outcome, "outcome", state)
    rng = random.Random(seed)
    for _ in range(50):
        probe = (rng.randrange(100), rng.randrange(100), rng.randrange(100))
        both(amazons, lambda: state.why_illegal(probe), f"why_illegal{probe}", state)  # noqa: B023


@pytest.mark.long
def test_perft_to_depth_two_is_the_known_count_on_both_paths(kernel: amazons.Kernel) -> None:
    start = GAME.new_game()

    def perft() -> int:
        return sum(len(start.play(move).legal_moves()) for move in start.legal_moves())

    assert both(amazons, perft, "perft 2", start) == 4_307_152


def test_a_playout_draws_the_amazon_first_as_random_move_does(kernel: amazons.Kernel) -> None:
    # a1 has one move (a1-b1/a1) and j10 dozens: drawn amazon first, a1's move comes about half
    # the time; drawn uniformly over moves, almost never.
    rows = list(ONLY_VACATED_ARROW)
    rows[0], rows[1] = "Wx.B.....W", "xx........"
    state = position(*rows)
    board = (state.white, state.black, state.arrows, state.to_move)
    draws: Counter[amazons.Move] = Counter()
    for seed in range(2000):
        record: list[amazons.Move] = []
        kernel.playout(*board, seed, 1, record)
        draws[record[0]] += 1
    assert 850 < draws[GAME.parse_move("a1-b1/a1")] < 1150
    assert all(state.why_illegal(move) is None for move in draws)
    with python_rules(amazons):
        expected = state.random_move(random.Random(1))  # the same rule, on the Python side
    assert expected in set(state.legal_moves())


def test_random_playout_uses_the_kernel_and_stops_at_max_plies(kernel: amazons.Kernel) -> None:
    start = GAME.new_game()
    rng = random.Random(3)
    assert start.random_playout(rng, 0) == start
    assert start.random_playout(rng, 7).ply == 7
    end = start.random_playout(rng, MAX_PLY)
    assert end.outcome() is not None
    with python_rules(amazons):
        assert end.outcome() is not None
        assert start.random_playout(random.Random(3), 7).ply == 7


@pytest.mark.parametrize(
    ("board", "error"),
    [
        (("w", 0, 0, 0), "white must be an int bitboard"),
        ((0, -1, 0, 0), "black must not be negative"),
        ((0, 0, 1 << 100, 0), "arrows has a square beyond the board's 100"),
        ((0, 0, 1 << 200, 0), "arrows has a square beyond the board's 100"),
        ((0, 0, 0, 2), "to_move must be 0 or 1, not 2"),
    ],
)
def test_bad_input_is_refused_with_a_reason(
    kernel: amazons.Kernel, board: tuple[object, ...], error: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        kernel.legal_moves(*board)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError), match=error):
        kernel.playout(*board, 1, 10, None)  # type: ignore[arg-type]


def test_a_record_that_is_not_a_list_is_refused(kernel: amazons.Kernel) -> None:
    start = GAME.new_game()
    with pytest.raises(TypeError, match="record must be a list or None"):
        kernel.playout(start.white, start.black, start.arrows, 0, 1, 10, ())  # type: ignore[arg-type]


def test_any_amazon_count_is_safe(kernel: amazons.Kernel) -> None:
    # States built directly (not from rows) are not checked: the kernel must stay in bounds.
    crowded = AmazonsState((1 << 100) - 1 - (1 << 55), 0, 0, 0)
    assert len(both(amazons, crowded.legal_moves, "legal moves", crowded)) == 8  # into e6, back
    full = AmazonsState((1 << 100) - 1, 0, 0, 0)
    assert both(amazons, full.legal_moves, "legal moves", full) == []
    lone = AmazonsState(1 << 55, 0, 0, 0)
    assert len(both(amazons, lone.legal_moves, "legal moves", lone)) > 0


def test_ten_thousand_playouts_hold_no_memory(kernel: amazons.Kernel) -> None:
    start = GAME.new_game()
    board = (start.white, start.black, start.arrows, start.to_move)

    def run(count: int) -> None:
        for seed in range(count):
            kernel.playout(*board, seed, MAX_PLY, [] if seed % 2 else None)
            if seed % 100 == 0:
                kernel.legal_moves(*board)

    assert memory_held(run) < 64 * 1024
