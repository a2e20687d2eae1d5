"""`Storage` on a PostgreSQL database: `PostgresStorage.connect(url)`.

The queries, the group commit and its process are `server.storage.sql_store`'s, as for SQLite:
psycopg is blocking, so queries run on worker threads and the per-move path's commits in the commit
process, never on the event loop (psycopg's asynchronous connections run on asyncio, not trio).
The commit process is kept rather than a thread because a thread shares the interpreter lock
with the event loop, and turning a batch of moves into one statement's parameters is Python
work either way.

One server per database, as per SQLite file: two would both resume its unfinished matches and
run its tournaments. `connect` takes a session-level advisory lock (`SERVER_LOCK`) on the
storage's connection and refuses a database another server holds (`DatabaseInUse`); PostgreSQL
releases it when that connection ends, however the server ends (a SIGKILL too). Only servers
take it: the admin command, `export` and `pg_dump` work beside a running server.

Durability is PostgreSQL's: a committed transaction survives a killed server process, and with
the default `synchronous_commit` a power cut too.
"""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar, Final

import psycopg

from arbiter.server.storage.errors import CannotOpen, DatabaseInUse, failing_as
from arbiter.server.storage.postgres_database import POSTGRES, PostgresConnection, open_postgres
from arbiter.server.storage.sql_store import SQLStorage, abort_casual_matches

SERVER_LOCK: Final = int.from_bytes(b"ARBTSRVR", "big")
"""The advisory lock a server holds on its database for as long as it runs. (Advisory locks are
per database: servers on other databases of the same PostgreSQL server do not meet.)"""
CLAIM_SECONDS: Final = 5
"""How long a server waits for the lock: a server killed a moment ago holds it until
PostgreSQL sees its connection close."""


class PostgresStorage(SQLStorage):
    """`storage.Storage` on one PostgreSQL database."""

    DIALECT = POSTGRES
    ERRORS: ClassVar[ModuleType] = psycopg.errors

    @classmethod
    def connect(cls, url: str) -> PostgresStorage:
        """Connect, make the schema the latest, take the database for this server alone, and
        end the casual matches a killed server left in play. `CannotOpen` if the database
        cannot be reached, `DatabaseInUse` if another server has it."""
        db = open_postgres(url)
        try:
            with failing_as(CannotOpen, psycopg.Error):
                _claim(db)
                abort_casual_matches(db)
        except BaseException:
            db.close()
            raise
        return cls(db, url)


def _claim(db: PostgresConnection) -> None:
    """Take `SERVER_LOCK` for this connection's life; `DatabaseInUse` if another server still
    has it after `CLAIM_SECONDS`."""
    db.execute(f"SET lock_timeout = '{CLAIM_SECONDS}s'")
    try:
        db.execute("SELECT pg_advisory_lock(?)", (SERVER_LOCK,))
    except psycopg.errors.LockNotAvailable:
        ((name,),) = db.execute("SELECT current_database()").fetchall()
        raise DatabaseInUse(
            f"the PostgreSQL database {name!r}", "the database's server lock"
        ) from None
    db.execute("RESET lock_timeout")
