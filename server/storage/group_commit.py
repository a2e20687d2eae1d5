"""The group commit's batches, on either engine: `commit_batch` commits many matches' writes at
once, in as few statements as it can, and logs each batch so that a batch sent twice (its commit
process died before it answered) is committed once.

No trio here: `server.storage.commit_writer`, the process that runs the group commits, imports
this and starts fast; the storage that queues the writes is `server.storage.sql_store`.
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, Final

import msgpack

from arbiter.server.storage.sql_connection import Connection, transaction

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
    if row is None:
        return []
    batch, logged = row
    if batch != number:
        return []
    answers: list[Answer] = msgpack.unpackb(bytes(logged), raw=False)
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
