"""`arbiter-server`'s log: one line per connection opened and closed, match
started and ended, seat defaulted and tournament step, as text or JSON lines, never a line per
move and never a token. A real server process; its stderr goes to a file the test reads."""

from __future__ import annotations

import json
import logging
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from tests.conftest import RunningServer
from tests.e2e.helpers import play_randomly, seek, until
from tests.processes import SERVER, start_server, stop
from tests.tournament.helpers import create, director, play_as, register, start

HOST = "127.0.0.1"


def served(tmp_path: Path, *options: str) -> Iterator[tuple[int, str, Path]]:
    """A server process with `options`: (port, the admin token of `alice`, its log file); once
    the caller is done, stopped with Ctrl-C, so its log is whole."""
    db, log = tmp_path / "log.db", tmp_path / "server-stderr.txt"
    token = register(db, "alice")["alice"]
    server, address = start_server(db, *options, log=log)
    try:
        yield int(address.rsplit(":", 1)[1]), token, log
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
    finally:
        stop(server)


@pytest.fixture
def text_log(tmp_path: Path) -> Iterator[tuple[int, str, Path]]:
    yield from served(tmp_path)


@pytest.fixture
def json_log(tmp_path: Path) -> Iterator[tuple[int, str, Path]]:
    yield from served(tmp_path, "--log-format", "json")


async def white_runs_out(port: int, token: str) -> None:
    """alice (registered, white) and bob seek `move=0.5`; alice never moves, then both leave."""
    alice = await ClientConnection.open(HOST, port, "alice", token)
    bob = await ClientConnection.open(HOST, port, "bob")
    with trio.fail_after(20):
        await seek(alice, move_time=0.5)
        await seek(bob, move_time=0.5)
        await until(alice, protocol.YourTurn)
        await until(bob, protocol.GameOver)
    await alice.aclose()
    await bob.aclose()


async def wait_for_lines(log: Path, event: str, count: int) -> None:
    """Wait until the log has `count` lines of `event`: the server writes a connection's close
    line once it has seen the connection go, a moment after the client left."""
    with trio.fail_after(10):  # another process writes it: no event to wait on but the file's
        while (await trio.Path(log).read_text()).count(event) < count:  # noqa: ASYNC110
            await trio.sleep(0.05)


async def test_a_match_logs_its_connections_start_default_and_end_as_text(
    text_log: tuple[int, str, Path],
) -> None:
    port, token, log = text_log
    await white_runs_out(port, token)
    await wait_for_lines(log, "connection_closed", 2)
    lines = log.read_text().splitlines()
    events = [line.split()[2] for line in lines]
    assert events[0] == "listening"
    assert f"address=127.0.0.1:{port}" in lines[0]
    assert events.count("connection_opened") == 2
    for name in ("alice", "bob"):
        closed = re.compile(rf"connection_closed peer=127\.0\.0\.1:\d+ name={name} why=")
        assert any(closed.search(line) for line in lines), name
    (started,) = [line for line in lines if " match_started " in line]
    assert 'match=1 game=kings-court players=alice,bob time="move=0.5"' in started
    (defaulted,) = [line for line in lines if " seat_defaulted " in line]
    assert "match=1 seat=white player=alice kind=time" in defaulted
    (ended,) = [line for line in lines if " match_ended " in line]
    assert "match=1 result=win winner=black termination=time" in ended
    assert 'reason="white ran out of time (0.5 s per move)"' in ended
    assert token not in log.read_text(), "a token never reaches the log"


async def test_json_lines_are_one_object_each_with_time_level_event_and_fields(
    json_log: tuple[int, str, Path],
) -> None:
    port, token, log = json_log
    await white_runs_out(port, token)
    await wait_for_lines(log, "connection_closed", 2)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert all({"time", "level", "event"} <= line.keys() for line in lines)
    assert all(line["level"] == "info" for line in lines)
    (ended,) = [line for line in lines if line["event"] == "match_ended"]
    assert ended["result"] == "win"
    assert ended["winner"] == "black"
    assert (ended["termination"], ended["match"]) == ("time", 1)
    (defaulted,) = [line for line in lines if line["event"] == "seat_defaulted"]
    assert (defaulted["seat"], defaulted["player"], defaulted["kind"]) == ("white", "alice", "time")
    (started,) = [line for line in lines if line["event"] == "match_started"]
    assert started["players"] == ["alice", "bob"]
    assert started["time"] == "move=0.5"
    assert token not in log.read_text()


async def test_no_line_per_move_at_info(text_log: tuple[int, str, Path]) -> None:
    port, _, log = text_log
    white = await ClientConnection.open(HOST, port, "white")
    black = await ClientConnection.open(HOST, port, "black")
    async with white, black:
        with trio.fail_after(60):
            await seek(white)
            await seek(black)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(play_randomly, white, 1)
                over = await play_randomly(black, 2)
    assert len(over.moves) >= 10
    await wait_for_lines(log, "connection_closed", 2)
    events = sorted(line.split()[2] for line in log.read_text().splitlines())
    assert events == [
        "connection_closed",
        "connection_closed",
        "connection_opened",
        "connection_opened",
        "listening",
        "match_ended",
        "match_started",
    ], f"{len(over.moves)} moves, and a line per event, not per move"


def test_a_connection_the_server_closes_is_logged_with_why(tmp_path: Path) -> None:
    for port, _, log in served(tmp_path, "--hello-timeout", "0.5"):
        with socket.create_connection((HOST, port)) as silent:
            silent.settimeout(10)
            while silent.recv(4096):  # the server's error frame, then its close
                pass
        trio.run(wait_for_lines, log, "connection_closed", 1)
        (closed,) = [line for line in log.read_text().splitlines() if "connection_closed" in line]
        assert re.search(r"peer=127\.0\.0\.1:\d+ name=\"\" why=", closed), closed
        assert closed.endswith('why="hello_timeout: no hello within 0.5 s of connecting"')


def test_warning_level_leaves_a_quiet_server_silent(tmp_path: Path) -> None:
    for port, token, log in served(tmp_path, "--log-level", "warning"):
        trio.run(white_runs_out, port, token)
        assert log.read_text() == ""


def test_a_bad_log_level_is_named_before_listening(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SERVER, "--log-level", "loud", "--db", str(tmp_path / "x.db")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "argument --log-level: invalid choice: 'loud'" in done.stderr


async def test_a_tournament_logs_each_step(
    server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The tournament's steps, from the server in this process (the events are the same
    whatever the form)."""
    caplog.set_level(logging.INFO, logger="arbiter.server")
    tokens = register(server.db, "one", "two")
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["one", "two"])
        with trio.fail_after(30):
            async with trio.open_nursery() as entrants:
                for name in ("one", "two"):
                    entrants.start_soon(play_as, server.port, name, tokens[name], "steady")
                await start(boss)
            # The last game's players may leave before the tournament records its end.
            while not any(r.getMessage() == "tournament_finished" for r in caplog.records):  # noqa: ASYNC110
                await trio.sleep(0.02)
    steps = [
        r.getMessage() for r in caplog.records if r.name == "arbiter.server.tournaments.tournament"
    ]
    assert steps == [
        "tournament_created",
        "tournament_started",
        "tournament_game_due",
        "tournament_game_finished",
        "tournament_game_due",
        "tournament_game_finished",
        "tournament_finished",
    ]
    finished = [r for r in caplog.records if r.getMessage() == "tournament_game_finished"]
    assert [r.arbiter_fields["tournament"] for r in finished] == ["cup", "cup"]  # type: ignore[attr-defined]
    assert all(r.arbiter_fields["result"] for r in finished)  # type: ignore[attr-defined]
