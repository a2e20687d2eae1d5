"""Clock arithmetic, exact: every time is passed in, nothing reads a clock."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.protocol._time_control import (
    Charge,
    LagQuota,
    SeatClock,
    TimeControl,
    TimeControlError,
)

# -- time controls -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "control"),
    [
        ("move=5", TimeControl(move=5.0)),
        ("clock=300+2", TimeControl(clock=300.0, increment=2.0)),
        ("clock=60+0,move=10", TimeControl(move=10.0, clock=60.0)),
        ("clock=60", TimeControl(clock=60.0)),
        ("move=1.5,lag=off", TimeControl(move=1.5, lag=False)),
        (" move = 2 ", TimeControl(move=2.0)),
    ],
)
def test_command_line_form_parses_and_round_trips(text: str, control: TimeControl) -> None:
    assert TimeControl.parse(text) == control
    assert TimeControl.parse(control.describe()) == control
    assert TimeControl.from_wire(control.to_wire()) == control


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "cannot read time control"),
        ("move", "cannot read time control"),
        ("move=5,move=6", "cannot read time control"),
        ("move=fast", "'fast' in time control"),
        ("hours=2", "unknown part 'hours=2'"),
        ("lag=maybe,move=1", "unknown part 'lag=maybe'"),
        ("move=0", "must be between 0.05"),
        ("clock=1e9", "must be between 0.05"),
        ("lag=off", "needs a move limit, a game clock or both"),
    ],
)
def test_bad_command_line_forms_say_what_is_wrong(text: str, complaint: str) -> None:
    with pytest.raises(TimeControlError, match=complaint):
        TimeControl.parse(text)


@pytest.mark.parametrize(
    ("wire", "complaint"),
    [
        ({"minutes": 5}, "unknown time control field 'minutes'"),
        ({"move": "5"}, "takes a number"),
        ({"move": True}, "takes a number"),
        ({"move": 5, "lag": 2}, "1 \\(on\\) or 0 \\(off\\)"),
        ({"move": 5, "increment": 1}, "an increment needs a game clock"),
        ({"clock": -3}, "must be between"),
    ],
)
def test_bad_wire_maps_say_what_is_wrong(wire: dict[str, object], complaint: str) -> None:
    with pytest.raises(TimeControlError, match=complaint):
        TimeControl.from_wire(wire)  # type: ignore[arg-type]


# -- the lag quota -------------------------------------------------------------------------------


def test_lag_quota_scales_with_the_move_budget_and_is_capped() -> None:
    assert LagQuota.for_control(TimeControl(move=1.0)) == LagQuota(0.25, 0.75, 1.75)
    assert LagQuota.for_control(TimeControl(move=60.0)) == LagQuota(1.0, 3.0, 7.0)
    fastest = LagQuota.for_control(TimeControl(move=0.1))
    assert (fastest.gain, fastest.quota, fastest.maximum) == pytest.approx((0.05, 0.15, 0.35))
    clock_only = LagQuota.for_control(TimeControl(clock=40.0, increment=0.5))  # 1.5 s a move
    assert clock_only.gain == pytest.approx(0.375)
    assert LagQuota.for_control(TimeControl(move=1.0, lag=False)) == LagQuota(0, 0, 0)


def test_compensation_is_lag_up_to_the_quota_and_the_quota_refills_up_to_its_maximum() -> None:
    quota = LagQuota(gain=0.25, quota=0.75, maximum=1.75)
    assert quota.available(0.2) == 0.2
    assert quota.available(5.0) == 0.75
    drained = quota.after_move(0.75)
    assert drained.quota == 0.25
    full = quota
    for _ in range(20):
        full = full.after_move(0.0)
    assert full.quota == 1.75


# -- charging moves ------------------------------------------------------------------------------


def test_per_move_limit_alone_has_no_clock_to_run_down() -> None:
    seat = SeatClock(TimeControl(move=2.0, lag=False))
    assert seat.allowance() == 2.0
    assert seat.charge(1.5, lag=0.0) == Charge(1.5, 0.0, True, None)
    assert seat.charge(2.5, lag=0.0) == Charge(2.5, 0.0, False, None)


def test_fischer_increment_is_added_after_each_move_in_time() -> None:
    seat = SeatClock(TimeControl(clock=10.0, increment=2.0, lag=False))
    assert seat.charge(3.0, lag=0.0).clock_after == 9.0
    assert seat.charge(1.0, lag=0.0).clock_after == 10.0
    assert seat.allowance() == 10.0


def test_no_increment_on_the_move_that_ran_out_and_the_clock_stops_at_zero() -> None:
    seat = SeatClock(TimeControl(clock=5.0, increment=3.0, lag=False))
    charge = seat.charge(6.0, lag=0.0)
    assert charge == Charge(6.0, 0.0, False, 0.0)


def test_a_move_must_fit_both_the_move_limit_and_the_game_clock() -> None:
    seat = SeatClock(TimeControl(move=10.0, clock=4.0, lag=False))
    assert seat.allowance() == 4.0
    assert not seat.charge(5.0, lag=0.0).in_time
    roomy = SeatClock(TimeControl(move=3.0, clock=100.0, lag=False))
    assert roomy.allowance() == 3.0
    assert not roomy.charge(3.5, lag=0.0).in_time


def test_lag_compensation_is_taken_off_the_charge_and_out_of_the_quota() -> None:
    seat = SeatClock(TimeControl(move=1.0))  # gain 0.25, quota 0.75, max 1.75
    assert seat.deadline_after(100.0, lag=0.2) == 101.2
    charge = seat.charge(1.15, lag=0.2)
    assert charge.compensation == 0.2
    assert charge.in_time
    assert seat.lag.quota == pytest.approx(0.8)
    early = seat.charge(0.1, lag=0.2)
    assert early.compensation == 0.1, "never more than the move took"


def test_increment_arithmetic_over_twenty_moves() -> None:
    seat = SeatClock(TimeControl(clock=30.0, increment=0.5, lag=False))
    expected = 30.0
    for move in range(20):
        elapsed = 0.1 * (move % 7)
        expected = expected - elapsed + 0.5
        assert seat.charge(elapsed, lag=0.0).clock_after == pytest.approx(expected)
    assert expected == pytest.approx(30.0 - 0.1 * sum(m % 7 for m in range(20)) + 10.0)


@given(
    lag=st.floats(0, 1),
    moves=st.lists(st.floats(0, 1.5), min_size=1, max_size=50),
)
def test_a_steady_lag_within_the_gain_never_flags_a_move_made_within_the_limit(
    lag: float, moves: list[float]
) -> None:
    """The bench's fairness claim as a property: think time within the limit, any lag up to
    the gain, and the move (arriving `lag` later) is always in time."""
    control = TimeControl(move=1.0)
    seat = SeatClock(control)
    lag = min(lag, seat.lag.gain)
    for think in moves:
        think = min(think, control.move or 0)
        assert seat.charge(think + lag, lag).in_time


# -- CPU clocks ------------------------------------------------------------------------------------


def test_a_cpu_clock_charges_cpu_seconds_however_long_the_move_took_on_the_wall() -> None:
    seat = SeatClock(TimeControl(move=1.0), cpu=True)
    assert seat.kind == "cpu"
    assert seat.charge(elapsed=1.5, lag=0.2, cpu=0.25) == Charge(1.5, 0.0, True, None, 0.25)
    assert seat.charge(elapsed=0.5, lag=0.0, cpu=1.25) == Charge(0.5, 0.0, False, None, 1.25)


def test_a_cpu_clock_runs_its_game_clock_down_by_cpu_seconds() -> None:
    seat = SeatClock(TimeControl(clock=10.0, increment=1.0), cpu=True)
    assert seat.charge(elapsed=8.0, lag=0.0, cpu=2.0).clock_after == 9.0
    assert seat.allowance() == 9.0


def test_a_cpu_move_without_a_cpu_figure_costs_its_wall_time() -> None:
    seat = SeatClock(TimeControl(move=1.0), cpu=True)
    assert not seat.charge(elapsed=1.5, lag=0.0).in_time


def test_a_cpu_clock_has_no_lag_allowance_and_its_deadline_is_the_watchdog() -> None:
    seat = SeatClock(TimeControl(move=2.0), cpu=True)
    assert seat.lag == LagQuota(0.0, 0.0, 0.0)
    assert seat.watchdog() == 3.0 * 2.0 + 1.0
    assert seat.deadline_after(100.0, lag=0.5) == 107.0
    wall = SeatClock(TimeControl(move=2.0, lag=False))
    assert wall.kind == "wall"
    assert wall.deadline_after(100.0, lag=0.5) == 102.0
