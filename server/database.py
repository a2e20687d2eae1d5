"""The SQLite file's schema and the plain-SQLite half of storage: opening the file with our
pragmas, and committing a batch of writes (group commit) as few statements as possible.

No trio here: `server.commit_writer`, the process that runs the group commits, imports this
and starts fast; `server.sqlite_storage` is the event loop's side.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import msgpack

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

Answer = sqlite3.Error | int | None
"""What committing a write gave: the refusal, a keyed write's id, or None."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: the resolved options, seeds included
    time_control TEXT NOT NULL,     -- JSON, as on the wire
    illegal TEXT NOT NULL,          -- per seat: 'forfeit,forfeit', 'retry,forfeit'...
    status TEXT NOT NULL,           -- 'playing', 'finished' or 'aborted' (a casual match
                                    -- in play when its server stopped: no result)
    started_at REAL NOT NULL,
    ended_at REAL,
    result TEXT,                    -- 'win', 'draw', 'both_forfeit'
    winner TEXT,                    -- seat name, for 'win'
    reason TEXT,
    termination TEXT                -- games.Termination: 'rule', 'time', 'resignation'...
                                    -- (NULL while in play, and in games stored before it was)
);
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    seat TEXT NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    score REAL,                     -- filled when the match ends
    PRIMARY KEY (match_id, seat_index)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,           -- 1 for the first move
    seat TEXT NOT NULL,
    move TEXT NOT NULL,
    elapsed REAL NOT NULL,          -- seconds from your_turn written to move received
    compensation REAL NOT NULL,     -- lag allowance granted (taken off elapsed)
    clock REAL,                     -- the mover's game clock after the move, if it has one
    stored_at REAL NOT NULL,
    PRIMARY KEY (match_id, ply)
);
CREATE TABLE IF NOT EXISTS defaults (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- 'crash', 'illegal', 'time' or 'absent'
    PRIMARY KEY (match_id, seat_index)
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,          -- the name a hello must carry with its token
    role TEXT NOT NULL,             -- 'player', 'admin' or 'local' (a built-in agent we run)
    salt BLOB NOT NULL,
    token_hash BLOB NOT NULL,       -- scrypt(token, salt); the token itself is never stored
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON, as the director gave them (seeds drawn per game)
    time_control TEXT NOT NULL,     -- JSON, as on the wire
    rounds INTEGER NOT NULL,
    concurrency INTEGER NOT NULL,
    wait REAL NOT NULL,             -- seconds a due game waits for an absent player
    entrants TEXT NOT NULL,         -- JSON list of names, in seeding order
    local TEXT NOT NULL,            -- JSON map: entrant name -> the built-in agent it runs
    status TEXT NOT NULL,           -- 'created', 'running' or 'finished'
    created_by TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    number INTEGER NOT NULL,        -- 1, 2, ... in schedule order
    round INTEGER NOT NULL,
    first TEXT NOT NULL,            -- the entrant in seat 0
    second TEXT NOT NULL,
    match_id INTEGER UNIQUE REFERENCES matches(id),  -- set when the game begins
    PRIMARY KEY (tournament_id, number)
);
"""


OUR_TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))

APPLICATION_ID = int.from_bytes(b"ARBT", "big")
"""Stamped in the file's header (`PRAGMA application_id`): the file is an Arbiter server's."""


class NotArbiterFile(sqlite3.DatabaseError):
    """The file belongs to another program: we write nothing to it."""


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


def open_database(path: str | Path) -> sqlite3.Connection:
    """The SQLite file with our pragmas and every table: for the server and the admin command.

    A file that is not there is created owner-only (`PRIVATE_FILE`); an existing one keeps its
    mode. A folder that is not there is an error, as it was: a mistyped `--db` is named, not
    made.
    `NotArbiterFile` if it is some other program's SQLite file (a mistyped `--db`): it is left
    exactly as it was, not given our tables. `ReadOnlyDatabase` if this process cannot write it.
    """
    try:
        create_private(Path(path))
    except OSError as error:  # reported as SQLite's own errors are: the file cannot be opened
        raise sqlite3.OperationalError(f"cannot create it: {error.strerror or error}") from error
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    try:
        _claim(db)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
        _upgrade(db)
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


def _claim(db: sqlite3.Connection) -> None:
    """Check the file is ours before writing to it, and stamp it if need be: a new file, or one
    from before the stamp, holds none but our tables."""
    (found,) = db.execute("PRAGMA application_id").fetchone()
    if found == APPLICATION_ID:
        return
    tables = {
        name
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith("sqlite_")  # SQLite's own
    }
    others = sorted(tables - OUR_TABLES)
    if others:
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise NotArbiterFile(f"not an Arbiter server's file: it holds other tables ({shown})")
    if found != 0:
        raise NotArbiterFile(f"not an Arbiter server's file: another program's ({found:#x})")
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


ADDED_COLUMNS: Final = {"matches": {"termination": "TEXT"}}
"""Columns added to a table since it was first released, with their type: an older file lacks
them, and `_upgrade` adds them (as NULL in the rows it holds)."""


def _upgrade(db: sqlite3.Connection) -> None:
    """Give a file of ours from an earlier version the columns added since. Only after `_claim`
    has found the file ours; in a write transaction that looks again, so two processes opening
    the same old file (the server and the admin command) cannot both add a column."""
    if not _missing_columns(db):
        return
    with transaction(db, "BEGIN IMMEDIATE"):
        for table, column in _missing_columns(db):
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {ADDED_COLUMNS[table][column]}")


def _missing_columns(db: sqlite3.Connection) -> list[tuple[str, str]]:
    return [
        (table, column)
        for table, columns in ADDED_COLUMNS.items()
        for column in columns
        if not has_column(db, table, column)
    ]


def has_column(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in db.execute(f"PRAGMA table_info({table})"))


@contextlib.contextmanager
def transaction(db: sqlite3.Connection, begin: str = "BEGIN") -> Iterator[None]:
    db.execute(begin)
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def commit_batch(db: sqlite3.Connection, batch: Sequence[Write]) -> list[Answer]:
    """Commit the batch at once; if that fails, write one by one so only the bad one fails.

    A batch is as few statements as possible: a run of INSERTs (the moves of many matches)
    becomes one statement with many VALUES rows, and a batch that is one statement needs no
    BEGIN and COMMIT (it is atomic). A keyed write is run on its own, in its place, so its id
    reaches its own statements.
    """
    answers: list[Answer] = [None] * len(batch)
    try:
        if any(_is_keyed(write) for write in batch):  # rare: a new match
            with transaction(db):
                start = 0
                for index, write in enumerate(batch):
                    if _is_keyed(write):
                        _execute_merged(db, batch[start:index])
                        answers[index] = _execute(db, write)
                        start = index + 1
                _execute_merged(db, batch[start:])
        else:  # the moves: the path every batch takes under load
            statements = _merged(db, batch)
            if len(statements) == 1:
                db.execute(*statements[0])
            else:
                with transaction(db):
                    for sql, args in statements:
                        db.execute(sql, args)
    except sqlite3.Error:
        for index, write in enumerate(batch):
            try:
                with transaction(db):
                    answers[index] = _execute(db, write)
            except sqlite3.Error as error:
                answers[index] = error
    return answers


def _is_keyed(write: Write) -> bool:
    return write[0][0].endswith(RETURNING_ID)


def _execute(db: sqlite3.Connection, write: Write) -> int | None:
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


def _execute_merged(db: sqlite3.Connection, writes: Sequence[Write]) -> None:
    for sql, args in _merged(db, writes):
        db.execute(sql, args)


def _merged(db: sqlite3.Connection, writes: Sequence[Write]) -> list[Statement]:
    """The writes' statements in order, each run of one INSERT merged into as few as can be."""
    return [
        merged
        for sql, run in itertools.groupby(
            (statement for write in writes for statement in write), key=lambda s: s[0]
        )
        for merged in _statements(db, sql, [args for _, args in run])
    ]


def _statements(db: sqlite3.Connection, sql: str, rows: list[Sequence[Any]]) -> Iterator[Statement]:
    """`sql` once per row, or for an INSERT, as few multi-row statements as SQLite allows."""
    if len(rows) == 1 or not (sql.startswith("INSERT") and sql.endswith(")")):
        for args in rows:
            yield sql, args
        return
    values = sql[sql.rindex("(") :]
    per_statement = max(1, db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(rows[0]))
    for start in range(0, len(rows), per_statement):
        chunk = rows[start : start + per_statement]
        yield sql + f", {values}" * (len(chunk) - 1), [arg for row in chunk for arg in row]
