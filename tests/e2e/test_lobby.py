"""Lobby requests over real TCP: listing games, seeks, spectators, and what is stored when."""

from __future__ import annotations

import sqlite3

import pytest
import trio

import protocol
from client.connection import ClientConnection, ServerError
from games import GAME_NAMES
from tests.conftest import RunningServer
from tests.e2e.helpers import connect, play_randomly, seek, until


async def test_list_games_names_every_game_with_its_seats_and_notation(
    server: RunningServer,
) -> None:
    client = await connect(server.port, "lister")
    await client.send(protocol.ListGames())
    games = await client.receive()
    assert isinstance(games, protocol.Games)
    assert [g["name"] for g in games.games] == list(GAME_NAMES)
    court = games.games[0]
    assert court["seats"] == ["white", "black"] and "B4C4" in court["notation"]
    assert court["options"][0]["name"] == "no_capture_limit"


async def test_a_seek_can_be_cancelled_and_then_pairs_with_nobody(server: RunningServer) -> None:
    first = await connect(server.port, "first")
    seeking = await seek(first)
    assert isinstance(seeking, protocol.Seeking)
    await first.send(protocol.CancelSeek(seek=seeking.seek))
    assert await first.receive() == protocol.SeekCancelled(seek=seeking.seek)
    second = await connect(server.port, "second")
    assert isinstance(await seek(second), protocol.Seeking)
    with pytest.raises(ServerError, match="unknown_seek"):
        await first.send(protocol.CancelSeek(seek=seeking.seek))
        await first.receive()


async def test_nobody_moves_in_a_match_that_is_not_theirs(server: RunningServer) -> None:
    white, black, stranger = [await connect(server.port, n) for n in ("w", "b", "x")]
    await seek(white)
    started = await seek(black)
    assert isinstance(started, protocol.MatchStarted)
    await stranger.send(protocol.Move(match=started.match, move="B4C4"))
    with pytest.raises(ServerError, match="not_your_match"):
        await stranger.receive()


async def test_every_move_is_stored_before_the_opponent_hears_of_it(
    server: RunningServer,
) -> None:
    white, black = await connect(server.port, "w"), await connect(server.port, "b")
    await seek(white)
    await seek(black)
    checked = 0

    async def watch_the_store() -> None:
        nonlocal checked
        while True:
            message = await black.receive()
            if isinstance(message, protocol.GameOver):
                return
            if isinstance(message, protocol.OpponentMoved):
                with sqlite3.connect(server.db) as db:
                    row = db.execute(
                        "SELECT move FROM moves WHERE match_id = ? AND ply = ?",
                        (message.match, message.ply),
                    ).fetchone()
                assert row == (message.move,)
                checked += 1
            if isinstance(message, protocol.YourTurn):
                assert message.legal
                await black.send(protocol.Move(match=message.match, move=message.legal[-1]))

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch_the_store)
            await play_randomly(white, 11)
    assert checked > 2


async def test_spectators_see_every_move_and_the_result_live_and_afterwards(
    server: RunningServer,
) -> None:
    white, black = await connect(server.port, "w"), await connect(server.port, "b")
    await seek(white)
    started = await seek(black)
    assert isinstance(started, protocol.MatchStarted)
    spectator = await connect(server.port, "spectator")
    await spectator.send(protocol.Watch(match=started.match))
    snapshot = await spectator.receive()
    assert isinstance(snapshot, protocol.Watching)
    assert snapshot.players == ["w", "b"] and snapshot.moves == []
    results = {}

    async def play(client: object, seed: int, key: str) -> None:
        results[key] = await play_randomly(client, seed)  # type: ignore[arg-type]

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, white, 1, "white")
            nursery.start_soon(play, black, 2, "black")
            seen = []
            while not isinstance(message := await spectator.receive(), protocol.GameOver):
                assert isinstance(message, protocol.OpponentMoved)
                seen.append(message.move)
    assert seen == message.moves == results["white"].moves
    assert message.reason == results["black"].reason

    late = await connect(server.port, "late")
    await late.send(protocol.Watch(match=started.match))
    record = await late.receive()
    assert isinstance(record, protocol.Watching) and record.moves == seen
    assert await until(late, protocol.GameOver) == message

    await late.send(protocol.Watch(match=999))
    with pytest.raises(ServerError, match="unknown_match"):
        await late.receive()


async def test_a_move_that_cannot_be_stored_is_never_announced(server: RunningServer) -> None:
    """The store refuses white's second move (a trigger stands in for a full disk): nobody
    hears of that move, both seats learn the match stopped, and the stored moves end before it."""
    with sqlite3.connect(server.db) as db:
        db.execute(
            "CREATE TRIGGER refuse_third_move BEFORE INSERT ON moves WHEN NEW.ply = 3"
            " BEGIN SELECT RAISE(ABORT, 'no space left (test)'); END"
        )
    white, black = await connect(server.port, "w"), await connect(server.port, "b")
    await seek(white)
    started = await seek(black)
    assert isinstance(started, protocol.MatchStarted)
    seen: dict[str, list[protocol.Message]] = {"w": [], "b": []}

    async def play(name: str, connection: ClientConnection) -> None:
        while True:
            try:
                message = await connection.receive()
            except ServerError as error:
                assert error.code == "internal_error"
                return
            seen[name].append(message)
            if isinstance(message, protocol.YourTurn):
                assert message.legal
                await connection.send(protocol.Move(match=message.match, move=message.legal[0]))

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, "w", white)
            nursery.start_soon(play, "b", black)
    accepted = [m.ply for m in seen["w"] if isinstance(m, protocol.MoveAccepted)]
    heard = [m.ply for m in seen["b"] if isinstance(m, protocol.OpponentMoved)]
    assert accepted == [1] and heard == [1]  # ply 2 is black's, ply 3 was refused by the store
    assert not any(isinstance(m, protocol.GameOver) for m in seen["w"] + seen["b"])
    with sqlite3.connect(server.db) as db:
        plies = [p for (p,) in db.execute("SELECT ply FROM moves ORDER BY ply")]
        status = db.execute("SELECT status FROM matches").fetchone()
    assert plies == [1, 2] and status == ("playing",)
