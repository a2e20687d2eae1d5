"""The clock's reserve, learned from how late this process's moves run (`agents.search.clock`).

The reserve logic is tested with an injected clock (`now`), so each move's lateness is exact;
the real-clock tests at the end give the searches generous bounds, as the machine is shared.
"""

from __future__ import annotations

import time

import pytest

from arbiter.agents import make_agent
from arbiter.agents.search import clock
from arbiter.games import get_game
from tests.conftest import TIMED

PRIOR = clock.RESERVE_FLOOR + clock.SAFETY * clock.PRIOR_LATENESS


class FakeTime:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


@pytest.fixture
def lateness(fake: FakeTime) -> clock.Lateness:
    return clock.Lateness(queue=lambda: 0.5, now=fake)  # an idle machine


def a_move(keeper: clock.TimeKeeper, fake: FakeTime, budget: float, late: float | None) -> float:
    """One move: `late` seconds past its deadline (None: done at a third of its time)."""
    seconds = keeper.allot(budget)
    fake.now += seconds + late if late is not None else seconds / 3
    keeper.done()
    return seconds


def past_the_prior(lateness: clock.Lateness, fake: FakeTime) -> clock.TimeKeeper:
    """A keeper whose process has shown `PRIOR_MOVES` punctual moves: the prior is gone."""
    keeper = clock.TimeKeeper(lateness, now=fake)
    for _ in range(clock.PRIOR_MOVES):
        a_move(keeper, fake, 0.5, late=0.0)
    return keeper


def test_before_any_move_the_prior_is_the_old_fixed_50_ms(lateness: clock.Lateness) -> None:
    assert lateness.reserve() == pytest.approx(PRIOR) == pytest.approx(0.05)
    assert clock.thinking_time(1.0, lateness.reserve()) == pytest.approx(0.9 - 0.05)


def test_one_late_move_raises_the_reserve_at_once(lateness: clock.Lateness, fake: FakeTime) -> None:
    keeper = clock.TimeKeeper(lateness, now=fake)
    a_move(keeper, fake, 0.5, late=0.12)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.12)
    assert keeper.allot(0.5) == pytest.approx(0.5 * 0.9 - lateness.reserve())


def test_punctual_moves_lower_the_reserve_below_the_prior(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = clock.TimeKeeper(lateness, now=fake)
    first = a_move(keeper, fake, 0.2, late=0.002)
    for _ in range(clock.PRIOR_MOVES - 1):
        a_move(keeper, fake, 0.2, late=0.002)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.002)
    assert keeper.allot(0.2) > first


def test_a_late_move_is_forgotten_a_minute_later_however_many_moves_came_since(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = past_the_prior(lateness, fake)
    a_move(keeper, fake, 0.5, late=0.3)
    for _ in range(clock.RECORD_LIMIT // 2):
        a_move(keeper, fake, 0.5, late=0.01)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.3)
    fake.now += clock.MEMORY - 1.0
    for _ in range(clock.PRIOR_MOVES):
        a_move(keeper, fake, 0.5, late=0.01)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.01)


def test_a_record_gone_stale_brings_the_prior_back(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = past_the_prior(lateness, fake)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR)
    fake.now += clock.MEMORY + 1.0  # idle between two games
    assert lateness.reserve() == pytest.approx(PRIOR)
    assert keeper.allot(0.5) == pytest.approx(0.45 - PRIOR)


def test_a_move_finished_early_tells_nothing(lateness: clock.Lateness, fake: FakeTime) -> None:
    keeper = clock.TimeKeeper(lateness, now=fake)
    a_move(keeper, fake, 0.5, late=0.04)
    for _ in range(clock.PRIOR_MOVES * 2):
        a_move(keeper, fake, 0.5, late=None)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.04)


def test_the_time_outside_choose_adds_to_the_reserve(lateness: clock.Lateness) -> None:
    lateness.outside(0.03)
    lateness.outside(-0.01)  # the server's measure can fall short of ours: nothing outside
    assert lateness.reserve() == pytest.approx(
        clock.RESERVE_FLOOR + clock.SAFETY * (clock.PRIOR_LATENESS + 0.03)
    )
    for _ in range(clock.PRIOR_MOVES):
        lateness.inside(0.01)
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.04)


