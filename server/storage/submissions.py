"""Submissions as stored: versions per author and name, each pointing at an archive stored once.

An upload of bytes identical to one of the name's kept (not retired) versions is refused,
naming that version: a second row would only queue a validation game for code already
validated, and an author who wants it back after retiring it uploads it again and gets a new
version. Identical bytes from different names or authors share one archive row.

A student's upload after their class's deadline is refused, naming it (`storage.classes`).
The limits per author are checked in the transaction that stores the version, from what is
stored, so they hold across connections and restarts alike. No trio: the server runs these on
its storage thread.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbiter.server.storage.classes import refuse_after_deadline
from arbiter.server.storage.errors import SubmissionRefused
from arbiter.server.storage.group_commit import RETURNING_ID
from arbiter.server.storage.sql_connection import Connection, rows_as, write_transaction
from arbiter.server.storage.statuses import SubmissionStatus

HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class AuthorLimits:
    """What one author may keep and upload: a class's agents, not a file store."""

    versions_kept: int = 20
    """Versions not retired, over all the author's names."""
    uploads_per_hour: int = 12


@dataclass(frozen=True, slots=True)
class NewSubmission:
    """One upload, checked (`protocol.submission.unpack`), as the store takes it."""

    author: str
    game: str
    name: str
    form: str
    language: str
    manifest: dict[str, Any]
    content_hash: str
    archive: bytes


@dataclass(frozen=True, slots=True)
class SubmissionRow:
    """One version of a submission as stored."""

    id: int
    author: str
    game: str
    name: str
    version: int
    form: str
    language: str
    manifest: str
    """JSON, as stored: `manifest_map()` reads it."""
    hash: str
    size: int
    status: str
    created_at: float
    validation_log: str | None

    def manifest_map(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.manifest)
        return loaded


COLUMNS = (
    "id, author, game, name, version, form, language, manifest, hash, size, status,"
    " created_at, validation_log"
)


def add(db: Connection, new: NewSubmission, limits: AuthorLimits) -> SubmissionRow:
    """Store `new` as the next version of its name; `SubmissionRefused` saying why not."""
    now = time.time()
    with write_transaction(db):
        refuse_after_deadline(db, new.author, now)
        _refuse_past_limits(db, new.author, limits, now)
        versions = _versions(db, new.author, new.name)
        _refuse_clash(new, versions)
        db.execute(
            "INSERT INTO archives (hash, content, size, created_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (hash) DO NOTHING",
            (new.content_hash, new.archive, len(new.archive), now),
        )
        version = max((row.version for row in versions), default=0) + 1
        (new_id,) = db.execute(
            "INSERT INTO submissions (author, game, name, version, form, language, manifest,"
            " hash, size, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + RETURNING_ID,
            (
                new.author,
                new.game,
                new.name,
                version,
                new.form,
                new.language,
                json.dumps(new.manifest),
                new.content_hash,
                len(new.archive),
                SubmissionStatus.VALIDATING.value,
                now,
            ),
        ).fetchone()
    row = find(db, int(new_id))
    assert row is not None  # committed just now
    return row


def _refuse_past_limits(db: Connection, author: str, limits: AuthorLimits, now: float) -> None:
    (recent,) = db.execute(
        "SELECT COUNT(*) FROM submissions WHERE author = ? AND created_at > ?",
        (author, now - HOUR),
    ).fetchone()
    if recent >= limits.uploads_per_hour:
        raise SubmissionRefused(
            f"{author} uploaded {recent} versions in the last hour, the most an author may:"
            " try again later"
        )
    (kept,) = db.execute(
        "SELECT COUNT(*) FROM submissions WHERE author = ? AND status <> ?",
        (author, SubmissionStatus.RETIRED.value),
    ).fetchone()
    if kept >= limits.versions_kept:
        raise SubmissionRefused(
            f"{author} keeps {kept} versions, the most an author may: retire one first"
        )


def _refuse_clash(new: NewSubmission, versions: Sequence[SubmissionRow]) -> None:
    for row in versions:
        if row.game != new.game:
            raise SubmissionRefused(
                f"{new.name!r} is {new.author}'s agent for {row.game}, not {new.game}:"
                " give this one another name"
            )
        if row.hash == new.content_hash and row.status != SubmissionStatus.RETIRED:
            raise SubmissionRefused(
                f"identical to {new.name} v{row.version} (sha256 {row.hash[:12]}...):"
                " nothing to upload"
            )


def _versions(db: Connection, author: str, name: str) -> list[SubmissionRow]:
    return rows_as(
        SubmissionRow,
        db.execute(
            f"SELECT {COLUMNS} FROM submissions WHERE author = ? AND name = ? ORDER BY version",
            (author, name),
        ),
    )


def find(db: Connection, submission_id: int) -> SubmissionRow | None:
    rows = rows_as(
        SubmissionRow,
        db.execute(f"SELECT {COLUMNS} FROM submissions WHERE id = ?", (submission_id,)),
    )
    return rows[0] if rows else None


def listing(db: Connection, author: str, game: str | None = None) -> list[SubmissionRow]:
    """The author's versions (of one game's agents, if named), by name then version."""
    query = f"SELECT {COLUMNS} FROM submissions WHERE author = ?"
    parameters: tuple[str, ...] = (author,)
    if game is not None:
        query += " AND game = ?"
        parameters += (game,)
    return rows_as(SubmissionRow, db.execute(query + " ORDER BY name, version", parameters))


def with_status(db: Connection, status: str) -> list[SubmissionRow]:
    """Every version in `status`, oldest first (the validations still to play, say)."""
    return rows_as(
        SubmissionRow,
        db.execute(f"SELECT {COLUMNS} FROM submissions WHERE status = ? ORDER BY id", (status,)),
    )


def retire(db: Connection, author: str, name: str, version: int) -> SubmissionRow:
    """Mark a version retired, keeping its row and games; `SubmissionRefused` if the author has
    no such version or retired it already."""
    with write_transaction(db):
        rows = [row for row in _versions(db, author, name) if row.version == version]
        if not rows:
            raise SubmissionRefused(f"{author} has no {name} v{version}")
        if rows[0].status == SubmissionStatus.RETIRED:
            raise SubmissionRefused(f"{name} v{version} is retired already")
        db.execute(
            "UPDATE submissions SET status = ? WHERE id = ?",
            (SubmissionStatus.RETIRED.value, rows[0].id),
        )
    row = find(db, rows[0].id)
    assert row is not None
    return row


def set_status(
    db: Connection, submission_id: int, status: SubmissionStatus, log: str | None
) -> bool:
    """Set a version's status and validation log; False if there is no such version."""
    with write_transaction(db):
        cursor = db.execute(
            "UPDATE submissions SET status = ?, validation_log = ? WHERE id = ?",
            (status.value, log, submission_id),
        )
    return cursor.rowcount > 0


def read_archive(db: Connection, content_hash: str) -> bytes | None:
    row = db.execute("SELECT content FROM archives WHERE hash = ?", (content_hash,)).fetchone()
    return None if row is None else bytes(row[0])


def archive_authors(db: Connection, content_hash: str) -> frozenset[str]:
    """Who uploaded the archive: its authors may fetch it back."""
    rows = db.execute("SELECT DISTINCT author FROM submissions WHERE hash = ?", (content_hash,))
    return frozenset(str(author) for (author,) in rows)
