"""Which storage a server's `--db` names: `connect_storage(target)`.

A `postgresql://` URL is a PostgreSQL database (`server.storage.postgres_store`, which needs the
`postgres` extra: psycopg); anything else is a SQLite file's path, the default.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from arbiter.server.storage.sql_connection import PSYCOPG_MISSING, CannotOpen
from arbiter.server.storage.sql_store import SQLStorage
from arbiter.server.storage.sqlite_database import is_postgres
from arbiter.server.storage.sqlite_store import SQLiteStorage

DB_VARIABLE: Final = "ARBITER_DB"
"""The environment variable that gives `--db` its default: a file, or a PostgreSQL URL (which
then stays out of the command line that `ps` shows everyone)."""

DB_HELP: Final = (
    "the records: a SQLite file, or a PostgreSQL database as postgresql://USER@HOST:PORT/NAME"
    f" (default: ${DB_VARIABLE}, else arbiter.db)"
)


def default_db() -> str:
    """`--db`'s default: `ARBITER_DB`, else `arbiter.db` in the current folder."""
    return os.environ.get(DB_VARIABLE) or "arbiter.db"


def connect_storage(target: str | Path) -> SQLStorage:
    """The storage `target` names, this server's (see each storage's `connect`)."""
    if not is_postgres(target):
        return SQLiteStorage.connect(target)
    try:
        from arbiter.server.storage.postgres_store import PostgresStorage
    except ImportError as error:
        raise CannotOpen(f"{PSYCOPG_MISSING} ({error})") from error
    return PostgresStorage.connect(str(target))
