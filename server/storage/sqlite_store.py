"""`Storage` on one SQLite file: `SQLiteStorage.connect(path)`.

The queries and the group commit are `server.storage.sql_store`'s; what is SQLite's alone is the
file. One server per file: `connect` takes a lock (`DB.lock`, beside the file) and refuses a
file another server holds, as two would both resume its unfinished matches and run its
tournaments.

Durability: WAL with `synchronous=NORMAL` survives a killed server process (the goal: a SIGKILL
loses no accepted move); only a power cut can lose the last transactions.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from pathlib import Path
from types import ModuleType
from typing import ClassVar

from arbiter.server.storage.errors import (
    CannotOpen,
    DatabaseInUse,
    ReadOnlyDatabase,
    failing_as,
)
from arbiter.server.storage.sql_connection import SQLITE
from arbiter.server.storage.sql_store import SQLStorage, abort_casual_matches
from arbiter.server.storage.sqlite_database import PRIVATE_FILE, open_sqlite


def _open_lock(lock_path: str) -> int:
    """The lock file beside the database, made if need be; `ReadOnlyDatabase` if it cannot be
    (a read-only folder that still holds the database's -wal and -shm files)."""
    try:
        return os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
    except OSError as error:
        raise ReadOnlyDatabase(
            f"cannot make its lock file {lock_path!r}: {error.strerror or error}"
        ) from error


class SQLiteStorage(SQLStorage):
    """`storage.Storage` on one SQLite file, this server's alone."""

    DIALECT = SQLITE
    ERRORS: ClassVar[ModuleType] = sqlite3

    def __init__(self, connection: sqlite3.Connection, path: Path, lock: int) -> None:
        super().__init__(connection, str(path))
        self._file_lock = lock

    @classmethod
    def connect(cls, path: str | Path) -> SQLiteStorage:
        """Open the file for this server alone: `DatabaseInUse` if another server has it."""
        db = open_sqlite(path)  # first, so a bad path is reported as SQLite sees it
        with contextlib.ExitStack() as on_failure:
            on_failure.callback(db.close)
            lock_path = f"{path}.lock"
            lock = _open_lock(lock_path)
            on_failure.callback(os.close, lock)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise DatabaseInUse(repr(str(path)), repr(lock_path)) from None
            with failing_as(CannotOpen, sqlite3.Error):
                abort_casual_matches(db)
            storage = cls(db, Path(path), lock)
            on_failure.pop_all()
        return storage

    def close(self) -> None:
        super().close()
        os.close(self._file_lock)  # releases it
