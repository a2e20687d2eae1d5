"""Submissions in the store, on a SQLite file and a PostgreSQL database alike: versions per author
and name, archives once by hash, identical uploads refused, limits per author, retiring, the
workers' status and archive reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.protocol.submission import Manifest, content_hash, pack
from arbiter.server.storage.errors import SubmissionRefused
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import AuthorLimits, NewSubmission
from tests.conftest import BOTH_BACKENDS
from tests.server.memory import writing_to
from tests.server.test_storage import _rows

pytestmark = BOTH_BACKENDS

LIMITS = AuthorLimits(versions_kept=3, uploads_per_hour=5)


def upload(author: str, name: str, body: bytes, game: str = "kings-court") -> NewSubmission:
    manifest = Manifest("player", "python", "agent.py")
    archive = pack({"agent.py": b"class Player:\n    pass\n" + body}, manifest)
    return NewSubmission(
        author, game, name, "player", "python", manifest.to_wire(), content_hash(archive), archive
    )


async def test_versions_count_per_author_and_name(db: Path | str) -> None:
    async with writing_to(db) as storage:
        first = await storage.add_submission(upload("ann", "bot", b"#1"), LIMITS)
        second = await storage.add_submission(upload("ann", "bot", b"#2"), LIMITS)
        other = await storage.add_submission(upload("bob", "bot", b"#1"), LIMITS)
        assert (first.version, second.version, other.version) == (1, 2, 1)
        assert first.status == SubmissionStatus.VALIDATING
        assert first.manifest_map()["entry"] == "agent.py"
        assert [row.version for row in await storage.submissions("ann")] == [1, 2]
        assert await storage.submissions("ann", "amazons") == []
        # ann's v1 and bob's v1 hold the same bytes: one archive row
        assert first.hash == other.hash
        assert _rows(db, "SELECT COUNT(*) FROM archives") == [(2,)]
        assert await storage.read_archive(first.hash) == upload("ann", "bot", b"#1").archive
        assert await storage.archive_authors(first.hash) == {"ann", "bob"}
        assert await storage.read_archive("0" * 64) is None


async def test_an_identical_upload_is_refused_naming_the_version(db: Path | str) -> None:
    async with writing_to(db) as storage:
        await storage.add_submission(upload("ann", "bot", b"#1"), LIMITS)
        await storage.add_submission(upload("ann", "bot", b"#2"), LIMITS)
        with pytest.raises(SubmissionRefused, match="identical to bot v2"):
            await storage.add_submission(upload("ann", "bot", b"#2"), LIMITS)
        await storage.retire_submission("ann", "bot", 2)
        again = await storage.add_submission(upload("ann", "bot", b"#2"), LIMITS)
        assert again.version == 3, "a retired version's bytes may come back as a new version"


async def test_a_name_stays_with_its_game(db: Path | str) -> None:
    async with writing_to(db) as storage:
        await storage.add_submission(upload("ann", "bot", b"#1"), LIMITS)
        with pytest.raises(SubmissionRefused, match="agent for kings-court, not amazons"):
            await storage.add_submission(upload("ann", "bot", b"#2", "amazons"), LIMITS)


async def test_the_limits_per_author_hold(db: Path | str) -> None:
    async with writing_to(db) as storage:
        for n in range(3):
            await storage.add_submission(upload("ann", "bot", b"#%d" % n), LIMITS)
        with pytest.raises(SubmissionRefused, match=r"keeps 3 versions.*retire one"):
            await storage.add_submission(upload("ann", "bot", b"#9"), LIMITS)
        await storage.retire_submission("ann", "bot", 1)
        await storage.retire_submission("ann", "bot", 2)
        await storage.add_submission(upload("ann", "bot", b"#3"), LIMITS)
        await storage.add_submission(upload("ann", "bot", b"#4"), LIMITS)
        with pytest.raises(SubmissionRefused, match="5 versions in the last hour"):
            await storage.add_submission(upload("ann", "bot", b"#5"), LIMITS)
        assert len(await storage.submissions("ann")) == 5, "nothing stored by a refusal"


async def test_retiring_keeps_the_row_and_refuses_twice(db: Path | str) -> None:
    async with writing_to(db) as storage:
        await storage.add_submission(upload("ann", "bot", b"#1"), LIMITS)
        retired = await storage.retire_submission("ann", "bot", 1)
        assert retired.status == SubmissionStatus.RETIRED
        with pytest.raises(SubmissionRefused, match="retired already"):
            await storage.retire_submission("ann", "bot", 1)
        with pytest.raises(SubmissionRefused, match="ann has no bot v7"):
            await storage.retire_submission("ann", "bot", 7)
        with pytest.raises(SubmissionRefused, match="bob has no bot v1"):
            await storage.retire_submission("bob", "bot", 1)
        assert [row.status for row in await storage.submissions("ann")] == ["retired"]


async def test_a_worker_sets_status_and_log(db: Path | str) -> None:
    async with writing_to(db) as storage:
        row = await storage.add_submission(upload("ann", "bot", b"#1"), LIMITS)
        assert await storage.set_submission_status(row.id, SubmissionStatus.FAILED, "crashed")
        found = await storage.find_submission(row.id)
        assert found is not None
        assert (found.status, found.validation_log) == ("failed", "crashed")
        assert not await storage.set_submission_status(row.id + 99, SubmissionStatus.READY)
