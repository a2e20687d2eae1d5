"""A class's final in the store, on SQLite and PostgreSQL: each student's frozen version is their
latest ready version uploaded before the deadline; pseudonyms are keyed, stable and only for
the classes that ask for them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arbiter.server.storage import classes, finals, submissions
from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.finals import FinalRefused
from arbiter.server.storage.sql_connection import Connection, write_transaction
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import AuthorLimits
from tests.conftest import BOTH_BACKENDS
from tests.server.test_roster import roster_text
from tests.server.test_submission_store import upload

pytestmark = BOTH_BACKENDS

DEADLINE = 1_000_000.0


@pytest.fixture
def store(db: Path | str) -> Iterator[Connection]:
    with closing(open_database(db)) as connection:
        rows = [("ann", "S1", "A"), ("bob", "S2", "B"), ("cat", "S3", "A")]
        classes.enrol(connection, "cs101", roster_text(rows), lambda issued: None)
        yield connection


def version(db: Connection, author: str, body: bytes, created: float, status: str) -> int:
    row = submissions.add(db, upload(author, "bot", body), AuthorLimits())
    submissions.set_status(db, row.id, SubmissionStatus(status), None)
    with write_transaction(db):
        db.execute("UPDATE submissions SET created_at = ? WHERE id = ?", (created, row.id))
    return row.version


def test_the_frozen_version_is_the_latest_ready_one_before_the_deadline(store: Connection) -> None:
    version(store, "ann", b"#1", DEADLINE - 30, "ready")
    version(store, "ann", b"#2", DEADLINE - 20, "failed")
    version(store, "ann", b"#3", DEADLINE + 1, "ready")  # after the deadline
    version(store, "bob", b"#1", DEADLINE - 20, "ready")
    version(store, "bob", b"#2", DEADLINE - 10, "ready")
    with pytest.raises(FinalRefused, match="has no deadline"):
        finals.frozen_versions(store, "cs101", "kings-court", DEADLINE + 5)
    classes.set_deadline(store, "cs101", datetime.fromtimestamp(DEADLINE, UTC))
    with pytest.raises(FinalRefused, match=r"close at 1970-01-12T13:46:40Z: its final can be"):
        finals.frozen_versions(store, "cs101", "kings-court", DEADLINE - 1)
    with pytest.raises(AccountError, match="no class 'cs999'"):
        finals.frozen_versions(store, "cs999", "kings-court", DEADLINE + 5)
    frozen = finals.frozen_versions(store, "cs101", "kings-court", DEADLINE + 5)
    got = {one.student.account: one.version and one.version.version for one in frozen}
    assert got == {"ann": 1, "bob": 2, "cat": None}
    assert finals.frozen_versions(store, "cs101", "amazons", DEADLINE + 5)[0].version is None


def test_pseudonyms_are_keyed_stable_and_asked_for(store: Connection) -> None:
    assert finals.public_names(store) == {}
    finals.set_pseudonyms(store, "cs101", True)
    shown = finals.public_names(store)
    assert set(shown) == {"ann", "bob", "cat"}
    assert len(set(shown.values())) == 3
    for name, pseudonym in shown.items():
        assert pseudonym.startswith("student-")
        assert len(pseudonym) == len("student-") + 8
        assert pseudonym[8:] not in hashlib.sha256(name.encode()).hexdigest()  # keyed, not a hash
    assert finals.pseudonym_of(store, "bob") == shown["bob"]
    finals.set_pseudonyms(store, "cs101", False)
    assert finals.public_names(store) == {}
    finals.set_pseudonyms(store, "cs101", True)
    assert finals.public_names(store) == shown  # the key is kept: the same pseudonyms
    with pytest.raises(AccountError, match="no class 'cs999'"):
        finals.set_pseudonyms(store, "cs999", True)
