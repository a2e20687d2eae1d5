"""`Storage` on a PostgreSQL database: `PostgresStorage.connect(url)`.

The queries, the group commit and its process are `server.sql_storage`'s, as for SQLite: psycopg
is blocking, so queries run on worker threads and the per-move path's commits in the commit
process, never on the event loop (psycopg's asynchronous connections run on asyncio, not trio).
The commit process is kept rather than a thread because a thread shares the interpreter lock
with the event loop, and turning a batch of moves into one statement's parameters is Python
work either way.

No lock: PostgreSQL serves many connections (the admin command, `export`, a backup beside a
running server). Two Arbiter servers must still not share one database, as both would resume
its unfinished matches; that is the deployment's to arrange (docs/deploy.md).

Durability is PostgreSQL's: a committed transaction survives a killed server process, and with
the default `synchronous_commit` a power cut too.
"""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar

import psycopg

from arbiter.server.postgres_database import POSTGRES, open_postgres
from arbiter.server.sql_storage import SQLStorage, abort_casual_matches


class PostgresStorage(SQLStorage):
    """`storage.Storage` on one PostgreSQL database."""

    DIALECT = POSTGRES
    ERRORS: ClassVar[ModuleType] = psycopg.errors

    @classmethod
    def connect(cls, url: str) -> PostgresStorage:
        """Connect, make the schema the latest, and end the casual matches a killed server
        left in play. `sql.CannotOpen` if the database cannot be reached."""
        db = open_postgres(url)
        try:
            abort_casual_matches(db)
        except BaseException:
            db.close()
            raise
        return cls(db, url)
