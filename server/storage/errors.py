"""What the store raises, whichever engine keeps it: `StoreError` and its kinds.

SQLite raises `sqlite3` errors and PostgreSQL `psycopg` ones; nothing above storage should have to
know which engine `--db` names to catch the right one. Every failure that leaves the storage wing
is one of these, with a sentence that says what went wrong (the engine's error chained as its
cause), so a caller catches `StoreError`, or the one kind it handles apart:

- `CannotOpen`: the store `--db` names cannot be used at all (not there, not ours, written by a
  later Arbiter, read-only, held by another server, a PostgreSQL server that does not answer);
- `NotStored`: a write was not stored (the store refused it, or the way to it broke);
- `Unreadable`: a read failed (the store went away, or broke, under a running server).

No imports but the standard library's: every module of the wing, the commit process included,
raises these.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class StoreError(Exception):
    """The store failed: the sentence says how."""


class CannotOpen(StoreError):
    """The store cannot be opened or used (a bad `--db`, or a database out of reach)."""


class NoSuchFile(CannotOpen):
    """A SQLite file that is not there, where only an existing one will do."""


class NotArbiterFile(CannotOpen):
    """The store belongs to another program (a mistyped `--db`): nothing is written to it."""


class NewerSchema(CannotOpen):
    """A later Arbiter wrote the store: this one cannot read it safely."""


class ReadOnlyDatabase(CannotOpen):
    """This process may read the store but not write it: found at start, where it is one
    sentence, rather than at the first move of every match."""


class DatabaseInUse(CannotOpen):
    """Another server holds the store (a SQLite file's lock, a PostgreSQL database's advisory
    lock): two would both resume its unfinished matches and run its tournaments. One sentence
    for either store, naming it and the lock that says so."""

    def __init__(self, store: str, lock: str) -> None:
        super().__init__(
            f"another Arbiter server is using {store} (it holds {lock});"
            " stop it, or give this one its own --db"
        )


class NotStored(StoreError):
    """A write that was not stored: the store refused it (the cause is chained), or the way to
    it broke before it was committed."""


class TournamentNameTaken(NotStored):
    """A tournament of that name is stored already."""


class SubmissionRefused(NotStored):
    """An upload or a retirement the author's submissions do not allow (identical to a kept
    version, past a limit, no such version); the sentence says which."""


class Unreadable(StoreError):
    """A read of the store failed (the sentence says why)."""


@contextmanager
def failing_as(
    kind: type[StoreError], engine_error: type[Exception], doing: str = ""
) -> Iterator[None]:
    """The block's `engine_error` (an engine's base error) raised as `kind`, its sentence
    prefixed by `doing` when given; the engine's error is the cause."""
    try:
        yield
    except engine_error as error:
        sentence = " ".join(str(error).split())  # libpq writes several lines
        raise kind(f"{doing}: {sentence}" if doing else sentence) from error
