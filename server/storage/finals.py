"""A class's final as stored: each student's frozen version, the tournament the final is, and
the pseudonyms its public standings may show.

A student's frozen version for a game is their latest version uploaded before the class's
deadline that passed its validation (`ready`): what they handed in, whatever they upload or
retire later. The final is refused before the deadline, since a version could still come.

Pseudonyms are an HMAC of the student's account name under a key made for the class and kept
in the store: stable from page to page and game to game, yet no one without the key can tell
whose they are, as a hash of the name alone would let anyone holding the roster do.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.classes import Enrolled, format_deadline, listing, refuse_unknown
from arbiter.server.storage.sql_connection import Connection, rows_as, write_transaction
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import COLUMNS, SubmissionRow

PSEUDONYM_PREFIX = "student-"
PSEUDONYM_HEX = 8
"""Hex digits of the HMAC kept: four billion pseudonyms, for classes of hundreds."""


class FinalRefused(AccountError):
    """A final, or its grades, that cannot be made: the sentence says why."""


@dataclass(frozen=True, slots=True)
class Frozen:
    """A student and the version they play the final with (None: nothing ready in time)."""

    student: Enrolled
    version: SubmissionRow | None


def frozen_versions(db: Connection, class_name: str, game: str, now: float) -> list[Frozen]:
    """Each student of the class with their frozen version of `game`; `FinalRefused` before
    the class's deadline (or with none set)."""
    deadline = _deadline(db, class_name)
    if deadline is None:
        raise FinalRefused(
            f"the class {class_name} has no deadline: set one with"
            " `arbiter-server admin roster deadline` first"
        )
    if now < deadline:
        raise FinalRefused(
            f"the class {class_name}'s submissions close at {format_deadline(deadline)}:"
            " its final can be played only after its deadline"
        )
    frozen: list[Frozen] = []
    for student in listing(db, class_name):
        versions = rows_as(
            SubmissionRow,
            db.execute(
                f"SELECT {COLUMNS} FROM submissions WHERE author = ? AND game = ?"
                " AND status = ? AND created_at < ? ORDER BY created_at DESC, id DESC",
                (student.account, game, SubmissionStatus.READY.value, deadline),
            ),
        )
        frozen.append(Frozen(student, versions[0] if versions else None))
    return frozen


def _deadline(db: Connection, class_name: str) -> float | None:
    refuse_unknown(db, class_name)
    (deadline,) = db.execute(
        "SELECT deadline FROM classes WHERE name = ?", (class_name,)
    ).fetchone()
    return None if deadline is None else float(deadline)


def record_final(db: Connection, class_name: str, game: str, tournament: str) -> None:
    """Remember which tournament is the class's final of `game` (for its grades)."""
    with write_transaction(db):
        db.execute(
            "INSERT INTO class_finals (class, game, tournament) VALUES (?, ?, ?)",
            (class_name, game, tournament),
        )


def final_of(db: Connection, class_name: str, game: str | None) -> tuple[str, str] | None:
    """The class's final (its game and tournament): of `game`, or its only one; None if it has
    none; `FinalRefused` if it has several and no game is named."""
    refuse_unknown(db, class_name)
    rows = [
        (str(row_game), str(tournament))
        for row_game, tournament in db.execute(
            "SELECT game, tournament FROM class_finals WHERE class = ? ORDER BY game",
            (class_name,),
        )
        if game is None or row_game == game
    ]
    if len(rows) > 1:
        games = ", ".join(row_game for row_game, _ in rows)
        raise FinalRefused(f"the class {class_name} has finals of {games}: name one with --game")
    return rows[0] if rows else None


def set_pseudonyms(db: Connection, class_name: str, shown: bool) -> None:
    """Whether the class's students appear under pseudonyms on public pages; the class's key
    is made the first time, and kept, so a pseudonym never changes."""
    with write_transaction(db):
        refuse_unknown(db, class_name)
        db.execute(
            "UPDATE classes SET pseudonyms = ?,"
            " pseudonym_key = COALESCE(pseudonym_key, ?) WHERE name = ?",
            (int(shown), secrets.token_hex(32), class_name),
        )


def pseudonym_of(db: Connection, account: str) -> str | None:
    """The pseudonym `account` appears under, if their class asked for pseudonyms."""
    return public_names(db, account).get(account)


def public_names(db: Connection, account: str | None = None) -> dict[str, str]:
    """Account -> pseudonym, for the students whose class shows pseudonyms (one, if named)."""
    query = (
        "SELECT students.account, classes.pseudonym_key FROM students"
        " JOIN classes ON classes.name = students.class"
        " WHERE classes.pseudonyms = 1 AND classes.pseudonym_key IS NOT NULL"
    )
    parameters: tuple[str, ...] = ()
    if account is not None:
        query, parameters = query + " AND students.account = ?", (account,)
    rows = db.execute(query, parameters)
    return {str(name): pseudonym(str(key), str(name)) for name, key in rows}


def pseudonym(key: str, account: str) -> str:
    """`student-` and the first hex digits of HMAC-SHA256(key, account)."""
    digest = hmac.new(bytes.fromhex(key), account.encode(), hashlib.sha256).hexdigest()
    return PSEUDONYM_PREFIX + digest[:PSEUDONYM_HEX]
