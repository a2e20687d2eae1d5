"""A move's thinking time stops when its bytes are read, not when the server gets to it: a move
pipelined behind slow requests is not charged for the server's work on them. Real TCP and real
time, as the charge is made in service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ServerError
from arbiter.server.connection.held_requests import MAX_HELD
from arbiter.server.connection.limits import Limits
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.sql_connection import transaction
from tests.e2e.helpers import Dial, seek, until

WATCHES = 400
"""`watch` requests sent ahead of the move, each of a different aborted match: each is a query
in a worker thread, tens of milliseconds of server work in all (a repeated watch of one match
would be refused at once, as would one of a match above the highest stored)."""
UNCACHED = pytest.mark.limits(Limits(snapshot_cache_bytes=0))
MANY_REQUESTS = pytest.mark.admission(address_request_burst=100_000)
"""Hundreds of watches from one address at once: the address's budget is not what is tested."""


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store holding `WATCHES` casual matches a last run left in play (ids 1 to `WATCHES`):
    the server aborts them as it opens the store, and reads each back at its first watch."""
    path = tmp_path / "arbiter.db"
    connection = open_database(path)
    try:
        with transaction(connection):
            for _ in range(WATCHES):
                connection.execute(
                    "INSERT INTO matches (game, options, time_control, illegal, status,"
                    " started_at) VALUES ('kings-court', '{}', '{}', 'forfeit,forfeit',"
                    " 'playing', 0)"
                )
    finally:
        connection.close()
    return path


async def accepted_behind_refusals(ann: Any) -> protocol.MoveAccepted:
    """The move's acceptance, past the `unknown_match` answers to the watches ahead of it."""
    while True:
        try:
            accepted: protocol.MoveAccepted = await until(ann, protocol.MoveAccepted)
            return accepted
        except ServerError as error:
            if error.code != protocol.ErrorCode.UNKNOWN_MATCH:
                raise


async def _a_turn_after_a_finished_match(dial: Dial) -> tuple[Any, int, str]:
    """Ann's connection, a finished match to watch, and Ann's turn in a new one (match, move)."""
    ann = await dial.client("ann")
    bob = await dial.client("bob")
    await seek(ann, move_time=30.0)
    await seek(bob, move_time=30.0)
    first = await until(ann, protocol.MatchStarted)
    await ann.send(protocol.Resign(match=first.match))
    await until(ann, protocol.GameOver)
    await until(bob, protocol.GameOver)
    await seek(ann, move_time=30.0)
    await seek(bob, move_time=30.0)
    turn = await until(ann, protocol.YourTurn)
    assert turn.legal is not None
    return ann, first.match, turn.legal[0]


@UNCACHED
@MANY_REQUESTS
async def test_a_move_behind_slow_requests_is_charged_from_its_own_arrival(
    dial: Dial,
) -> None:
    ann, finished, move = await _a_turn_after_a_finished_match(dial)
    sent = trio.current_time()
    watches = [protocol.Watch(match=n) for n in range(1, WATCHES + 1)]
    await ann.send(*watches, protocol.Move(match=finished + 1, move=move))
    accepted = await accepted_behind_refusals(ann)
    server_work = trio.current_time() - sent

    assert server_work > 0.05, f"the watches took {server_work:.3f} s: too little to tell"
    assert accepted.elapsed < server_work / 4, (accepted.elapsed, server_work)


@UNCACHED
@MANY_REQUESTS
async def test_a_move_sent_while_the_server_answers_slow_requests_is_charged_from_its_arrival(
    dial: Dial,
) -> None:
    """The move comes in a write of its own, once the server is busy with the watches: the
    reader goes on reading while a task answers them, so it is stamped when it comes (as long
    as the client keeps fewer than `MAX_HELD` requests waiting)."""
    ann, finished, move = await _a_turn_after_a_finished_match(dial)
    sent = trio.current_time()
    await ann.send(*[protocol.Watch(match=n) for n in range(1, MAX_HELD)])
    await trio.sleep(0.01)
    await ann.send(protocol.Move(match=finished + 1, move=move))
    accepted = await accepted_behind_refusals(ann)
    server_work = trio.current_time() - sent

    assert server_work > 0.04, f"the watches took {server_work:.3f} s: too little to tell"
    assert accepted.elapsed < server_work / 2, (accepted.elapsed, server_work)  # 10 ms its own
