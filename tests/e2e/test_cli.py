"""The installed commands, run as a user runs them: separate processes, real ports."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.processes import (
    CLI,
    ROOT,
    SERVER,
    commit_writers,
    no_commit_writer_left,
    start_bots,
    start_server,
    stop,
)


def run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_referee_plays_one_game_and_reports_the_result() -> None:
    done = run([*CLI, "referee", "kings-court", "greedy", "random", "--seed", "3"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].strip().startswith("1. white ")
    assert lines[-1].startswith("result: ")
    assert any(
        lines[-1].startswith(f"result: {end}")
        for end in ("white wins: ", "black wins: ", "both forfeit: ")
    )


def test_referee_json_is_one_object_describing_the_game() -> None:
    done = run([*CLI, "referee", "kings-court", "random", "random", "--seed", "5", "--json"])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["game"] == "kings-court"
    assert report["seats"] == {"white": "random", "black": "random"}
    assert report["outcome"] in {"win", "both_forfeit"}
    assert (report["winner"] is None) == (report["outcome"] != "win")
    assert report["reason"]
    assert len(report["moves"]) > 4
    again = run([*CLI, "referee", "kings-court", "random", "random", "--seed", "5", "--json"])
    assert json.loads(again.stdout)["moves"] == report["moves"], "a seeded game replays"


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["referee", "chess", "random", "random"], "invalid choice: 'chess'"),
        (["referee", "kings-court", "random", "oracle"], "invalid choice: 'oracle'"),
        (
            ["bot", "--server", "localhost:99999", "--game", "kings-court", "--agent", "random"],
            "expected HOST or HOST:PORT",
        ),
        (["referee", "kings-court", "random", "random", "--time", "move=fast"], "'fast' in"),
        (["referee", "kings-court", "random", "random", "--time", "hours=2"], "unknown part"),
        (["referee", "kings-court", "random", "random", "--move-time", "fast"], "'fast' in"),
        (
            ["referee", "kings-court", "random", "random", "--move-time", "1", "--time", "move=2"],
            "not allowed with argument --move-time",
        ),
    ],
)
def test_bad_arguments_are_named(args: list[str], complaint: str) -> None:
    done = run([*CLI, *args])
    assert done.returncode == 2
    assert complaint in done.stderr


def test_server_prints_its_port_serves_bots_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    db = tmp_path / "served.db"
    server, address = start_server(db, log=tmp_path / "server-stderr.txt")
    try:
        bots = start_bots(address, "--games", "2", named=True)
        outputs = [bot.communicate(timeout=60) for bot in bots]
        for bot, (out, err) in zip(bots, outputs, strict=True):
            assert bot.returncode == 0, err
            assert len(out.strip().splitlines()) == 2
            assert all(" as " in line for line in out.splitlines())
        assert commit_writers(db), "the moves were committed by the commit process"
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
        assert "stopped" in (tmp_path / "server-stderr.txt").read_text()
    finally:
        stop(server)
    assert db.exists()
    assert no_commit_writer_left(db), "the commit process outlived its server"


def test_server_reports_a_port_it_cannot_take(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run([*SERVER, "--port", str(port), "--db", str(tmp_path / "x.db")])
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["--port", "99999"], "expected a port from 0 to 65535, not '99999'"),
        (["--port", "-5"], "expected a port from 0 to 65535, not '-5'"),
        (["--grace", "-3"], "expected a number of seconds (0 or more), not '-3'"),
        (["--grace", "nan"], "expected a number of seconds (0 or more), not 'nan'"),
    ],
)
def test_server_names_a_bad_argument_before_listening(
    tmp_path: Path, args: list[str], complaint: str
) -> None:
    done = run([*SERVER, "--db", str(tmp_path / "x.db"), *args])
    assert done.returncode == 2
    assert complaint in done.stderr
    assert "listening" not in done.stdout
    assert not (tmp_path / "x.db").exists()


def test_server_reports_a_database_it_cannot_open(tmp_path: Path) -> None:
    done = run([*SERVER, "--port", "0", "--db", str(tmp_path / "missing" / "x.db")])
    assert done.returncode == 1
    assert "cannot open database" in done.stderr


def test_a_second_server_refuses_a_database_another_server_uses(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    first, _ = start_server(db)
    try:
        second = run([*SERVER, "--port", "0", "--db", str(db)])
        assert second.returncode == 1
        assert f"another Arbiter server is using {str(db)!r}" in second.stderr
        assert "listening" not in second.stdout
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=10) == 0
        third, _ = start_server(db)  # the lock went with the first server
        stop(third)
    finally:
        stop(first)


def test_a_local_tournament_refuses_the_file_of_a_running_server(tmp_path: Path) -> None:
    db = tmp_path / "served.db"
    server, _ = start_server(db)
    try:
        done = run(
            [*CLI, "tournament", "local", "kings-court", "random", "greedy", "--db", str(db)]
        )
    finally:
        stop(server)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (  # after the progress bar's blank line
        f"arbiter: another Arbiter server is using {str(db)!r} (it holds '{db}.lock');"
        " stop it, or give this one its own --db"
    )


def test_demo_finishes_within_a_minute() -> None:
    started = time.monotonic()
    done = run([*CLI, "demo"], timeout=60)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 60
    assert "moves stored" in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("result: ")
    assert os.linesep.join(done.stdout.splitlines()).count("move ") > 4


def test_agents_lists_each_games_agents_with_a_line_each() -> None:
    done = run([*CLI, "agents"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "kings-court:" in lines
    assert "amazons:" in lines
    assert any(line.split()[0] == "random" for line in lines if line.startswith("  "))
    one = run([*CLI, "agents", "shobu"])
    assert one.stdout.splitlines()[0] == "shobu:"


def test_a_client_names_an_address_where_nothing_listens() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    done = run(
        [*CLI, "bot", "--server", f"127.0.0.1:{port}", "--game", "kings-court", "--agent", "random"]
    )
    assert done.returncode == 1
    assert f"cannot connect to 127.0.0.1:{port} (connection refused)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_client_connected_to_something_else_says_so() -> None:
    """A web server on the port: its reply is not a frame, and the client says what it saw."""
    with socket.create_server(("127.0.0.1", 0)) as other:
        other.settimeout(30)
        port = other.getsockname()[1]
        client = subprocess.Popen(
            [
                *CLI,
                "bot",
                "--server",
                f"127.0.0.1:{port}",
                "--game",
                "kings-court",
                "--agent",
                "random",
            ],
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        connection, _ = other.accept()
        with connection:
            connection.recv(1024)
            connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        _, stderr = client.communicate(timeout=30)
    assert client.returncode == 1
    assert f"127.0.0.1:{port} did not answer as an Arbiter server" in stderr
    assert "Traceback" not in stderr


def test_referee_move_time_is_the_limit_a_slow_agent_loses_on() -> None:
    late = ROOT / "tests" / "byoa" / "players" / "late_once.py"
    done = subprocess.run(
        # the module reads how late to be from its environment, which a sandbox clears
        [
            *CLI,
            "referee",
            "watch-your-back",
            str(late),
            "random",
            "--move-time",
            "0.5",
            "--json",
            "--no-sandbox",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "ARBITER_TEST_LATE": "1.5"},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["seats"] == {"white": str(late), "black": "random"}
    assert report["winner"] == "black"
    assert report["reason"] == "white ran out of time (0.5 s per move)"


def test_a_killed_server_leaves_no_commit_process_behind(tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    server, address = start_server(db)
    try:
        bots = [
            subprocess.Popen(
                [*CLI, "bot", "--server", address, "--game", "kings-court", "--agent", "random"],
                stdout=subprocess.DEVNULL,
                cwd=ROOT,
            )
            for _ in range(2)
        ]
        for bot in bots:
            assert bot.wait(timeout=60) == 0
        assert commit_writers(db)
    finally:
        stop(server)  # SIGKILL: no clean-up runs in the server
    assert no_commit_writer_left(db), "the commit process outlived its killed server"


@pytest.mark.parametrize(
    "command",
    [
        [*SERVER, "--port", "0", "--db", "DB"],
        [*SERVER, "admin", "--db", "DB", "list"],
        [*CLI, "tournament", "local", "kings-court", "random", "greedy", "--db", "DB"],
    ],
)
def test_commands_that_write_refuse_another_programs_sqlite_file(
    tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "notes.db"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    before = db.read_bytes()
    done = run([str(db) if arg == "DB" else arg for arg in command])
    assert done.returncode == 1
    assert "not an Arbiter server's file: it holds other tables (notes)" in done.stderr
    assert "Traceback" not in done.stderr
    assert db.read_bytes() == before
