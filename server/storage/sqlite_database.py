"""A SQLite file as a server's store: `open_sqlite(path)` for the server and the admin command,
`open_sqlite_read_only(path)` for reading beside a running server.

Opening a file for writing sets our pragmas, keeps a new file owner-only, checks that the file is
ours before writing a byte to it, and copies an older one beside itself before upgrading its
schema (`server.storage.schema`). Whatever SQLite raises while opening comes out as
`server.storage.errors.CannotOpen` (or one of its kinds), in a sentence.

No trio here: the commit process (`server.storage.commit_writer`) opens its file through this.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Final

from arbiter.server.storage.errors import CannotOpen, NotArbiterFile, ReadOnlyDatabase, failing_as
from arbiter.server.storage.schema import (
    VERSION,
    prepare,
    refuse_foreign,
    refuse_newer,
    schema,
    stored_version,
)
from arbiter.server.storage.sql_connection import SQLITE, transaction

SCHEMA: Final = schema(SQLITE)
"""Version 1's tables in SQLite's types: an unstamped Arbiter file holds these (and a new file
starts with them, which the migrations then bring to the latest)."""

APPLICATION_ID = int.from_bytes(b"ARBT", "big")
"""Stamped in the file's header (`PRAGMA application_id`): the file is an Arbiter server's."""


READ_ONLY = "it is read-only for this user (check the permissions of the file and of its folder)"


PRIVATE_FILE = 0o600
"""The mode of a server's file when we create it: it holds the accounts' token hashes and every
game, so only its owner reads it. SQLite gives its -wal and -shm files the database file's own
mode, so they are owner-only too. (The folders a server makes for its file, those of
`app.local_server` and `arbiter tournament local`, are `tempfile`'s: 0700.)"""


def open_sqlite(path: str | Path) -> sqlite3.Connection:
    """The SQLite file with our pragmas and every table: for the server and the admin command.

    A file that is not there is created owner-only (`PRIVATE_FILE`); an existing one keeps its
    mode. A folder that is not there is an error: a mistyped `--db` is named, not made. A file
    from an earlier version is copied beside itself (`backup_path`) before it is upgraded.
    `NotArbiterFile` if it is some other program's SQLite file (a mistyped `--db`): it is left
    exactly as it was, not given our tables; `NewerSchema` if a later Arbiter wrote it;
    `ReadOnlyDatabase` if this process cannot write it; `CannotOpen` for anything else.
    """
    try:
        create_private(Path(path))
    except OSError as error:
        raise CannotOpen(f"cannot create it: {error.strerror or error}") from error
    with failing_as(CannotOpen, sqlite3.Error):
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    try:
        with failing_as(CannotOpen, sqlite3.Error):
            try:
                # Nothing is written before this: not to another program's file, nor a newer one.
                _claim(db, path)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA foreign_keys=ON")
                prepare(db, SQLITE)
                _check_writable(db)
            except sqlite3.OperationalError as error:
                if str(getattr(error, "sqlite_errorname", "")).startswith("SQLITE_READONLY"):
                    raise ReadOnlyDatabase(READ_ONLY) from error
                raise
    except BaseException:
        db.close()
        raise
    return db


def open_sqlite_read_only(path: str | Path) -> sqlite3.Connection:
    """The file opened for reading only, safe beside a running server (which keeps writing it),
    its schema as found: an older file is read as it is. `CannotOpen` if there is no such file,
    or it is not an Arbiter file this version can read."""
    if not Path(path).is_file():
        raise CannotOpen(f"no database file {str(path)!r}")
    with failing_as(CannotOpen, sqlite3.Error):
        db = sqlite3.connect(
            f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
        )
    try:
        with failing_as(CannotOpen, sqlite3.Error):
            refuse_newer(db, SQLITE)
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
