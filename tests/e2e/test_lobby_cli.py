"""`arbiter lobby`, `arbiter bot`'s waiting line and `--opponent`, run as a user runs them:
separate processes on a real server: a seek says what it waits for, never silently."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.processes import CLI, ROOT, start_server, stop

BOT = ["bot", "--game", "kings-court", "--seed", "1", "--time", "move=2"]


def run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )


class Lines:
    """A pipe's lines as they come, read by a thread, so a test can wait for one with a bound."""

    def __init__(self, pipe: IO[str] | None) -> None:
        assert pipe is not None
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(pipe,), daemon=True).start()

    def _read(self, pipe: IO[str]) -> None:
        for line in pipe:
            self._lines.put(line.rstrip("\n"))

    def next(self, seconds: float = 30) -> str:
        return self._lines.get(timeout=seconds)


@pytest.fixture
def address(tmp_path: Path) -> Iterator[str]:
    server, address = start_server(tmp_path / "lobby.db")
    try:
        yield address
    finally:
        stop(server)


def test_bot_says_what_it_waits_for_the_lobby_shows_it_and_a_challenge_meets_it(
    address: str,
) -> None:
    waiter = start([*BOT, "--server", address, "--agent", "random", "--name", "waiter"])
    try:
        said = Lines(waiter.stderr)
        assert said.next() == (
            "arbiter bot: waiting for an opponent: seek 1, kings-court, default options, move=2"
        )
        shown = run(["lobby", "--server", address])
        assert shown.returncode == 0, shown.stderr
        assert "open seeks: 1" in shown.stdout
        assert "live matches: 0" in shown.stdout
        assert "waiter" in shown.stdout
        assert "move=2" in shown.stdout
        as_json = run(["lobby", "--server", address, "--json"])
        seeks = json.loads(as_json.stdout)["seeks"]
        assert [(s["seek"], s["player"], s["opponent"]) for s in seeks] == [(1, "waiter", None)]
        meets = ["--agent", "greedy", "--name", "meets", "--opponent", "waiter"]
        challenger = start([*BOT, "--server", address, *meets])
        out, err = challenger.communicate(timeout=60)
        assert challenger.returncode == 0, err
        assert err.splitlines()[-1] == "arbiter bot: paired: match 1 against waiter, playing black"
        assert out.startswith("match 1: meets as black: ")
        assert said.next() == "arbiter bot: paired: match 1 against meets, playing white"
        assert waiter.wait(timeout=30) == 0
    finally:
        stop(waiter)


def test_lobby_follow_prints_a_fresh_listing_when_a_seek_opens(address: str) -> None:
    follower = start(["lobby", "--server", address, "--follow", "--json"])
    try:
        listings = Lines(follower.stdout)
        first = json.loads(listings.next())
        assert first["seeks"] == []
        assert first["following"] is True
        waiter = start([*BOT, "--server", address, "--agent", "random", "--name", "waiter"])
        try:
            pushed = json.loads(listings.next())
            assert [seek["player"] for seek in pushed["seeks"]] == ["waiter"]
        finally:
            stop(waiter)
    finally:
        stop(follower)


def test_lobby_names_an_address_where_nothing_listens() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    done = run(["lobby", "--server", f"127.0.0.1:{port}"])
    assert done.returncode == 1
    assert f"cannot connect to 127.0.0.1:{port} (connection refused)" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (
            [*BOT, "--server", "127.0.0.1:7777", "--agent", "random", "--opponent", ""],
            "expected a player's name of 1 to 64 printable characters, not ''",
        ),
        (
            ["play", "kings-court", "--vs", "random", "--opponent", "bob"],
            "--opponent challenges a player on a server: use it with --server",
        ),
        (["lobby"], "the following arguments are required: --server"),
        (["lobby", "--server", "127.0.0.1:7777", "--name", "a\tb"], "expected a player's name"),
    ],
)
def test_bad_lobby_and_opponent_arguments_are_named(args: list[str], complaint: str) -> None:
    done = run(args)
    assert done.returncode == 2
    assert complaint in done.stderr
