"""Opening a server's store, and the SQLite file's half of it; the group commit for both engines.

`open_database` takes a SQLite file's path or a PostgreSQL URL (`postgresql://...`,
`server.storage.postgres_database`) and answers a `server.storage.sql_connection.Connection` with
the schema at its latest version (`server.storage.schema`). For a file: our pragmas, the owner-only
mode, the check that it is ours, and a backup beside it before an older one is upgraded.
`commit_batch` commits a batch of writes (group commit) in as few statements as possible, on either
engine.

No trio here: `server.storage.commit_writer`, the process that runs the group commits, imports this
and starts fast; the storages (`server.storage.sql_store`) are the event loop's side.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import msgpack

from arbiter.server.storage.schema import (
    VERSION,
    NotArbiterFile,
    prepare,
    refuse_foreign,
    refuse_newer,
    schema,
    stored_version,
)
from arbiter.server.storage.sql_connection import (
    PSYCOPG_MISSING,
    SQLITE,
    CannotOpen,
    Connection,
    transaction,
)

Statement = tuple[str, Sequence[Any]]
"""SQL with `?` parameters, and its arguments."""
Write = Sequence[Statement]
"""One write: statements stored together or not at all (a move is one; a new match several).

A write whose first statement ends in `RETURNING_ID` is keyed: it answers with the id the
database gave the row, and its later statements name that row by passing `NEW_ID` as an
argument (a new match's results rows, its place in a tournament's schedule)."""

RETURNING_ID: Final = " RETURNING id"
NEW_ID: Final = msgpack.ExtType(1, b"")
"""Stands for the id a keyed write's first statement returned. A msgpack extension value, so it
crosses to the commit process as it is."""

Answer = list[str] | int | None
"""What committing a write gave: the refusal (`refusal`: the error's class name and message), a
keyed write's id, or None. As it crosses to the server, and as the commit log keeps it."""

SCHEMA: Final = schema(SQLITE)
"""Version 1's tables in SQLite's types: what Arbiter wrote before versions (and the start of a
new file, which the migrations then bring to the latest)."""

APPLICATION_ID = int.from_bytes(b"ARBT", "big")
"""Stamped in the file's header (`PRAGMA application_id`): the file is an Arbiter server's."""


class ReadOnlyDatabase(sqlite3.OperationalError):
    """This process may read the file but not write it (the file's or its folder's
    permissions, or a read-only disk): found at start, where it is one sentence, rather than at
    the first move of every match."""


READ_ONLY = "it is read-only for this user (check the permissions of the file and of its folder)"


PRIVATE_FILE = 0o600
"""The mode of a server's file when we create it: it holds the accounts' token hashes and every
game, so only its owner reads it. SQLite gives its -wal and -shm files the database file's own
mode, so they are owner-only too. (The folders a server makes for its file, those of
`app.local_server` and `arbiter tournament local`, are `tempfile`'s: 0700.)"""


POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")


def is_postgres(target: str | Path) -> bool:
    """Whether `--db` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def open_database(target: str | Path) -> Connection:
    """The store `target` names, with its schema at the latest version: a PostgreSQL database
    for a `postgresql://` URL, else a SQLite file (`open_sqlite`). A `sqlite3.Error` if it
    cannot be one (`sql.CannotOpen`, `NotArbiterFile`, `NewerSchema`...)."""
    if not is_postgres(target):
        return open_sqlite(target)
    try:
        from arbiter.server.storage.postgres_database import open_postgres
    except ImportError as error:
        raise CannotOpen(f"{PSYCOPG_MISSING} ({error})") from error
    return open_postgres(str(target))


def open_sqlite(path: str | Path) -> sqlite3.Connection:
    """The SQLite file with our pragmas and every table: for the server and the admin command.

    A file that is not there is created owner-only (`PRIVATE_FILE`); an existing one keeps its
    mode. A folder that is not there is an error, as it was: a mistyped `--db` is named, not
    made. A file from an earlier version is copied beside itself (`backup_path`) before it is
    upgraded.
    `NotArbiterFile` if it is some other program's SQLite file (a mistyped `--db`): it is left
    exactly as it was, not given our tables; `NewerSchema` if a later Arbiter wrote it;
    `ReadOnlyDatabase` if this process cannot write it.
    """
    try:
        create_private(Path(path))
    except OSError as error:  # reported as SQLite's own errors are: the file cannot be opened
        raise sqlite3.OperationalError(f"cannot create it: {error.strerror or error}") from error
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    try:
        # Nothing is written before this: not to another program's file, nor to a newer one.
        _claim(db, path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        prepare(db, SQLITE)
        _check_writable(db)
    except sqlite3.OperationalError as error:
        db.close()
        if str(getattr(error, "sqlite_errorname", "")).startswith("SQLITE_READONLY"):
            raise ReadOnlyDatabase(READ_ONLY) from error
        raise
    except BaseException:
        db.close()
        raise
    return db


def backup_path(path: str | Path, version: int) -> Path:
    """Where a file of schema `version` is copied before it is upgraded: beside it, named with
    its version (`arbiter.db.v1.bak`), so going back to the Arbiter that wrote it is a copy."""
    return Path(f"{path}.v{version}.bak")


def _back_up(db: sqlite3.Connection, target: Path) -> None:
    """A consistent copy of the whole file (SQLite's online backup: the WAL's committed pages
    too), owner-only as the file is. A copy left by an earlier, failed upgrade is replaced."""
    target.unlink(missing_ok=True)
    create_private(target)
    with contextlib.closing(sqlite3.connect(target)) as copy:
        db.backup(copy)


def _check_writable(db: sqlite3.Connection) -> None:
    """Raise SQLite's read-only error now if the file cannot be written. Reading a read-only
    file works, and so does `BEGIN IMMEDIATE` on it: only a statement that writes (here one
    that changes nothing, rolled back) finds out."""
    with transaction(db, "BEGIN IMMEDIATE"):
        db.execute("DELETE FROM accounts WHERE 0")


def create_private(path: Path, mode: int = PRIVATE_FILE) -> None:
    """Create the empty file `path` with `mode`; nothing if it exists. SQLite would create it
    with mode 0644 (less the umask): readable by every user of the machine."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode))


def _claim(db: sqlite3.Connection, path: str | Path) -> None:
    """Check the file is ours before writing to it, back it up if it is an older version's, and
    stamp it if need be: a new file, or one from before the stamp, holds none but our tables."""
    (found,) = db.execute("PRAGMA application_id").fetchone()
    if found != APPLICATION_ID:
        refuse_foreign(db, SQLITE)
        if found != 0:
            raise NotArbiterFile(f"not an Arbiter server's file: another program's ({found:#x})")
    version = stored_version(db, SQLITE)
    refuse_newer(db, SQLITE, version)
    if 0 < version < VERSION:
        _back_up(db, backup_path(path, version))
    if found != APPLICATION_ID:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def commit_batch(
    db: Connection, number: int, batch: Sequence[Write], *, resend: bool = False
) -> list[Answer]:
    """Commit batch `number` at once; if that fails, write one by one so only the bad one fails.

    The batch's number and its answers are logged (`commit_log`) in the transaction that
    commits its writes, so a batch is committed once however often it is sent: a process that
    died after the commit but before its answer reached the server leaves its answers in the log,
    and the server sends the batch again to the next process (`resend`), which reads them back
    (one query, only then: the first batch a new commit process gets).

    A batch is as few statements as possible: a run of INSERTs (the moves of many matches)
    becomes one statement with many VALUES rows. A keyed write is run on its own, in its place,
    so its id reaches its own statements.
    """
    answers = _logged(db, number) if resend else []
    if answers:
        return answers + _one_by_one(db, number, batch, answers)
    try:
        return _together(db, number, batch)
    except db.Error:
        return _one_by_one(db, number, batch, [])


def _together(db: Connection, number: int, batch: Sequence[Write]) -> list[Answer]:
    answers: list[Answer] = [None] * len(batch)
    with transaction(db):
        start = 0
        for index, write in enumerate(batch):
            if _is_keyed(write):  # rare: a new match
                _execute_merged(db, batch[start:index])
                answers[index] = _execute(db, write)
                start = index + 1
        _execute_merged(db, batch[start:])  # the moves: the path every batch takes under load
        _log(db, number, answers)
    return answers


def _one_by_one(
    db: Connection, number: int, batch: Sequence[Write], done: list[Answer]
) -> list[Answer]:
    """The writes after `done` (their answers), each in a transaction of its own; a refusal
    is logged too when it can be (if not, a resend only meets the same refusal again)."""
    answers = list(done)
    for write in batch[len(done) :]:
        try:
            with transaction(db):
                answer = _execute(db, write)
                _log(db, number, [*answers, answer])
        except db.Error as error:
            answers.append(refusal(error))
            with contextlib.suppress(db.Error):
                _log(db, number, answers)
        else:
            answers.append(answer)
    return answers[len(done) :]


def refusal(error: Exception) -> list[str]:
    """How a refused write is answered: its error's class name and message."""
    return [type(error).__name__, str(error)]


def _log(db: Connection, number: int, answers: list[Answer]) -> None:
    db.execute(
        "UPDATE commit_log SET batch = ?, done = ?, answers = ?",
        (number, len(answers), msgpack.packb(answers)),
    )


def _logged(db: Connection, number: int) -> list[Answer]:
    """The answers logged for batch `number` so far; none if it is not the batch logged."""
    row = db.execute("SELECT batch, answers FROM commit_log").fetchone()
    if row is None or row[0] != number:
        return []
    answers: list[Answer] = msgpack.unpackb(bytes(row[1]), raw=False)
    return answers


def last_batch(db: Connection) -> int:
    """The number of the last batch logged: a server numbers its batches after it."""
    row = db.execute("SELECT batch FROM commit_log").fetchone()
    return 0 if row is None else int(row[0])


def _is_keyed(write: Write) -> bool:
    return write[0][0].endswith(RETURNING_ID)


def _execute(db: Connection, write: Write) -> int | None:
    """Run one write's statements; a keyed one's id, put in for `NEW_ID`, and returned."""
    key: int | None = None
    for sql, args in write:
        if key is None:
            cursor = db.execute(sql, args)
            if sql.endswith(RETURNING_ID):
                ((key,),) = cursor.fetchall()
        else:
            db.execute(sql, [key if arg == NEW_ID else arg for arg in args])
    return key


def _execute_merged(db: Connection, writes: Sequence[Write]) -> None:
    for sql, args in _merged(db, writes):
        db.execute(sql, args)


def _merged(db: Connection, writes: Sequence[Write]) -> list[Statement]:
    """The writes' statements in order, each run of one INSERT merged into as few as can be."""
    return [
        merged
        for sql, run in itertools.groupby(
            (statement for write in writes for statement in write), key=lambda s: s[0]
        )
        for merged in _statements(db, sql, [args for _, args in run])
    ]


def _statements(db: Connection, sql: str, rows: list[Sequence[Any]]) -> Iterator[Statement]:
    """`sql` once per row, or for an INSERT, as few multi-row statements as the engine allows."""
    if len(rows) == 1 or not (sql.startswith("INSERT") and sql.endswith(")")):
        for args in rows:
            yield sql, args
        return
    values = sql[sql.rindex("(") :]
    per_statement = max(1, db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(rows[0]))
    for start in range(0, len(rows), per_statement):
        chunk = rows[start : start + per_statement]
        yield sql + f", {values}" * (len(chunk) - 1), [arg for row in chunk for arg in row]
