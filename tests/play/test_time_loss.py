"""A time loss on the terminal: the result line names the seat that ran out and its limit, as the
server's reason does, and the loser's clock shows 0, not its full move time; a game that ends
otherwise shows what was actually left. The terminal learns the time loss from `game_over`'s
termination kind and final clocks, never from its sentence."""

from __future__ import annotations

import pytest

from arbiter import protocol
from arbiter.client.play.table import Table
from arbiter.games import get_game
from arbiter.protocol import TimeControl

KINGS_COURT = get_game("kings-court")


def white_to_move(time: TimeControl, time_left: float) -> Table:
    """A table where white (this terminal) got `your_turn` at t=0 with `time_left`."""
    state = KINGS_COURT.new_game()
    table = Table(KINGS_COURT)
    table.apply(
        protocol.MatchStarted(
            match=5,
            game=KINGS_COURT.name,
            seat="white",
            seats=list(KINGS_COURT.seats),
            players=["ann", "greedy"],
            options={},
            time=time.to_wire(),
            hints=True,
            state=state.to_data(),
        ),
        0,
        0.0,
    )
    clocks = None if time.clock is None else [time.clock, time.clock]
    your_turn = protocol.YourTurn(
        match=5, ply=0, state=state.to_data(), legal=None, time_left=time_left, clocks=clocks
    )
    table.apply(your_turn, 0, 0.0)
    return table


def game_over(reason: str, clocks_ms: list[int] | None) -> protocol.GameOver:
    state = KINGS_COURT.new_game()
    return protocol.GameOver(
        match=5,
        result="win",
        winner="black",
        reason=reason,
        state=state.to_data(),
        moves=[],
        termination="time",
        clocks_ms=clocks_ms,
    )


@pytest.mark.parametrize(
    ("time", "per_move", "clocks_ms", "line", "white", "black"),
    [
        (
            "move=10",
            True,
            None,
            "black wins: white ran out of time (10 s per move)",
            "0:00.0",
            "0:10",
        ),
        (
            "clock=600+5",
            False,
            [0, 600_000],
            "black wins: white ran out of time (game clock 600+5)",
            "0:00.0",
            "10:00",
        ),
        (
            "clock=600+5,move=10",
            True,
            [590_000, 600_000],
            "black wins: white ran out of time (10 s per move)",
            "9:50 move 0:00.0",  # the move's limit ran out, not the game clock
            "10:00",
        ),
    ],
)
def test_a_time_loss_names_the_seat_and_the_limit_and_the_clock_shows_nothing_left(
    time: str, per_move: bool, clocks_ms: list[int] | None, line: str, white: str, black: str
) -> None:
    control = TimeControl.parse(time)
    table = white_to_move(control, min(10.0, control.clock or 10.0))
    # game_over comes as this terminal's clock still shows 0.2 s: the server's word wins.
    table.apply(game_over(control.time_loss("white", per_move), clocks_ms), 0, 9.8)
    assert table.result == line
    assert (table.clocks.show(0, 20.0), table.clocks.show(1, 20.0)) == (white, black)


def test_a_per_move_game_that_ends_otherwise_shows_the_time_that_was_left() -> None:
    table = white_to_move(TimeControl.parse("move=10"), 10.0)
    resigned = protocol.GameOver(
        match=5,
        result="win",
        winner="black",
        reason="white resigned",
        state=KINGS_COURT.new_game().to_data(),
        moves=[],
        termination="resignation",
        clocks_ms=None,
    )
    table.apply(resigned, 0, 4.0)
    assert table.result == "black wins: white resigned"
    assert table.clocks.show(0, 30.0) == "0:06.0", "what was left at the end, not 0:10"
