"""King's Court's compiled kernel against the Python rules: same moves, ends and positions.

Random games are played in lockstep (tests/games/lockstep.py says what is compared), perft
counts are taken both ways, and the kernel's playouts are replayed through the Python rules.
The end rules get positions of their own: the double forfeit of the no-capture limit, the loss
of the last Court piece, no legal move. The skip when no kernel is built turns into a failure
under `CI`, where a compiler is present.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arbiter.games import Result, kings_court
from arbiter.games.kings_court import GAME, KingsCourtState, Move
from tests.conftest import VOLUME
from tests.games.lockstep import both, kernel_or_skip, memory_held, perft, python_rules
from tests.games.test_kings_court import BOXED_IN, QUIET


@pytest.fixture(scope="module")
def kernel() -> kings_court.Kernel:
    found: kings_court.Kernel = kernel_or_skip(kings_court)
    return found


def board(*rows: str, **kwargs: Any) -> KingsCourtState:
    return KingsCourtState.from_rows(rows, **kwargs)


@VOLUME
@pytest.mark.long
def test_perft_from_the_start_to_the_first_jumps_agrees(kernel: kings_court.Kernel) -> None:
    start = GAME.new_game()
    counts = [both(kings_court, lambda: perft(start, d), f"perft {d}", start) for d in range(6)]  # noqa: B023
    assert counts == [1, 8, 16, 192, 2616, 75580]


@VOLUME
def test_perft_from_positions_of_random_games_agrees(kernel: kings_court.Kernel) -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new_game()
        for _ in range(12 + 4 * seed):
            moves = state.legal_moves()
            if not moves or not state.play(moves[0]).legal_moves():
                break
            state = state.play(rng.choice(moves))
        both(kings_court, lambda: perft(state, 2), f"perft 2, seed {seed}", state)  # noqa: B023


def test_a_playout_ends_in_the_double_forfeit_exactly_where_the_rules_do(
    kernel: kings_court.Kernel,
) -> None:
    """One move from the limit, a playout either captures (C4E4) or forfeits at once."""
    state = board(*QUIET, ply=60, since_capture=50)
    ends: Counter[Result] = Counter()
    for seed in range(200):
        end = state.random_playout(random.Random(seed), 1)
        outcome = end.outcome()
        with python_rules(kings_court):
            assert end.outcome() == outcome
            assert end in [state.play(move) for move in state.legal_moves()]
        if end.since_capture == 0:
            assert outcome is None
        else:
            assert end.since_capture == 51
            assert outcome is not None
            assert outcome.result is Result.BOTH_FORFEIT
            ends[outcome.result] += 1
    assert ends[Result.BOTH_FORFEIT] > 100  # one capture among a dozen moves


# White to move with no piece in the Court (black's E6 is).
OUT_OF_COURT = ("........", "........", "....b...", *(["........"] * 4), "w.......")


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (board(*QUIET, ply=60, since_capture=51), "51 moves without a capture"),
        (board(*OUT_OF_COURT, ply=60), "white has no piece in the Court"),
        (board(*BOXED_IN, ply=2), "white has no legal move"),
    ],
)
def test_a_playout_stops_where_the_python_rules_end_the_game(
    kernel: kings_court.Kernel, state: KingsCourtState, reason: str
) -> None:
    assert state.random_playout(random.Random(1), 100) == state
    outcome = state.outcome()
    with python_rules(kings_court):
        assert state.outcome() == outcome
    assert outcome is not None
    assert outcome.reason == reason


def test_random_playout_stops_at_max_plies_and_ends_games(kernel: kings_court.Kernel) -> None:
    start = GAME.new_game(no_capture_limit=5)
    rng = random.Random(3)
    assert start.random_playout(rng, 0) == start
    assert start.random_playout(rng, 1).first_direction is not None  # move 2 needs it
    assert start.random_playout(rng, 3).ply == 3
    for _ in range(20):
        end = start.random_playout(rng, kings_court.max_plies(5))
        with python_rules(kings_court):
            assert end.outcome() is not None


def test_a_limit_beyond_the_options_range_plays_out_in_python(kernel: kings_court.Kernel) -> None:
    """Only hand-made data sets such a limit; the playout still ends (on the Court rule or no
    legal move, as the count never reaches it)."""
    state = board(*QUIET, ply=60, since_capture=50, no_capture_limit=10**30)
    end = state.random_playout(random.Random(2), 10**6)
    assert end.outcome() is not None or end.ply == 60 + 10**6


def test_the_opening_holds_in_a_playout(kernel: kings_court.Kernel) -> None:
    """Move 1 slides into the Court, move 2 the opposite way, jumps wait for move 5."""
    start = GAME.new_game()
    for seed in range(300):
        record: list[Move] = []
        kernel.playout(start.white, start.black, 0, 0, -1, 0, 50, seed, 5, record)
        first, second = record[0], record[1]
        assert first[1] - first[0] == -(second[1] - second[0])
        assert all(len(move) == 2 for move in record[:4])
        assert all(kings_court.COURT >> move[1] & 1 for move in record[:2])


def test_a_playout_draws_uniformly_over_the_legal_moves(kernel: kings_court.Kernel) -> None:
    rng = random.Random(4)
    state = GAME.new_game()
    for _ in range(16):
        state = state.play(rng.choice(state.legal_moves()))
    moves = state.legal_moves()
    assert any(len(move) > 2 or abs(move[1] - move[0]) == 16 for move in moves)  # jumps too
    draws: Counter[Move] = Counter()
    for seed in range(200 * len(moves)):
        record: list[Move] = []
        board_ = (state.white, state.black, state.turn, 4, -1, state.since_capture)
        kernel.playout(*board_, state.no_capture_limit, seed, 1, record)
        draws[record[0]] += 1
    assert set(draws) == set(moves)
    assert all(120 < count < 280 for count in draws.values()), draws


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (("w", 0, 4, -1), "own must be an int bitboard"),
        ((-1, 0, 4, -1), "own must be a bitboard of 64 squares"),
        ((0, 1 << 64, 4, -1), "opp must be a bitboard of 64 squares"),
        ((1, 1, 4, -1), "own and opp share a square"),
        ((1, 2, 5, -1), "opening must be from 0 to 4"),
        ((1, 2, 1, 4), "first_direction must be from -1 to 3"),
        ((1, 2, 4), r"legal_moves\(\) takes 4 arguments \(3 given\)"),
    ],
)
def test_bad_input_is_refused_with_a_reason(
    kernel: kings_court.Kernel, arguments: tuple[Any, ...], error: str
) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        kernel.legal_moves(*arguments)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({0: 1, 1: 1}, "white and black share a square"),
        ({5: -1}, "since_capture must be from 0"),
        ({6: 0}, "limit must be from 1"),
        ({8: -1}, "max_plies must be from 0"),
        ({9: ()}, "record must be a list or None"),
    ],
)
def test_bad_playout_input_is_refused_with_a_reason(
    kernel: kings_court.Kernel, change: dict[int, Any], error: str
) -> None:
    start = GAME.new_game()
    arguments = [start.white, start.black, 0, 0, -1, 0, 50, 1, 10, None]
    for index, value in change.items():
        arguments[index] = value
    with pytest.raises((TypeError, ValueError), match=error):
        kernel.playout(*arguments)  # type: ignore[arg-type]


def test_ten_thousand_playouts_hold_no_memory(kernel: kings_court.Kernel) -> None:
    start = GAME.new_game(no_capture_limit=3)  # short games, jumps and captures all the same
    rng = random.Random(5)

    def run(count: int) -> None:
        for seed in range(count):
            record: list[Move] | None = [] if seed % 2 else None
            kernel.playout(start.white, start.black, 0, 0, -1, 0, 3, seed, 10**6, record)
            if seed % 16 == 0:
                state = start.random_playout(rng, rng.randrange(4, 30))
                if state.outcome() is None:
                    state.legal_moves()

    assert memory_held(run) < 64 * 1024
