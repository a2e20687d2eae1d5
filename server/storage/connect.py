"""The storage a server runs on: `connect_storage(target)`, the `Storage` for its `--db`, chosen by
the engine `server.storage.engine` says keeps it.

Apart from `engine`, as the storages run on trio and the commit process, which opens its database
through `engine`, starts without it.
"""

from __future__ import annotations

from pathlib import Path

from arbiter.server.storage.engine import Engine, engine_of, psycopg_needed
from arbiter.server.storage.sql_store import SQLStorage
from arbiter.server.storage.sqlite_store import SQLiteStorage


def connect_storage(target: str | Path) -> SQLStorage:
    """The storage `target` names, for this server alone (see each storage's `connect`):
    `CannotOpen` (or one of its kinds) if it cannot be this server's."""
    if engine_of(target) is Engine.SQLITE:
        return SQLiteStorage.connect(target)
    with psycopg_needed():  # the `postgres` extra: only a PostgreSQL store needs it
        from arbiter.server.storage.postgres_store import PostgresStorage
    return PostgresStorage.connect(str(target))
