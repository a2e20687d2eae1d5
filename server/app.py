"""The server's public face: the one module of `server` that other rooms (the `arbiter` client,
the tests, the benchmarks) may import.

`serve` runs storage, lobby and the TCP listener under one nursery; it reports the bound
addresses through `task_status`, so `await nursery.start(serve, ...)` returns the real port even
for port 0. `local_server` is the same server on a free port of 127.0.0.1 for the length of an
`async with` block: what `arbiter referee`, `play`, `check` and `tournament local` referee on.

A client never opens the server's SQLite file itself: the few things it reads or writes there go
through the functions below (records for `export` and `replay`, an admin's token for a local
tournament's director), so the file's layout stays the server's business.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import TypeAlias

import trio

from arbiter.server import accounts
from arbiter.server.database import open_database
from arbiter.server.limits import Limits
from arbiter.server.lobby import Lobby
from arbiter.server.local_agents import AgentProgram, LocalAgents, LocalAgentsError
from arbiter.server.records import FullRecord, MoveRow, read_records
from arbiter.server.records import open_read_only as open_records
from arbiter.server.session import Session
from arbiter.server.sqlite_storage import DatabaseInUse, SQLiteStorage
from arbiter.server.standings import DEFAULT_KINDS

__all__ = [
    "DEFAULT_KINDS",
    "LOCAL_HOST",
    "AgentProgram",
    "DatabaseInUse",
    "FullRecord",
    "Limits",
    "LocalAgents",
    "LocalAgentsError",
    "MoveRow",
    "RecordsFile",
    "StorageError",
    "admin_token",
    "bound_port",
    "local_server",
    "open_records",
    "prepare_database",
    "read_records",
    "serve",
]

LOCAL_HOST = "127.0.0.1"

StorageError = sqlite3.Error
"""What a server's file that cannot be opened or read raises (not there, not SQLite, not ours)."""
RecordsFile: TypeAlias = sqlite3.Connection
"""A server's file opened read-only by `open_records`, for `read_records`; close it after."""


async def serve(
    host: str,
    port: int,
    db_path: str | Path,
    *,
    grace: float = 10.0,
    local_agents: LocalAgents | None = None,
    limits: Limits | None = None,
    task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled. Matches still in play at shutdown stay unfinished in the store.

    `local_agents` runs the built-in agents a tournament enters with `local`; by default, those
    of the `arbiter` program installed beside this interpreter (`AgentProgram.arbiter()`).
    `limits` bounds what clients can make the server hold (`server.limits`; defaults if None).
    """
    storage = SQLiteStorage.connect(db_path)
    try:
        listeners = await trio.open_tcp_listeners(port, host=host)
        async with trio.open_nursery() as nursery:
            await nursery.start(storage.run_writer)
            lobby = Lobby(storage, nursery, grace, limits or Limits())
            lobby.desk.local_agents = local_agents or AgentProgram.arbiter()
            lobby.desk.learn_address(listeners[0].socket.getsockname()[:2])
            await nursery.start(trio.serve_listeners, partial(_serve_connection, lobby), listeners)
            task_status.started(listeners)
    finally:
        storage.close()


async def _serve_connection(lobby: Lobby, stream: trio.SocketStream) -> None:
    await Session(stream, lobby, lobby.limits, lobby.output).run()


def bound_port(listeners: list[trio.SocketListener]) -> int:
    port: int = listeners[0].socket.getsockname()[1]
    return port


@asynccontextmanager
async def local_server(
    db_path: str | Path | None = None,
    *,
    grace: float = 0.0,
    local_agents: LocalAgents | None = None,
) -> AsyncIterator[tuple[str, int]]:
    """A server on a free port of 127.0.0.1 while the block runs; yields its (host, port).

    Without `db_path` the records go to a temporary file, removed with its folder on the way
    out. `grace` defaults to none: in one process there is no network to come back over.
    """
    with tempfile.TemporaryDirectory(prefix="arbiter-local-") as scratch:
        db = Path(scratch) / "arbiter.db" if db_path is None else db_path
        async with trio.open_nursery() as nursery:
            start = partial(serve, LOCAL_HOST, 0, db, grace=grace, local_agents=local_agents)
            listeners = await nursery.start(start)
            try:
                yield LOCAL_HOST, bound_port(listeners)
            finally:
                nursery.cancel_scope.cancel()


def prepare_database(db_path: str | Path) -> None:
    """Make (or check) a server's file before a server runs on it; `StorageError` if it cannot
    be one."""
    open_database(db_path).close()


def admin_token(db_path: str | Path, name: str) -> str:
    """A fresh token for the admin `name` in a server's file, registering it on first use (what
    `arbiter-server admin add NAME --role admin` or `admin token NAME` print)."""
    db = open_database(db_path)
    try:
        if accounts.find(db, name) is None:
            return accounts.create(db, name, "admin")
        return accounts.renew(db, name)
    finally:
        db.close()