def test_a_busy_machine_raises_the_prior_until_moves_show_their_own() -> None:
    busy = clock.Lateness(queue=lambda: 4.0)  # 8 runnable processes on 2 cores
    assert busy.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.12)
    for _ in range(clock.PRIOR_MOVES - 1):
        busy.inside(0.02)
    assert busy.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.12)
    busy.inside(0.02)
    assert busy.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.02)


def test_moves_with_too_little_time_to_think_do_not_dismiss_the_prior(fake: FakeTime) -> None:
    busy = clock.Lateness(queue=lambda: 4.0, now=fake)
    keeper = clock.TimeKeeper(busy, now=fake)
    busy.inside(0.5)  # a preempted move: the reserve now leaves no time at all
    fake.now += clock.MEMORY / 2
    for _ in range(clock.PRIOR_MOVES * 2):  # a tenth of the server's shortest limit each
        assert a_move(keeper, fake, 0.05, late=0.001) == pytest.approx(0.005)
    fake.now += clock.MEMORY / 2  # the preempted move is forgotten, the instant ones are not
    assert busy.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.12)
    for _ in range(clock.PRIOR_MOVES):
        busy.inside(0.001)
    assert busy.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.001)


def test_a_quick_answer_that_was_preempted_raises_the_reserve(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = clock.TimeKeeper(lateness, now=fake)
    lateness.inside(0.2)
    assert a_move(keeper, fake, 0.05, late=0.3) == pytest.approx(0.005)
    assert lateness.recent()[0][-1] == pytest.approx(0.3)


def test_a_search_stalled_between_two_checks_keeps_that_much_back(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = past_the_prior(lateness, fake)
    keeper.allot(0.5)
    for stretch in (0.02, 0.09, 0.001):  # the longest stretch of the move is remembered
        fake.now += stretch
        keeper.now()
    keeper.done()
    assert lateness.stalls() == pytest.approx((0.09,))
    assert lateness.reserve() == pytest.approx(clock.RESERVE_FLOOR + clock.SAFETY * 0.09)
    a_move(keeper, fake, 0.5, late=0.001)  # a move that never read its clock: none recorded
    assert lateness.stalls() == pytest.approx((0.09,))


def test_a_stretch_a_compiled_search_timed_itself_counts_as_a_stall(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = past_the_prior(lateness, fake)
    keeper.allot(0.5)
    for stretch in (0.07, 0.03):  # the longest stretch of the move is remembered
        keeper.stalled(stretch)
    keeper.done()
    assert lateness.stalls() == pytest.approx((0.07,))


def test_every_time_keeper_of_the_process_shares_one_lateness(fake: FakeTime) -> None:
    for _ in range(clock.PRIOR_MOVES):
        a_move(clock.TimeKeeper(now=fake), fake, 0.5, late=0.08)
    assert clock.TimeKeeper().allot(1.0) == pytest.approx(0.9 - 0.005 - 1.5 * 0.08)


def test_a_reserve_past_the_budget_leaves_a_tenth_of_it_never_less(
    lateness: clock.Lateness,
) -> None:
    lateness.inside(1.0)
    assert clock.thinking_time(0.1, lateness.reserve()) == pytest.approx(0.01)


def test_a_game_clock_is_shared_out_less_the_reserve(
    lateness: clock.Lateness, fake: FakeTime
) -> None:
    keeper = clock.TimeKeeper(lateness, now=fake)
    assert keeper.allot(300.0) == pytest.approx(300.0 / clock.MOVES_TO_GO)
    assert keeper.deadline == pytest.approx(fake.now + 10.0)


# -- on the real clock ----------------------------------------------------------------------


@TIMED
@pytest.mark.parametrize(
    ("name", "game_name"),
    [
        ("alphabeta", "amazons"),
        ("mcts", "kings-court"),
        ("mcts", "shobu"),
        ("mcts", "amazons"),
    ],
)
def test_a_search_stopped_by_the_clock_reports_its_lateness(name: str, game_name: str) -> None:
    game = get_game(game_name)
    agent = make_agent(name, game, 1)
    state = game.new_game()
    start = time.perf_counter()
    move = agent.choose(state, 0.1)
    elapsed = time.perf_counter() - start
    assert state.why_illegal(move) is None
    assert elapsed < 0.1 * 3  # generous: the machine is shared; the bench measures it under load
    inside, outside = clock.LATENESS.recent()
    assert len(inside) == 1
    assert inside[0] < 0.2
    assert outside == ()
    assert len(clock.LATENESS.stalls()) == 1  # the checks time the stretches between them
