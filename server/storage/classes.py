"""A class as stored: its students (each a player account, with the school's id and a section)
and its submission deadline.

A roster is enrolled in one transaction: every account and every student row, or none. The
tokens are hashed before it opens (`accounts.new_secret`), and the roster is checked again inside
it, against what the store holds then: an account registered between the first check and the
transaction refuses the roster as it would have before. The caller's `keep_tokens` runs inside
the transaction too, so tokens that could not be kept for the instructor leave no accounts behind.

After a class's deadline, its students upload no new version (`refuse_after_deadline`, run in
the transaction that would store one); the versions uploaded before stay as they are. A player
in no class has no deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from arbiter.server.storage import accounts
from arbiter.server.storage.accounts import AccountError, Secret
from arbiter.server.storage.errors import SubmissionRefused
from arbiter.server.storage.roster import Student, read_roster
from arbiter.server.storage.sql_connection import Connection, rows_as, write_transaction


@dataclass(frozen=True, slots=True)
class Enrolled:
    """A student of a class, as listed."""

    account: str
    class_name: str
    student_id: str
    section: str


@dataclass(frozen=True, slots=True)
class Issued:
    """A student just enrolled and the token of their new account: for the instructor only."""

    student: Student
    token: str


def check_class_name(name: str) -> str:
    """A class is named as an account is: short, and easy to type on a command line."""
    try:
        return accounts.check_name(name)
    except AccountError:
        raise AccountError(
            f"{name!r} cannot name a class: use 1 to 64 letters, digits, '_', '.' or '-',"
            " starting with a letter or digit"
        ) from None


def enrol(
    db: Connection, class_name: str, text: str, keep_tokens: Callable[[list[Issued]], None]
) -> list[Issued]:
    """Enrol the roster `text` in `class_name` (made if new), one new player account per
    student; `RosterRefused` listing every problem, and then nothing is stored."""
    check_class_name(class_name)
    students = read_roster(text, accounts.names(db), _student_ids(db, class_name))
    secrets = [accounts.new_secret() for _ in students]
    with write_transaction(db):
        students = read_roster(text, accounts.names(db), _student_ids(db, class_name))
        db.execute(
            "INSERT INTO classes (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (class_name, time.time()),
        )
        for student, secret in zip(students, secrets, strict=True):
            _store(db, class_name, student, secret)
        issued = [Issued(s, secret.token) for s, secret in zip(students, secrets, strict=True)]
        keep_tokens(issued)
    return issued


def _store(db: Connection, class_name: str, student: Student, secret: Secret) -> None:
    accounts.store(db, student.name, "player", secret)
    db.execute(
        "INSERT INTO students (account, class, student_id, section) VALUES (?, ?, ?, ?)",
        (student.name, class_name, student.student_id, student.section),
    )


def _student_ids(db: Connection, class_name: str) -> list[str]:
    rows = db.execute("SELECT student_id FROM students WHERE class = ?", (class_name,))
    return [str(student_id) for (student_id,) in rows]


def listing(
    db: Connection, class_name: str | None = None, section: str | None = None
) -> list[Enrolled]:
    """The students of a class (of every class if None; of one section, if named), by class,
    section and name."""
    query = "SELECT account, class AS class_name, student_id, section FROM students WHERE 1 = 1"
    parameters: list[str] = []
    for column, value in (("class", class_name), ("section", section)):
        if value is not None:
            query += f" AND {column} = ?"
            parameters.append(value)
    if class_name is not None:
        refuse_unknown(db, class_name)
    return rows_as(Enrolled, db.execute(query + " ORDER BY class, section, account", parameters))


def set_deadline(db: Connection, class_name: str, deadline: datetime) -> None:
    """From `deadline` on, the class's students upload no new version."""
    with write_transaction(db):
        refuse_unknown(db, class_name)
        db.execute(
            "UPDATE classes SET deadline = ? WHERE name = ?", (deadline.timestamp(), class_name)
        )


def refuse_unknown(db: Connection, class_name: str) -> None:
    """`AccountError` naming the classes there are, if there is no class `class_name`."""
    if db.execute("SELECT 1 FROM classes WHERE name = ?", (class_name,)).fetchone() is None:
        known = [str(name) for (name,) in db.execute("SELECT name FROM classes ORDER BY name")]
        classes = f"classes: {', '.join(known)}" if known else "no class is enrolled yet"
        raise AccountError(f"no class {class_name!r} ({classes})")


def refuse_after_deadline(db: Connection, author: str, now: float) -> None:
    """`SubmissionRefused`, naming the deadline, if `author`'s class has closed its
    submissions by `now`."""
    row = db.execute(
        "SELECT classes.name, classes.deadline FROM students"
        " JOIN classes ON classes.name = students.class WHERE students.account = ?",
        (author,),
    ).fetchone()
    if row is not None and row[1] is not None and now >= row[1]:
        raise SubmissionRefused(
            f"the class {row[0]}'s submissions closed at {format_deadline(row[1])}"
        )


def parse_deadline(text: str) -> datetime:
    """An ISO 8601 time with its timezone (`2026-12-01T17:00:00Z`, `...+01:00`); `ValueError`
    saying what is wrong otherwise: a time without a zone means a different moment to the
    server and to the instructor who typed it."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not an ISO 8601 time: give one such as 2026-12-01T17:00:00Z"
        ) from None
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no timezone: add one, such as Z (UTC) or +01:00")
    return moment


def format_deadline(timestamp: float) -> str:
    """A deadline as a refusal names it: ISO 8601 in UTC, to the second."""
    moment = datetime.fromtimestamp(timestamp, UTC).replace(microsecond=0)
    return moment.isoformat().replace("+00:00", "Z")
