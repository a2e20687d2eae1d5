"""The one connection interface every shared query runs on, whichever engine stores the games.

Accounts, records, tournaments, the group commit and the schema's versions are written once, as
SQL with `?` parameters, against `Connection`: the part of `sqlite3.Connection`'s interface they
use. A `sqlite3.Connection` is one as it is; `server.storage.postgres_database.PostgresConnection`
is one over psycopg. What differs between the engines and cannot be written once (a column type, how
to list tables, how to take the schema's lock) is a `Dialect`.

No trio and no psycopg here: the commit process and the reading commands import this.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

Row = TypeVar("Row")


class Cursor(Protocol):
    """What a query answers: rows to iterate or fetch, and how many rows a write changed."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...

    @property
    def rowcount(self) -> int: ...

    @property
    def description(self) -> Any: ...


class Connection(Protocol):
    """A connection in autocommit mode (each statement its own transaction unless a `BEGIN`
    opened one), with `?` parameters."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Sequence[Sequence[Any]], /) -> Cursor: ...

    def getlimit(self, category: int, /) -> int:
        """How many `?` one statement may bind, for `sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER`."""
        ...

    def close(self) -> None: ...

    @property
    def Error(self) -> type[Exception]:
        """The engine's base error: what a refused statement raises (DB-API's name for it)."""
        ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """What the engines spell differently."""

    name: str
    """How the engine is named in a sentence: 'SQLite', 'PostgreSQL'."""
    types: dict[str, str]
    """The schema's column types by role (`server.storage.schema.SCHEMA`): `key` (a row id the
    database gives), `real` (a double), `bytes`."""
    tables: str
    """A query for the names of the tables in the database (ours and any other program's)."""
    begin_exclusive: tuple[str, ...]
    """Statements that open a transaction no other connection can change the schema in."""
    store: str
    """What a database is called in a refusal: 'file', 'database'."""


SQLITE = Dialect(
    name="SQLite",
    types={"key": "INTEGER PRIMARY KEY", "real": "REAL", "bytes": "BLOB"},
    tables="SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'",
    begin_exclusive=("BEGIN IMMEDIATE",),
    store="file",
)


def rows_as(row: Callable[..., Row], cursor: Cursor) -> list[Row]:
    """The cursor's rows, each built as `row(**columns)`: by the names the query gives its
    columns (`AS` names that match `row`'s fields), never by position. Each query says once, in
    its dataclass, what its rows are, and reads the same on either engine (the column names are
    DB-API's, in `description`)."""
    names = [described[0] for described in cursor.description]
    return [row(**dict(zip(names, values, strict=True))) for values in cursor.fetchall()]


def has_column(db: Connection, table: str, column: str) -> bool:
    """Whether `table` has `column`, asked the same way of every engine: the names of the
    columns a query answers with."""
    cursor = db.execute(f"SELECT * FROM {table} LIMIT 0")
    return any(described[0] == column for described in cursor.description)


@contextlib.contextmanager
def transaction(db: Connection, *begin: str) -> Iterator[None]:
    """The block's statements stored together or not at all; `begin` opens the transaction
    (default `BEGIN`), with any statements that must follow it (a lock)."""
    for statement in begin or ("BEGIN",):
        db.execute(statement)
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def write_transaction(db: Connection) -> contextlib.AbstractContextManager[None]:
    """A `transaction` that reads, then writes, beside the commit process. On SQLite it takes
    the write lock as it begins (`BEGIN IMMEDIATE`, waiting its turn): a deferred one that read
    first cannot take it once another connection has committed since, and fails at once as
    locked. PostgreSQL's `BEGIN` waits for the rows it writes."""
    return transaction(db, "BEGIN IMMEDIATE" if isinstance(db, sqlite3.Connection) else "BEGIN")
