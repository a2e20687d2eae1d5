"""A casual match in play when its server is killed: the next start ends it as `aborted` (no
result, no scores, its moves kept), instead of leaving it `playing` for ever. On each backend."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.server.storage.engine import open_read_only
from arbiter.server.storage.records import read_records
from tests.conftest import BOTH_BACKENDS
from tests.e2e.helpers import connect, play_randomly, seek, until
from tests.processes import CLI, ROOT, start_server, stop


@BOTH_BACKENDS
async def test_a_casual_match_killed_in_play_is_aborted_at_the_next_start(db: Path | str) -> None:
    server, address = start_server(db)
    try:
        port = int(address.rpartition(":")[2])
        first, second = await connect(port, "alice"), await connect(port, "bob")
        async with first, second:
            assert isinstance(await seek(first, move_time=30.0), protocol.Seeking)
            started = await seek(second, move_time=30.0)
            assert isinstance(started, protocol.MatchStarted)
            await until(first, protocol.MatchStarted)
            with trio.fail_after(10):  # a few moves each, then the server dies mid-game
                async with trio.open_nursery() as players:

                    async def play(connection: ClientConnection, seed: int) -> None:
                        await play_randomly(connection, seed, stop_at_ply=4)
                        players.cancel_scope.cancel()  # its turn at ply 4: the other waits

                    players.start_soon(play, first, 1)
                    players.start_soon(play, second, 2)
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=10)
    finally:
        stop(server)

    connection = open_read_only(db)
    try:
        (before,) = read_records(connection, unfinished=True)
    finally:
        connection.close()
    assert before.id == started.match
    assert before.status == "playing"
    assert len(before.moves) >= 3

    server, _ = start_server(db)
    stop(server, signal.SIGTERM)

    connection = open_read_only(db)
    try:
        assert list(read_records(connection)) == [], "an aborted match is not a finished one"
        (after,) = read_records(connection, unfinished=True)
    finally:
        connection.close()
    assert after.status == "aborted"
    assert after.termination == "aborted"
    assert after.result is None
    assert after.winner is None
    assert after.reason == "the server stopped while the game was in play"
    assert after.scores == [None, None]
    assert after.ended_at is not None
    assert after.moves == before.moves, "its moves are kept"

    exported = await trio.run_process(
        [*CLI, "export", "--db", str(db), "--unfinished"], capture_stdout=True, cwd=ROOT
    )
    line = json.loads(exported.stdout)
    assert (line["status"], line["termination"], line["result"]) == ("aborted", "aborted", None)
    replayed = await trio.run_process(
        [*CLI, "replay", str(after.id), "--db", str(db), "--all"], capture_stdout=True, cwd=ROOT
    )
    assert replayed.stdout.decode().endswith(
        "ended by: aborted\nno result (the server stopped while the game was in play)\n"
    )
