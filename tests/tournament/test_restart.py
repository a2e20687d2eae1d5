"""A real `arbiter-server` process killed with SIGKILL mid-tournament and with two casual
matches in play, then restarted, on each backend: no finished game and no accepted move is
lost, the tournament's game in play resumes from its stored moves with its clocks as stored,
and the tournament runs to its end."""

from __future__ import annotations

import random
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from arbiter import protocol
from arbiter.agents import make_agent
from arbiter.client.connection import ClientConnection, ConnectionClosed
from arbiter.client.tournament import play_tournament
from arbiter.server.storage.engine import open_read_only
from arbiter.server.storage.records import FullRecord, read_records
from tests.conftest import BOTH_BACKENDS
from tests.e2e.helpers import connect, seek
from tests.tournament.helpers import HOST, Slow, create, director, register, start, status

ROOT = Path(__file__).resolve().parents[2]
CLOCK = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


async def run_server(db: Path | str, port: int) -> trio.Process:
    process = await trio.lowlevel.open_process(
        [
            sys.executable,
            "-m",
            "arbiter.server",
            "--port",
            str(port),
            "--db",
            str(db),
            "--grace",
            "1",
        ],
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None
    line = b""
    with trio.fail_after(20):
        while not line.endswith(b"\n"):
            line += await process.stdout.receive_some(1)
    assert line.decode().startswith(f"listening on {HOST}:{port}")
    return process


def stored(db: Path | str, tournament: str | None = "cup") -> dict[int, FullRecord]:
    """The matches stored, in play or not: the tournament's, or every one."""
    connection = open_read_only(db)
    try:
        return {r.id: r for r in read_records(connection, tournament=tournament, unfinished=True)}
    finally:
        connection.close()


Told = set[tuple[int, int, str]]
"""(match, ply, move) of every move a player was told was played."""


async def casual_pair(
    port: int, names: tuple[str, str], move_time: float, told: Told, ended: dict[int, str]
) -> None:
    """Two casual players playing game after game, a move every 10 ms, until their server dies:
    each move either is told of goes in `told`, each game's end in `ended` (match -> result).
    Their own time control keeps them from pairing with another pair."""
    first, second = await connect(port, names[0]), await connect(port, names[1])
    try:
        async with first, second:
            while True:
                assert isinstance(await seek(first, move_time=move_time), protocol.Seeking)
                await seek(second, move_time=move_time)
                async with trio.open_nursery() as both:
                    both.start_soon(play_casually, first, told, ended)
                    both.start_soon(play_casually, second, told, ended)
    except* (ConnectionClosed, OSError, trio.BrokenResourceError):
        pass  # the server was killed


async def play_casually(connection: ClientConnection, told: Told, ended: dict[int, str]) -> None:
    rng = random.Random(connection.session)
    while True:
        message = await connection.receive()
        if isinstance(message, protocol.MoveAccepted | protocol.OpponentMoved):
            told.add((message.match, message.ply, message.move))
        elif isinstance(message, protocol.GameOver):
            ended[message.match] = message.result
            return
        elif isinstance(message, protocol.YourTurn) and message.legal:
            await trio.sleep(0.01)
            await connection.send(
                protocol.Move(match=message.match, move=rng.choice(message.legal))
            )


@pytest.mark.long
@BOTH_BACKENDS
async def test_sigkill_mid_tournament_loses_nothing_and_the_game_in_play_resumes(
    db: Path | str,
) -> None:
    port = free_port()
    tokens = register(db, "north", "south")
    told: list[tuple[int, int, str]] = []
    casual_told: Told = set()
    casual_ended: dict[int, str] = {}

    def hear(message: protocol.Message) -> None:
        if isinstance(message, protocol.MoveAccepted | protocol.OpponentMoved):
            told.append((message.match, message.ply, message.move))

    async def entrant(name: str, seed: int) -> None:
        await play_tournament(
            HOST,
            port,
            "cup",
            name=name,
            token=tokens[name],
            make_agent=lambda game, n: Slow(make_agent("random", game, seed + n), 0.01),
            reconnect=30.0,
            on_message=hear,
        )

    server = await run_server(db, port)
    try:
        async with await director(port, db) as boss:
            await create(
                boss,
                players=["north", "south"],
                options={"no_capture_limit": 12},
                time={"clock": CLOCK, "increment": 0.0},
                rounds=2,
                wait=15.0,
            )
            await start(boss)
        with trio.fail_after(90):
            async with trio.open_nursery() as entrants:
                entrants.start_soon(entrant, "north", 100)
                entrants.start_soon(entrant, "south", 200)
                for pair, move_time in (("ann", "ben"), 29.0), (("cat", "dan"), 28.0):
                    entrants.start_soon(
                        casual_pair, port, pair, move_time, casual_told, casual_ended
                    )
                before = await kill_during_second_game(server, db)
                told_before = list(told)
                server = await run_server(db, port)
        async with await director(port, db) as boss:
            final = await status(boss)
    finally:
        server.terminate()
        await server.wait()

    after = stored(db)
    first, second = sorted(before)
    assert after[first] == before[first], "the finished game stands as it was"
    assert before[second].status == "playing"
    assert len(before[second].moves) >= 3
    resumed = after[second]
    assert resumed.status == "finished"
    assert resumed.moves[: len(before[second].moves)] == before[second].moves
    assert len(resumed.moves) > len(before[second].moves), "the game went on from its moves"
    moves_of = {r.id: [m.move for m in r.moves] for r in after.values()}
    for match, ply, move in told_before:
        assert moves_of[match][ply - 1] == move, "every move a player heard of was stored"
    assert_clocks_continue(resumed)
    casual = {r.id: r for r in stored(db, None).values() if r.tournament is None}
    casual_matches = {match for match, _, _ in casual_told}
    assert len(casual_matches) >= 2, "both casual pairs had played when the server was killed"
    for match, ply, move in casual_told:
        assert casual[match].moves[ply - 1].move == move, "every casual move told was stored"
    for match, result in casual_ended.items():
        assert (casual[match].status, casual[match].result) == ("finished", result)
    in_play = casual_matches - set(casual_ended)
    assert in_play
    assert all(casual[match].status == "aborted" for match in in_play)
    assert final.status == "finished"
    assert [game["match"] for game in final.games][:2] == [first, second]
    assert all(game["status"] == "finished" for game in final.games)
    assert sum(line["games"] for line in final.standings) == 8


async def kill_during_second_game(server: trio.Process, db: Path | str) -> dict[int, FullRecord]:
    """SIGKILL once the first game is over and the second has a few stored moves; returns what
    the store held at that instant."""
    while True:
        await trio.sleep(0.02)
        records = stored(db)
        finished = [r for r in records.values() if r.status == "finished"]
        playing = [r for r in records.values() if r.status == "playing"]
        if len(finished) == 1 and playing and len(playing[0].moves) >= 3:
            server.kill()
            await server.wait()
            return stored(db)
        if len(finished) > 1:
            pytest.fail("the second game ended before it could be interrupted")


def assert_clocks_continue(record: FullRecord) -> None:
    """Each seat's clock after a move is its clock after its previous move, less the move's
    charged time (no increment here): across the restart too, so the clocks were resumed as
    stored, neither reset nor charged for the time the server was down."""
    left: dict[str, Any] = dict.fromkeys(record.seats, CLOCK)
    for move in record.moves:
        assert move.clock == pytest.approx(left[move.seat] - (move.elapsed - move.compensation))
        left[move.seat] = move.clock
