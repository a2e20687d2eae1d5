"""Which engine `--db` names, decided here alone: a `postgresql://` URL is a PostgreSQL database
(which needs the `postgres` extra: psycopg), anything else a SQLite file's path, the default.

Everything that opens a store by its `--db` asks here: the commands and the commit process
(`open_database`, `open_read_only`), and the server's storage (`server.storage.connect`, by
`engine_of`). What follows from the engine after that is the opened object's business (a
`Dialect`, a storage subclass), so nothing else tells the engines apart.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from arbiter.server.storage.errors import CannotOpen, NoSuchFile, Unreadable, failing_as
from arbiter.server.storage.sql_connection import Connection, Cursor
from arbiter.server.storage.sqlite_database import open_sqlite, open_sqlite_read_only

DB_VARIABLE: Final = "ARBITER_DB"
"""The environment variable that gives `--db` its default: a file, or a PostgreSQL URL (which
then stays out of the command line that `ps` shows everyone)."""

DB_HELP: Final = (
    "the records: a SQLite file, or a PostgreSQL database as postgresql://USER@HOST:PORT/NAME"
    f" (default: ${DB_VARIABLE}, else arbiter.db)"
)

POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")

PSYCOPG_MISSING: Final = "PostgreSQL needs psycopg: pip install 'arbiter[postgres]'"
"""Why a `postgresql://` store cannot be opened where the `postgres` extra is not installed."""


def default_db() -> str:
    """`--db`'s default: `ARBITER_DB`, else `arbiter.db` in the current folder."""
    return os.environ.get(DB_VARIABLE) or "arbiter.db"


class Engine(enum.Enum):
    """The engines a store can be kept by."""

    SQLITE = "SQLite"
    POSTGRESQL = "PostgreSQL"


def engine_of(target: str | Path) -> Engine:
    """The engine that keeps the store `target` names."""
    postgres = isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)
    return Engine.POSTGRESQL if postgres else Engine.SQLITE


def open_database(target: str | Path, *, create: bool = True) -> Connection:
    """The store `target` names, its schema made the latest, for the commands that write it
    and for the commit process. Unless `create`, a SQLite file that is not there is
    `NoSuchFile` rather than made: a mistyped `--db` (a PostgreSQL database is never made: a
    wrong one is refused when connecting). `CannotOpen` (or another of its kinds) if it cannot
    be used."""
    if engine_of(target) is Engine.SQLITE:
        if not create and not Path(target).exists():
            raise NoSuchFile("there is no such file")
        return open_sqlite(target)
    with psycopg_needed():
        from arbiter.server.storage.postgres_database import open_postgres
    return open_postgres(str(target))


def open_read_only(target: str | Path) -> Connection:
    """The store `target` names, for reading only (safe beside a running server), its schema as
    found. Any error of its engine while reading it is `Unreadable`; `CannotOpen` if it cannot be
    opened."""
    if engine_of(target) is Engine.POSTGRESQL:
        with psycopg_needed():
            from arbiter.server.storage.postgres_database import open_postgres
        return ReadingConnection(open_postgres(str(target), read_only=True))
    return ReadingConnection(open_sqlite_read_only(target))


@contextmanager
def psycopg_needed() -> Iterator[None]:
    """The block's imports of the PostgreSQL modules; `CannotOpen` saying so if psycopg is not
    installed."""
    try:
        yield
    except ImportError as error:
        raise CannotOpen(f"{PSYCOPG_MISSING} ({error})") from error


class ReadingConnection:
    """A read-only connection whose engine's errors come out as `Unreadable`, whether a query
    fails or the rows it answers do: what a reader of either engine catches is one type."""

    Error = Unreadable

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._engine_error = connection.Error

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        with failing_as(Unreadable, self._engine_error):
            return ReadingCursor(self._connection.execute(sql, parameters), self._engine_error)

    def executemany(self, sql: str, parameters: Sequence[Sequence[Any]], /) -> Cursor:
        raise Unreadable("a read-only connection runs no writes")

    def getlimit(self, category: int, /) -> int:
        return self._connection.getlimit(category)

    def close(self) -> None:
        with failing_as(Unreadable, self._engine_error):
            self._connection.close()


class ReadingCursor:
    """A cursor of a `ReadingConnection`: its engine's errors as `Unreadable`."""

    def __init__(self, cursor: Cursor, engine_error: type[Exception]) -> None:
        self._cursor = cursor
        self._engine_error = engine_error

    def fetchone(self) -> Any:
        with failing_as(Unreadable, self._engine_error):
            return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        with failing_as(Unreadable, self._engine_error):
            return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def description(self) -> Any:
        return self._cursor.description
