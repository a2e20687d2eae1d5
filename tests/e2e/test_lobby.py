"""Lobby requests over real TCP: listing games, seeks, spectators, and what is stored when."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.games import GAME_NAMES
from tests.conftest import RunningServer
from tests.e2e.helpers import Dial, play_randomly, seek, until


async def test_list_games_names_every_game_with_its_seats_and_notation(
    dial: Dial,
) -> None:
    client = await dial.client("lister")
    await client.send(protocol.ListGames())
    games = await client.receive()
    assert isinstance(games, protocol.Games)
    assert [g["name"] for g in games.games] == list(GAME_NAMES)
    court = games.games[0]
    assert court["seats"] == ["white", "black"]
    assert "B4C4" in court["notation"]
    assert court["options"][0]["name"] == "no_capture_limit"


async def test_a_seek_can_be_cancelled_and_then_pairs_with_nobody(dial: Dial) -> None:
    first = await dial.client("first")
    seeking = await seek(first)
    assert isinstance(seeking, protocol.Seeking)
    await first.send(protocol.CancelSeek(seek=seeking.seek))
    assert await first.receive() == protocol.SeekCancelled(seek=seeking.seek)
    second = await dial.client("second")
    assert isinstance(await seek(second), protocol.Seeking)
    await first.send(protocol.CancelSeek(seek=seeking.seek))
    with pytest.raises(ServerError, match="unknown_seek"):
        await first.receive()


async def test_nobody_moves_in_a_match_that_is_not_theirs(dial: Dial) -> None:
    white, black, stranger = [await dial.client(n) for n in ("w", "b", "x")]
    await seek(white)
    started = await seek(black)
    assert isinstance(started, protocol.MatchStarted)
    await stranger.send(protocol.Move(match=started.match, move="B4C4"))
    with pytest.raises(ServerError, match="not_your_match"):
        await stranger.receive()


async def test_every_move_is_stored_before_the_opponent_hears_of_it(
    server: RunningServer,
    dial: Dial,
) -> None:
    white, black = await dial.client("w"), await dial.client("b")
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
    dial: Dial,
) -> None:
    white, black = await dial.client("w"), await dial.client("b")
    await seek(white)
    started = await seek(black)
    assert isinstance(started, protocol.MatchStarted)
    spectator = await dial.client("spectator")
    await spectator.send(protocol.Watch(match=started.match))
    snapshot = await spectator.receive()
    assert isinstance(snapshot, protocol.Watching)
    assert snapshot.players == ["w", "b"]
    assert snapshot.moves == []
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

    late = await dial.client("late")
    await late.send(protocol.Watch(match=started.match))
    record = await late.receive()
    assert isinstance(record, protocol.Watching)
    assert record.moves == seen
    assert await until(late, protocol.GameOver) == message

    await late.send(protocol.Watch(match=999))
    with pytest.raises(ServerError, match="unknown_match"):
        await late.receive()


async def test_a_move_that_cannot_be_stored_is_never_announced(
    server: RunningServer, dial: Dial
) -> None:
    """The store refuses white's second move (a trigger stands in for a full disk): nobody
    hears of that move, both seats get a `game_over` that says the game could not be stored,
    showing the stored moves, and that end is stored."""
    with sqlite3.connect(server.db) as db:
        db.execute(
            "CREATE TRIGGER refuse_third_move BEFORE INSERT ON moves WHEN NEW.ply = 3"
            " BEGIN SELECT RAISE(ABORT, 'no space left (test)'); END"
        )
    white, black = await dial.client("w"), await dial.client("b")
    await seek(white)
    started = await seek(black)
    assert isinstance(started, protocol.MatchStarted)
    seen: dict[str, list[protocol.Message]] = {"w": [], "b": []}

    async def play(name: str, connection: ClientConnection) -> None:
        while True:
            message = await connection.receive()
            seen[name].append(message)
            if isinstance(message, protocol.GameOver):
                return
            if isinstance(message, protocol.YourTurn):
                assert message.legal
                await connection.send(protocol.Move(match=message.match, move=message.legal[0]))

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, "w", white)
            nursery.start_soon(play, "b", black)
    accepted = [m.ply for m in seen["w"] if isinstance(m, protocol.MoveAccepted)]
    heard = [m.ply for m in seen["b"] if isinstance(m, protocol.OpponentMoved)]
    assert accepted == [1]
    assert heard == [1]
    overs = [seen[name][-1] for name in ("w", "b")]
    ended: list[tuple[str, str, str]] = []
    with trio.fail_after(10):
        while ended != [("finished", "both_forfeit", "server-error")]:  # stored after it is told
            await trio.sleep(0.05)
            with sqlite3.connect(server.db) as db:
                ended = db.execute("SELECT status, result, termination FROM matches").fetchall()
                stored = [move for (move,) in db.execute("SELECT move FROM moves ORDER BY ply")]
    for over in overs:
        assert isinstance(over, protocol.GameOver)
        assert over.winner is None
        assert "could not store" in over.reason
        assert over.moves == stored
        assert len(stored) == 2


async def test_a_match_that_cannot_be_stored_never_starts_and_the_server_goes_on(
    server: RunningServer,
    dial: Dial,
) -> None:
    """The store refuses the first new match (a trigger stands in for a full disk): both
    seekers are told, and the next pair plays as usual."""
    with sqlite3.connect(server.db) as db:
        db.execute(  # on a seat of the new match, stored in the same transaction as its row
            "CREATE TRIGGER refuse_first_match BEFORE INSERT ON results WHEN NEW.player_id ="
            " (SELECT id FROM players WHERE name = 'first')"
            " BEGIN SELECT RAISE(ABORT, 'no space left (test)'); END"
        )
    with trio.fail_after(10):
        first, second = await dial.client("first"), await dial.client("second")
        assert isinstance(await seek(first), protocol.Seeking)
        with pytest.raises(ServerError) as refused:
            await seek(second)
        assert refused.value.code == "internal_error"
        with pytest.raises(ServerError) as refused:
            await first.receive()
        assert refused.value.code == "internal_error"
        again = [await dial.client(name) for name in ("third", "fourth")]
        assert isinstance(await seek(again[0]), protocol.Seeking)
        assert isinstance(await seek(again[1]), protocol.MatchStarted)
    with sqlite3.connect(server.db) as db:
        assert db.execute("SELECT id, status FROM matches").fetchall() == [(1, "playing")]
        assert db.execute("SELECT name FROM players ORDER BY name").fetchall() == [
            ("fourth",),
            ("third",),
        ]


def _store_finished_match(db_path: Path, match_id: int, options: str, moves: list[str]) -> None:
    """A finished King's Court match written straight into the file, as an edited file or an
    older version of the rules could have left it."""
    with sqlite3.connect(db_path) as db:
        db.execute(
            "INSERT INTO matches (id, game, options, time_control, illegal, status, started_at,"
            " ended_at, result, winner, reason) VALUES (?, 'kings-court', ?, '{\"move\": 5.0}',"
            " 'forfeit,forfeit', 'finished', 0, 1, 'win', 'white', 'black resigned')",
            (match_id, options),
        )
        db.executemany(
            "INSERT INTO moves (match_id, ply, seat, move, elapsed, compensation, stored_at)"
            " VALUES (?, ?, ?, ?, 0.1, 0.0, 1)",
            [(match_id, ply, "white", move) for ply, move in enumerate(moves, 1)],
        )


@pytest.mark.parametrize(
    ("options", "moves", "sentence"),
    [
        ("{}", ["A1A2"], "match 99 cannot be shown: its stored moves do not replay (illegal move"),
        ("{not json", [], "the server failed while answering this watch"),
    ],
)
async def test_a_stored_match_that_cannot_be_read_back_is_an_error_not_a_crash(
    server: RunningServer, dial: Dial, options: str, moves: list[str], sentence: str
) -> None:
    """Watching a finished match whose record the server cannot use answers that watch with
    `internal_error`; the connection and the server go on."""
    _store_finished_match(server.db, 99, options, moves)
    with trio.fail_after(10):
        watcher = await dial.client("watcher")
        await watcher.send(protocol.Watch(match=99))
        with pytest.raises(ServerError) as failed:
            await watcher.receive()
        assert failed.value.code == "internal_error"
        assert sentence in str(failed.value)
        opponent = await dial.client("opponent")
        assert isinstance(await seek(watcher), protocol.Seeking)
        assert isinstance(await seek(opponent), protocol.MatchStarted)
