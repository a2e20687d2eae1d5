"""The time control of a seek that names none: a person's (`illegal: retry`,
what `arbiter play --server` sends) is a game clock, `clock=600+5`; a program's (`forfeit`:
bots, tournaments) keeps the game's per-move limit, `move=10`. And `--server HOST` alone means
the server's port, 7777 (item 8), parsed and used for one real connection."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.play.modes import Setup
from arbiter.games import get_game
from tests.conftest import RunningServer
from tests.processes import CLI, ROOT, SERVER, stop

PERSON = {"clock": 600.0, "increment": 5.0, "lag": 1.0}
PROGRAM = {"move": 10.0, "lag": 1.0}


async def answer(server: RunningServer, seek: protocol.Seek) -> protocol.Message:
    """The server's answer to `seek` from a new connection, closed after."""
    async with await ClientConnection.open(server.host, server.port, "someone") as connection:
        await connection.send(seek)
        return await connection.receive()


@pytest.mark.parametrize(("illegal", "time"), [("retry", PERSON), ("forfeit", PROGRAM)])
async def test_a_persons_seek_gets_a_game_clock_and_a_programs_the_move_limit(
    server: RunningServer, illegal: str, time: dict[str, float]
) -> None:
    seeking = await answer(server, protocol.Seek(game="kings-court", illegal=illegal))
    assert isinstance(seeking, protocol.Seeking)
    assert seeking.time == time


async def test_play_on_a_server_sends_a_persons_seek_without_a_time_control(
    server: RunningServer,
) -> None:
    """`arbiter play --server` without --time: the seek the server reads as a person's."""
    seek = Setup(get_game("kings-court"), None, None).human_seek()
    assert (seek.time, seek.illegal) == ({}, "retry")
    seeking = await answer(server, seek)
    assert isinstance(seeking, protocol.Seeking)
    assert seeking.time == PERSON


def test_server_host_alone_connects_to_port_7777(tmp_path: Path) -> None:
    """Two bots given `--server 127.0.0.1` play a game on a server listening on 7777."""
    server = subprocess.Popen(
        [*SERVER, "--port", "7777", "--db", str(tmp_path / "x.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        assert server.stdout is not None
        if not server.stdout.readline().startswith("listening on 127.0.0.1:7777"):
            pytest.skip("port 7777 is taken on this machine")
        bot = [*CLI, "bot", "--server", "127.0.0.1", "--game", "kings-court", "--games", "1"]
        bots = [
            subprocess.Popen(
                [*bot, "--agent", "random", "--name", name],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            for name in ("one", "two")
        ]
        for process in bots:
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            assert " as " in out  # the game's result line
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
    finally:
        stop(server)
