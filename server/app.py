"""The server: storage, lobby and the TCP listener, run under one nursery.

`serve` is what the command line and the tests call. It reports the bound addresses through
`task_status`, so `await nursery.start(serve, ...)` returns the real port even for port 0.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import trio

from arbiter.server.lobby import Lobby
from arbiter.server.session import Session
from arbiter.server.sqlite_storage import SQLiteStorage


async def serve(
    host: str,
    port: int,
    db_path: str | Path,
    *,
    grace: float = 10.0,
    task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled. Matches still in play at shutdown stay unfinished in the store."""
    storage = SQLiteStorage.connect(db_path)
    try:
        listeners = await trio.open_tcp_listeners(port, host=host)
        async with trio.open_nursery() as nursery:
            await nursery.start(storage.run_writer)
            lobby = Lobby(storage, nursery, grace)
            lobby.desk.learn_address(listeners[0].socket.getsockname()[:2])
            await nursery.start(trio.serve_listeners, partial(_serve_connection, lobby), listeners)
            task_status.started(listeners)
    finally:
        storage.close()


async def _serve_connection(lobby: Lobby, stream: trio.SocketStream) -> None:
    await Session(stream, lobby).run()


def bound_port(listeners: list[trio.SocketListener]) -> int:
    port: int = listeners[0].socket.getsockname()[1]
    return port
