"""The store's queries off the match path that run one at a time on a worker thread: a
submission's versions, archives and its seats' logs, the ladders' ratings and leagues.
`SQLStorage` is one of these with the match path and the group commit added
(`server.storage.sql_store`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

import trio

from arbiter.server.storage import ladder_rows, ladders, leagues, seat_logs
from arbiter.server.storage import submissions as stored_submissions
from arbiter.server.storage.errors import NotStored, StoreError, Unreadable, failing_as
from arbiter.server.storage.ladder_rows import RatingChange, StoredLadder
from arbiter.server.storage.ladders import LadderScope, LadderSettings
from arbiter.server.storage.leagues import StoredLeagues
from arbiter.server.storage.seat_logs import SeatLog
from arbiter.server.storage.sql_connection import Connection, Dialect
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import AuthorLimits, NewSubmission, SubmissionRow

T = TypeVar("T")


class ThreadQueries:
    """Queries on one connection, each on a worker thread, one at a time."""

    DIALECT: ClassVar[Dialect]

    def __init__(self, connection: Connection) -> None:
        self._db = connection
        self._query_lock = trio.Lock()
        """One worker-thread query at a time: they share one connection."""

    async def _run(
        self, fn: Callable[..., T], *args: Any, failure: type[StoreError] = Unreadable
    ) -> T:
        """`fn(*args)` on a worker thread, one at a time: they share one connection. An error of
        the engine is raised as `failure` (a write's is `NotStored`)."""

        def run() -> T:
            with failing_as(failure, self._db.Error, f"{self.DIALECT.name} failed"):
                return fn(*args)

        async with self._query_lock:
            return await trio.to_thread.run_sync(run)

    # -- submissions ---------------------------------------------------------------------

    async def add_submission(self, new: NewSubmission, limits: AuthorLimits) -> SubmissionRow:
        return await self._run(stored_submissions.add, self._db, new, limits, failure=NotStored)

    async def submissions(self, author: str, game: str | None = None) -> list[SubmissionRow]:
        return await self._run(stored_submissions.listing, self._db, author, game)

    async def find_submission(self, submission_id: int) -> SubmissionRow | None:
        return await self._run(stored_submissions.find, self._db, submission_id)

    async def submissions_with_status(self, status: SubmissionStatus) -> list[SubmissionRow]:
        return await self._run(stored_submissions.with_status, self._db, status)

    async def retire_submission(self, author: str, name: str, version: int) -> SubmissionRow:
        return await self._run(
            stored_submissions.retire, self._db, author, name, version, failure=NotStored
        )

    async def set_submission_status(
        self, submission_id: int, status: SubmissionStatus, log: str | None = None
    ) -> bool:
        return await self._run(
            stored_submissions.set_status, self._db, submission_id, status, log, failure=NotStored
        )

    async def keep_seat_log(
        self, player: str, since: float, author: str | None, log: str
    ) -> list[int]:
        return await self._run(
            seat_logs.keep, self._db, player, since, author, log, failure=NotStored
        )

    async def seat_logs(self, match_id: int) -> list[SeatLog]:
        return await self._run(seat_logs.of_match, self._db, match_id)

    async def read_archive(self, content_hash: str) -> bytes | None:
        return await self._run(stored_submissions.read_archive, self._db, content_hash)

    async def archive_authors(self, content_hash: str) -> frozenset[str]:
        return await self._run(stored_submissions.archive_authors, self._db, content_hash)

    # -- ladders -------------------------------------------------------------------------

    async def record_ladder_game(self, ladder: str, changes: Sequence[RatingChange]) -> None:
        await self._run(ladder_rows.record_game, self._db, ladder, changes, failure=NotStored)

    async def load_ladder(self, ladder: str) -> StoredLadder:
        return await self._run(ladder_rows.load, self._db, ladder)

    async def running_ladders(self) -> list[LadderSettings]:
        return await self._run(ladders.running, self._db)

    async def keep_ladder_running(self, settings: LadderSettings) -> None:
        await self._run(ladders.keep_running, self._db, settings, failure=NotStored)

    async def ladder_members(self, scope: LadderScope) -> frozenset[str] | None:
        return await self._run(ladders.members, self._db, scope)

    async def load_leagues(self, game: str) -> StoredLeagues:
        return await self._run(leagues.load, self._db, game)
