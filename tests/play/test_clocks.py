"""The clocks on screen: the server's figures, counting down between its reports."""

from __future__ import annotations

import pytest

from arbiter.client.play.clocks import UNKNOWN, Clocks, format_seconds
from arbiter.protocol import TimeControl


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (3725.0, "1:02:05"),
        (600.0, "10:00"),
        (59.99, "0:59"),
        (10.0, "0:10"),
        (9.99, "0:09.9"),
        (0.04, "0:00.0"),
        (-1.0, "0:00.0"),
    ],
)
def test_seconds_read_as_a_clock_with_tenths_only_at_the_end(seconds: float, shown: str) -> None:
    assert format_seconds(seconds) == shown


def test_a_move_limit_counts_down_for_the_seat_to_move_only() -> None:
    clocks = Clocks.fresh(TimeControl.parse("move=10"))
    clocks.start(0, now=100.0, budget=9.5)
    assert clocks.show(0, 103.0) == "0:06.5"
    assert clocks.show(1, 103.0) == "0:10"
    clocks.moved(None, 1, now=104.0)
    assert clocks.show(0, 105.0) == "0:10"
    assert clocks.show(1, 105.0) == "0:09.0", "the opponent's time is estimated from the limit"


def test_a_game_clock_runs_down_and_takes_the_servers_figures_after_a_move() -> None:
    clocks = Clocks.fresh(TimeControl.parse("clock=300+2"))
    assert clocks.show(0, 0.0) == clocks.show(1, 0.0) == "5:00"
    clocks.start(0, now=0.0, budget=300.0, clocks=[300.0, 300.0])
    assert clocks.show(0, 61.0) == "3:59"
    clocks.moved([241.0, 300.0], 1, now=61.0)
    assert clocks.show(0, 90.0) == "4:01"
    assert clocks.show(1, 90.0) == "4:31"


def test_with_both_a_clock_and_a_move_limit_the_move_time_shows_too() -> None:
    clocks = Clocks.fresh(TimeControl.parse("clock=60+0,move=10"))
    clocks.start(1, now=0.0)
    assert clocks.show(1, 2.0) == "0:58 move 0:08.0"
    assert clocks.show(0, 2.0) == "1:00"


def test_the_end_of_the_game_freezes_the_clocks() -> None:
    clocks = Clocks.fresh(TimeControl.parse("clock=60+0"))
    clocks.start(0, now=0.0)
    clocks.stop(now=15.0)
    assert clocks.show(0, 100.0) == "0:45"


def test_a_clock_not_reported_yet_is_unknown_and_no_control_shows_nothing() -> None:
    clocks = Clocks(TimeControl.parse("clock=60+0"))
    assert clocks.show(0, 0.0) == UNKNOWN
    assert Clocks(None).show(0, 0.0) == ""
