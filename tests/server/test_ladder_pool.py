"""Connected bots in a server's ladder, over real TCP: a ladder started by `arbiter-server admin
ladder start` beside the running server, two registered bots joining it (`arbiter bot --ladder`'s
`run_bot`), paired by the ladder and not casually, their games ordinary recorded matches, their
ratings moved and stored under their accounts; leaving; and every bad `ladder_join` refused with
a sentence."""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.agents import make_agent
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.client.runner import GameRecord, LadderEntry, run_bot
from arbiter.protocol import ErrorCode
from arbiter.server.storage.engine import open_database
from tests.conftest import BOTH_BACKENDS, HOST, RunningServer
from tests.server.test_roster import admin
from tests.tournament.helpers import register, text

pytestmark = BOTH_BACKENDS

GAME = "kings-court"
TERMS = ("--time", "move=1", "--option", "no_capture_limit=24", "--wait", "2")
"""Short games that random players still reach a result within (a double forfeit at worst)."""
SECONDS = 60


def rows(db: Path | str, query: str, *parameters: object) -> list[tuple[object, ...]]:
    with closing(open_database(db)) as connection:
        return [tuple(row) for row in connection.execute(query, parameters).fetchall()]


async def exchange(
    port: int, request: protocol.Message, name: str = "guest", token: str | None = None
) -> protocol.Message:
    """One request on a fresh connection, and its answer (`ServerError` for an error)."""
    async with await ClientConnection.open(HOST, port, name, token) as connection:
        await connection.send(request)
        while True:
            answer = await connection.receive()
            if isinstance(answer, protocol.LadderJoined | protocol.LadderTable):
                return answer


async def refused(port: int, request: protocol.Message, **who: str) -> tuple[str, str]:
    with pytest.raises(ServerError) as caught:
        await exchange(port, request, **who)
    return caught.value.code, caught.value.message


async def play_ladder(
    port: int, name: str, token: str, games: int, section: str | None = None
) -> list[GameRecord]:
    return await run_bot(
        HOST,
        port,
        GAME,
        lambda game, number: make_agent("random", game, number),
        name=name,
        token=token,
        games=games,
        ladder=LadderEntry(section),
    )


async def test_two_joined_bots_are_paired_recorded_and_rated(server: RunningServer) -> None:
    tokens = register(server.db, "ann", "bob", "cat")
    text(await admin(server.db, "ladder", "start", GAME, *TERMS))
    await started(server.port)
    records: dict[str, list[GameRecord]] = {}

    async def play(name: str) -> None:
        records[name] = await play_ladder(server.port, name, tokens[name], games=2)

    async def never_paired(cat: ClientConnection) -> None:
        """A casual seek never meets a ladder's bot (reading answers the server's pings)."""
        while True:
            message = await cat.receive()
            assert not isinstance(message, protocol.MatchStarted), message

    async with await ClientConnection.open(HOST, server.port, "cat", tokens["cat"]) as cat:
        await cat.send(protocol.Seek(game=GAME, options={"no_capture_limit": 6}))
        async with trio.open_nursery() as watching:
            watching.start_soon(never_paired, cat)
            with trio.fail_after(SECONDS):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(play, "ann")
                    nursery.start_soon(play, "bob")
            await trio.sleep(0.5)
            watching.cancel_scope.cancel()
    for name in ("ann", "bob"):
        assert [sorted(record.players) for record in records[name]] == [["ann", "bob"]] * 2
    matches = sorted({record.match for record in records["ann"]})
    assert matches == sorted({record.match for record in records["bob"]})
    await recorded(server.db, 2)
    changes = rows(
        server.db,
        "SELECT match_id, entrant, game FROM ladder_changes ORDER BY match_id, seat_index",
    )
    assert sorted({row[0] for row in changes}) == matches, "each ladder game is recorded"
    assert {(row[1], row[2]) for row in changes} == {("ann", GAME), ("bob", GAME)}
    statuses = rows(server.db, "SELECT status FROM matches WHERE id IN (?, ?)", *matches)
    assert statuses == [("finished",), ("finished",)]
    ratings = rows(server.db, "SELECT entrant, mu, sigma, games FROM ladder_ratings")
    assert {row[0] for row in ratings} == {"ann", "bob"}
    for _, mu, sigma, games in ratings:
        assert games == 2
        assert (mu, sigma) != pytest.approx((25.0, 25.0 / 3)), "the games moved the ratings"


