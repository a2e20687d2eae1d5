"""Matches on memory streams under a mock clock: time limits, clocks, grace periods,
reconnection and resignation, each end asserted by its kind (`Termination`), not its words."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.testing

from arbiter import protocol
from arbiter.games import Result, Termination, get_game
from arbiter.protocol import TimeControl
from arbiter.server.play.defaults import DefaultKind
from arbiter.server.play.lobby import Lobby
from tests.server.memory import connect, lobby_on_file, move, pair

DB = "arbiter.db"
GRACE = 10.0
LONG = {"move": 60.0}
"""A move limit far beyond the grace period: a seat away defaults for being away."""


@pytest.fixture
async def lobby(tmp_path: Path, mock_clock: trio.testing.MockClock) -> AsyncIterator[Lobby]:
    async with lobby_on_file(tmp_path / DB, grace=GRACE) as lobby:
        yield lobby


def stored_defaults(tmp_path: Path, match_id: int) -> dict[int, str]:
    """The default kinds stored for a finished match, by seat."""
    with sqlite3.connect(tmp_path / DB) as db:
        rows = db.execute(
            "SELECT seat_index, kind FROM defaults WHERE match_id = ?", (match_id,)
        ).fetchall()
    return dict(rows)


async def test_a_move_within_the_limit_counts_and_one_past_it_loses_on_time(
    lobby: Lobby, tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    ann, bob, match = await pair(lobby, nursery, time={"move": 5.0})
    turn = await ann.expect(protocol.YourTurn)
    assert turn.time_left == 5.0
    mock_clock.jump(4.5)
    accepted = await move(ann, turn)
    assert accepted.elapsed == pytest.approx(4.5)
    await bob.expect(protocol.OpponentMoved)
    await bob.expect(protocol.YourTurn)
    mock_clock.jump(5.01)
    over = await bob.expect(protocol.GameOver)
    assert (over.result, over.winner) == ("win", "white")
    assert match.outcome is not None
    assert match.outcome.termination is Termination.TIME
    assert match.defaulted == (None, DefaultKind.TIME)
    assert stored_defaults(tmp_path, match.id) == {1: "time"}, "a casual default is noted too"


async def test_the_game_clock_charges_thinking_time_and_adds_the_increment(
    lobby: Lobby, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    ann, bob, match = await pair(lobby, nursery, time={"clock": 10.0, "increment": 2.0})
    turn = await ann.expect(protocol.YourTurn)
    mock_clock.jump(3.0)
    assert (await move(ann, turn)).clocks == pytest.approx([9.0, 10.0])
    await bob.expect(protocol.OpponentMoved)
    turn = await bob.expect(protocol.YourTurn)
    mock_clock.jump(4.0)
    assert (await move(bob, turn)).clocks == pytest.approx([9.0, 8.0])
    await ann.expect(protocol.OpponentMoved)
    turn = await ann.expect(protocol.YourTurn)
    assert turn.time_left == pytest.approx(9.0)
    mock_clock.jump(8.9)
    assert match.outcome is None
    mock_clock.jump(0.2)
    over = await ann.expect(protocol.GameOver)
    assert over.winner == "black"
    assert match.outcome is not None
    assert match.outcome.termination is Termination.TIME


async def test_a_seek_without_time_plays_the_games_default_control(
    lobby: Lobby, nursery: trio.Nursery
) -> None:
    _ann, _bob, match = await pair(lobby, nursery)
    default = TimeControl.parse(get_game("kings-court").default_time_control)
    assert match.control == default


async def test_a_seat_away_past_its_grace_period_loses_by_default(
    lobby: Lobby, tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    ann, bob, match = await pair(lobby, nursery, time=LONG)
    await ann.expect(protocol.YourTurn)
    await ann.close()
    await trio.testing.wait_all_tasks_blocked()
    assert 0 in match.away
    mock_clock.jump(GRACE - 0.1)
    await trio.testing.wait_all_tasks_blocked()
    assert match.outcome is None, "still within its grace period"
    mock_clock.jump(0.2)
    over = await bob.expect(protocol.GameOver)
    assert (over.result, over.winner) == ("win", "black")
    assert match.outcome is not None
    assert match.outcome.termination is Termination.DISCONNECT
    assert stored_defaults(tmp_path, match.id) == {0: "crash"}


async def test_a_seat_that_reconnects_within_grace_plays_on_with_its_clock_running(
    lobby: Lobby, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    ann, bob, match = await pair(lobby, nursery, time=LONG)
    await ann.expect(protocol.YourTurn)
    await ann.close()
    mock_clock.jump(GRACE - 1)
    ann = await connect(lobby, nursery, "ann", resume=ann.session)
    resumed = await ann.expect(protocol.Resumed)
    assert resumed.to_move
    assert resumed.match == match.id
    turn = await ann.expect(protocol.YourTurn)
    mock_clock.jump(1.0)
    accepted = await move(ann, turn)
    assert accepted.elapsed == pytest.approx(GRACE), "the clock ran while the seat was away"
    await bob.expect(protocol.OpponentMoved)
    turn = await bob.expect(protocol.YourTurn)
    mock_clock.jump(GRACE)  # past the end of the grace period that no longer applies
    await move(bob, turn)
    assert match.outcome is None
    assert not match.away


async def test_resignation_ends_the_match_for_the_resigning_seat(
    lobby: Lobby, tmp_path: Path, nursery: trio.Nursery
) -> None:
    ann, bob, match = await pair(lobby, nursery, time=LONG)
    await ann.expect(protocol.YourTurn)
    await bob.send(protocol.Resign(match=match.id))
    over = await ann.expect(protocol.GameOver)
    assert (over.result, over.winner) == ("win", "white")
    assert match.outcome is not None
    assert match.outcome.termination is Termination.RESIGNATION
    assert match.defaulted == (None, None)
    assert stored_defaults(tmp_path, match.id) == {}


async def test_an_illegal_move_under_forfeit_loses_and_under_retry_is_refused(
    lobby: Lobby, tmp_path: Path, nursery: trio.Nursery
) -> None:
    ann, _bob, match = await pair(lobby, nursery, time=LONG, illegal="retry")
    await ann.expect(protocol.YourTurn)
    await ann.send(protocol.Move(match=match.id, move="A1A1"))
    assert (await ann.expect(protocol.MoveRefused)).match == match.id
    assert match.outcome is None
    cat, dan, match = await pair(lobby, nursery, time=LONG, names=("cat", "dan"))
    await cat.expect(protocol.YourTurn)
    await cat.send(protocol.Move(match=match.id, move="A1A1"))
    await cat.expect(protocol.MoveRefused)
    over = await dan.expect(protocol.GameOver)
    assert over.winner == "black"
    assert over.result == Result.WIN.value
    assert match.outcome is not None
    assert match.outcome.termination is Termination.ILLEGAL_MOVE
    assert stored_defaults(tmp_path, match.id) == {0: "illegal"}
