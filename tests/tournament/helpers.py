"""Tournament test helpers: accounts in a server's file, a director, and scripted entrants.

The entrants are in-process clients (`client.tournament.play_tournament`) driven by agents that
misbehave on purpose, each at its first move of every game, so every result is known in advance.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import trio

from arbiter import protocol
from arbiter.client import cli
from arbiter.client.connection import ClientConnection
from arbiter.client.runner import GameRecord, MessageHook
from arbiter.client.tournament import AgentFailed, play_tournament, request
from arbiter.games import Game, State
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_database
from tests.processes import CLI, ROOT, in_process

HOST = "127.0.0.1"
GAME = "kings-court"
QUICK = {"no_capture_limit": 6}
"""King's Court games end in a few moves: the 50-move rule's double forfeit, made short."""


async def arbiter(
    *args: str, token: str | None = None, cwd: Path = ROOT, seconds: float = 60
) -> trio.CompletedProcess[bytes]:
    """The `arbiter` command as a user runs it (`$ARBITER_TOKEN` set to `token`, else empty)."""
    env = {**os.environ, "ARBITER_TOKEN": token or ""}
    with trio.fail_after(seconds):
        return await trio.run_process(
            [*CLI, *args], capture_stdout=True, capture_stderr=True, check=False, env=env, cwd=cwd
        )


async def arbiter_here(*args: str) -> subprocess.CompletedProcess[bytes]:
    """The `arbiter` command in this process (`in_process`): for refusals, which need no
    environment of their own."""
    return await in_process(cli.main, list(args), [*CLI, *args])


def text(done: trio.CompletedProcess[bytes]) -> str:
    """A command's output, once it succeeded."""
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def register(db: Path | str, *names: str, role: str = "player") -> dict[str, str]:
    """Accounts in the server's file (as `arbiter-server admin add` makes them): name -> token."""
    connection = open_database(db)
    try:
        return {name: accounts.create(connection, name, role) for name in names}
    finally:
        connection.close()


async def director(port: int, db: Path | str) -> ClientConnection:
    """A connection as the admin `director` (registered on first use)."""
    connection = open_database(db)
    try:
        if accounts.find(connection, "director") is None:
            token = accounts.create(connection, "director", "admin")
        else:
            token = accounts.renew(connection, "director")
    finally:
        connection.close()
    return await ClientConnection.open(HOST, port, "director", token)


async def create(
    connection: ClientConnection, name: str = "cup", **fields: Any
) -> protocol.Tournament:
    fields = {"game": GAME, "options": QUICK, "time": {"move": 2.0}, **fields}
    return await request(connection, protocol.TournamentCreate(name=name, **fields))


async def start(connection: ClientConnection, name: str = "cup") -> protocol.Tournament:
    return await request(connection, protocol.TournamentStart(tournament=name))


async def status(connection: ClientConnection, name: str = "cup") -> protocol.Tournament:
    return await request(connection, protocol.TournamentStatus(tournament=name))


async def finished(
    connection: ClientConnection, name: str = "cup", within: float = 30.0
) -> protocol.Tournament:
    """The tournament's status once it is finished. The protocol announces no ending, and the
    last game's players may leave before the tournament records its end: ask again."""
    with trio.fail_after(within):
        while (final := await status(connection, name)).status != "finished":  # noqa: ASYNC110
            await trio.sleep(0.05)
    return final


class Steady:
    """Plays the first legal move, at once."""

    def choose(self, state: State[Any], budget: float) -> Any:
        return state.legal_moves()[0]


class Crasher:
    """Crashes at its first move of every game: its connection closes, as a dead program's."""

    def choose(self, state: State[Any], budget: float) -> Any:
        raise AgentFailed("crashed on purpose")


class Sleeper:
    """Thinks past its time at its first move of every game."""

    def choose(self, state: State[Any], budget: float) -> Any:
        time.sleep(budget + 0.5)
        return state.legal_moves()[0]


class Cheater:
    """Plays an illegal move at its first move of every game: a slide that is not legal."""

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game

    def choose(self, state: State[Any], budget: float) -> Any:
        for text in ("A1A2", "H8H7", "A1B1", "H8G8"):
            move = self.game.parse_move(text)
            if state.why_illegal(move) is not None:
                return move
        raise AssertionError("no illegal slide found")


def agent_named(kind: str, game: Game[Any, Any]) -> Any:
    return {"steady": Steady, "crasher": Crasher, "sleeper": Sleeper}.get(
        kind, lambda: Cheater(game)
    )()


async def play_as(
    port: int,
    name: str,
    token: str,
    kind: str,
    tournament: str = "cup",
    on_message: MessageHook | None = None,
) -> list[GameRecord]:
    """One entrant's whole tournament, reconnecting after each crash."""
    return await play_tournament(
        HOST,
        port,
        tournament,
        name=name,
        token=token,
        make_agent=lambda game, number: agent_named(kind, game),
        reconnect=5.0,
        on_message=on_message,
    )


class Slow:
    """Another agent, a little slower: games last long enough to be interrupted."""

    def __init__(self, inner: Any, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    def choose(self, state: State[Any], budget: float) -> Any:
        time.sleep(self.delay)
        return self.inner.choose(state, budget)