async def test_a_bot_leaves_by_request_or_by_disconnecting(server: RunningServer) -> None:
    tokens = register(server.db, "ann")
    text(await admin(server.db, "ladder", "start", GAME, *TERMS))
    await started(server.port)
    join, leave = protocol.LadderJoin(game=GAME), protocol.LadderLeave(game=GAME)
    async with await ClientConnection.open(HOST, server.port, "ann", tokens["ann"]) as ann:
        for request, joined in ((join, True), (join, True), (leave, False)):
            await ann.send(request)
            answer = await ann.receive()
            assert answer == protocol.LadderJoined(game=GAME, joined=joined)
        await ann.send(leave)
        with pytest.raises(ServerError) as caught:
            await ann.receive()
        assert (caught.value.code, caught.value.message) == (
            ErrorCode.NOT_ALLOWED,
            f"ann is not in the ladder of {GAME}",
        )
        await ann.send(join)
        assert await ann.receive() == protocol.LadderJoined(game=GAME, joined=True)
        assert await pool(server.port) == ["ann"]
    deadline = time.monotonic() + SECONDS
    while await pool(server.port):  # until the server has read the connection's end
        assert time.monotonic() < deadline, "a bot that disconnected stayed in the pool"
        await trio.sleep(0.1)


async def pool(port: int) -> list[str]:
    """The active entrants of the ladder's table: its bots in the pool, as nobody has played."""
    table = await exchange(port, protocol.Ladder(game=GAME))
    assert isinstance(table, protocol.LadderTable)
    return [entry["entrant"] for entry in table.entries if entry["active"]]


async def test_a_bad_ladder_join_is_refused_with_a_sentence(server: RunningServer) -> None:
    tokens = register(server.db, "ann")
    port, ann = server.port, {"name": "ann", "token": tokens["ann"]}
    none_running = await refused(port, protocol.LadderJoin(game=GAME), **ann)
    assert none_running == (
        ErrorCode.UNKNOWN_TOURNAMENT,
        f"this server runs no ladder of {GAME} (running: none)",
    )
    text(await admin(server.db, "ladder", "start", GAME, *TERMS))
    await started(server.port)
    assert await refused(port, protocol.LadderJoin(game="chess"), **ann) == (
        ErrorCode.UNKNOWN_GAME,
        "there is no game 'chess'",
    )
    assert await refused(port, protocol.LadderJoin(game=GAME, section="cs101"), **ann) == (
        ErrorCode.BAD_FIELD,
        "a section is written CLASS/SECTION, not 'cs101'",
    )
    assert await refused(port, protocol.LadderJoin(game=GAME, section="cs101/A"), **ann) == (
        ErrorCode.UNKNOWN_TOURNAMENT,
        f"this server runs no ladder of {GAME} in section cs101/A (running: {GAME})",
    )
    code, message = await refused(port, protocol.LadderJoin(game=GAME))
    assert code == ErrorCode.NOT_ALLOWED
    assert message.startswith("ladder_join needs a registered player's connection"), message


async def recorded(db: Path | str, games: int) -> None:
    """Return once `games` ladder games are stored: a game's end reaches its players before
    the ladder has stored its rating changes."""
    deadline = time.monotonic() + SECONDS
    while len(rows(db, "SELECT 1 FROM ladder_changes")) < 2 * games:
        assert time.monotonic() < deadline, f"{games} ladder games were not recorded"
        await trio.sleep(0.1)


async def started(port: int, section: str | None = None, running: bool = True) -> None:
    """Return once the server says the ladder runs (or, `running` false, that it stopped): it
    reads the store every few seconds."""
    deadline = time.monotonic() + SECONDS
    while True:
        try:
            table = await exchange(port, protocol.Ladder(game=GAME, section=section))
            assert isinstance(table, protocol.LadderTable)
            if table.running is running:
                return
        except ServerError:  # no ladder kept yet
            pass
        assert time.monotonic() < deadline, f"the ladder's running is not {running}"
        await trio.sleep(0.2)
