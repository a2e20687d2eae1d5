"""`out_of_cpu`, a worker's word that a hosted seat's move has spent its CPU allowance, as the
lobby and the match take it: a time loss in CPU seconds from the seat's own connection, refused
with a clear error from any other, and for a seat not to move or a figure within the allowance.

Matches on memory streams under a mock clock (tests/server/memory.py). The hosted seat's session
is marked hosted after its hello, standing in for a sign-in with a worker's seat ticket (which
the tests in tests/workers go through end to end)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.testing

from arbiter import protocol
from arbiter.games import Termination
from arbiter.server.connection.admission import UNLIMITED
from arbiter.server.connection.session import Session
from arbiter.server.play.defaults import DefaultKind
from arbiter.server.play.lobby import Lobby
from arbiter.server.play.match import Match
from tests.server.memory import Client, connect, lobby_on_file, move, seated

SEEK = protocol.Seek(game="kings-court", options={}, time={"move": 1.0}, hints=True)


@pytest.fixture
async def lobby(tmp_path: Path, mock_clock: trio.testing.MockClock) -> AsyncIterator[Lobby]:
    async with lobby_on_file(tmp_path / "arbiter.db") as lobby:
        yield lobby


async def connect_with_session(
    lobby: Lobby, nursery: trio.Nursery, name: str
) -> tuple[Client, Session]:
    """A connection signed in as `name`, and the server's session for it."""
    ours, theirs = trio.testing.memory_stream_pair()
    session = Session(theirs, lobby, UNLIMITED)
    nursery.start_soon(session.run)
    client = Client(ours)
    await client.send(protocol.Hello(version=protocol.PROTOCOL_VERSION, name=name))
    await client.expect(protocol.Welcome)
    return client, session


async def connect_hosted(lobby: Lobby, nursery: trio.Nursery, name: str) -> Client:
    """A connection signed in as `name` whose session the server takes for a hosted seat's."""
    client, session = await connect_with_session(lobby, nursery, name)
    session.hosted = True
    return client


async def ann_against_hosted_bob(
    lobby: Lobby, nursery: trio.Nursery
) -> tuple[Client, Client, Match]:
    """Ann (white, the wall clock) and hosted bob (black, the CPU clock) in a 1 s a move match."""
    ann, bob = await connect(lobby, nursery, "ann"), await connect_hosted(lobby, nursery, "bob")
    return ann, bob, await seated(lobby, ann, bob, SEEK)


async def test_a_hosted_seat_out_of_cpu_loses_on_time_in_cpu_seconds_at_once(
    lobby: Lobby, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    ann, bob, match = await ann_against_hosted_bob(lobby, nursery)
    assert match.cpu_seats == (False, True)
    await move(ann, await ann.expect(protocol.YourTurn))
    await bob.expect(protocol.OpponentMoved)
    turn = await bob.expect(protocol.YourTurn)
    assert turn.time_left == 1.0  # the CPU allowance: the watchdog is the server's business
    mock_clock.jump(1.5)  # wall time past the allowance, well within the watchdog's 4 s
    await bob.send(protocol.OutOfCpu(match=turn.match, cpu=1.02))
    for client in (ann, bob):
        over = await client.expect(protocol.GameOver)
        assert over.winner == "white"
        assert over.termination == "time"
        assert over.judged_by == ["wall", "cpu"]
        assert over.reason == (
            "black ran out of time (1 s per move of CPU time: its move used 1.02 CPU seconds)"
        )
    assert match.outcome is not None
    assert match.outcome.termination is Termination.TIME
    assert match.defaulted == (None, DefaultKind.TIME)


async def test_out_of_cpu_from_a_connection_no_worker_hosts_is_refused(
    lobby: Lobby, nursery: trio.Nursery
) -> None:
    ann, _, match = await ann_against_hosted_bob(lobby, nursery)
    turn = await ann.expect(protocol.YourTurn)
    await ann.send(protocol.OutOfCpu(match=turn.match, cpu=5.0))
    error = await ann.expect(protocol.Error)
    assert error.code == "not_allowed"
    assert error.ref == "out_of_cpu"
    assert error.message == "only the worker hosting a seat says its move is out of CPU time"
    assert match.outcome is None
    await move(ann, turn)  # the game goes on


async def test_out_of_cpu_for_a_seat_not_to_move_or_within_its_allowance_is_refused(
    lobby: Lobby, nursery: trio.Nursery
) -> None:
    ann, bob, match = await ann_against_hosted_bob(lobby, nursery)
    turn = await ann.expect(protocol.YourTurn)
    await bob.send(protocol.OutOfCpu(match=turn.match, cpu=1.5))  # white is to move
    error = await bob.expect(protocol.Error)
    assert (error.code, error.message) == ("not_your_turn", "no move of this seat is under way")
    await move(ann, turn)
    await bob.expect(protocol.OpponentMoved)
    turn = await bob.expect(protocol.YourTurn)
    await bob.send(protocol.OutOfCpu(match=turn.match, cpu=0.5))
    error = await bob.expect(protocol.Error)
    assert error.code == "bad_field"
    assert error.message == "0.5 CPU seconds are within the move's allowance of 1"
    assert match.outcome is None
    accepted = await move(bob, turn)  # the turn went on
    assert accepted.ply == 2


async def test_a_seat_seated_on_the_wall_clock_cannot_be_out_of_cpu(
    lobby: Lobby, nursery: trio.Nursery
) -> None:
    """A seat keeps the clock it was seated with: a session taken for a hosted one only after
    its match began is still judged on the wall clock."""
    ann, session = await connect_with_session(lobby, nursery, "ann")
    bob = await connect(lobby, nursery, "bob")
    await ann.send(SEEK)
    await ann.expect(protocol.Seeking)
    await bob.send(SEEK)
    started = await ann.expect(protocol.MatchStarted)
    session.hosted = True
    turn = await ann.expect(protocol.YourTurn)
    await ann.send(protocol.OutOfCpu(match=started.match, cpu=1.5))
    error = await ann.expect(protocol.Error)
    assert error.code == "not_allowed"
    assert error.message == "this seat's moves are judged on wall time, not CPU"
    await move(ann, turn)
