"""`Storage` on a SQL database, either engine: `SQLStorage`, what `SQLiteStorage` (one file,
`server.storage.sqlite_store`) and `PostgresStorage` (`server.storage.postgres_store`) are, but for
how they open it. Every query is written once, on `server.storage.sql_connection.Connection`.

The calls block, so they never run on the event loop. Writes go through the group commit
(`server.storage.write_queue`): a move only queues its write, and the match announces it from a
callback queued behind it (`after_commit`); creating and finishing a match go through it too, each
a few statements stored together, so under load they do not wait for the interpreter lock
statement by statement on a thread. Other queries (accounts, tournaments, loading a match) run on
worker threads, one at a time on the storage's connection; a page's read on a connection of its
own.

The database numbers a new match: its INSERT returns the id (`RETURNING id`), which the
statements stored with it (its results rows, its place in a tournament) take in the same
transaction, and the commit process's answer brings back
(`server.storage.group_commit.commit_batch`).

Whatever an engine raises leaves as one of `server.storage.errors`' kinds: a write not stored is
`NotStored`, a query that failed `Unreadable`, each with its engine's error as the cause.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from contextlib import closing
from types import ModuleType
from typing import Any, ClassVar, Final, TypeVar, cast

import trio

from arbiter.games import Result, Termination
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_read_only
from arbiter.server.storage.errors import (
    CannotOpen,
    NotStored,
    TournamentNameTaken,
    Unreadable,
)
from arbiter.server.storage.group_commit import NEW_ID, RETURNING_ID, Statement, last_batch
from arbiter.server.storage.interface import (
    AfterCommit,
    ScheduledGame,
    StoredTournament,
    TournamentRow,
)
from arbiter.server.storage.records import (
    FullRecord,
    MoveRow,
    finished_games,
    read_moves,
    read_records,
)
from arbiter.server.storage.registry import Registry
from arbiter.server.storage.sql_connection import Connection
from arbiter.server.storage.statuses import (
    MatchStatus,
    TournamentStatus,
    illegal_text,
)
from arbiter.server.storage.thread_queries import ThreadQueries
from arbiter.server.storage.tournament_rows import (
    insert_games,
    insert_tournament,
    load_tournaments,
)
from arbiter.server.storage.write_queue import FIRST_RETRY, QueuedWrite, WriteQueue

T = TypeVar("T")
log = logging.getLogger(__name__)

UNSTORED_RESULT: Final = Result.BOTH_FORFEIT.value
"""The result of a match that ended because the server could not store it: no winner, no
points (as a tournament scores a match a server error stopped)."""
SERVER_ERROR: Final = Termination.SERVER_ERROR.value
ABORTED_REASON = "the server stopped while the game was in play"
PAGE_READS: Final = 2
"""Reads for pages at once (`finished_games`), each a thread with a connection of its own: a
crowd of page requests waits its turn rather than taking the interpreter from the games."""


def abort_casual_matches(db: Connection) -> int:
    """End the casual matches an earlier run of the server left in play (killed, or stopped
    with matches going on); returns how many. Run by a server as it opens its store.

    A tournament's game is resumed from its stored moves (`server.tournaments.tournament`): its
    players come back under their registered names. A casual match's players were known only by
    their connection's session, which died with the server, so nobody could take its seats back: it
    is stored as `aborted`, with no result and no scores, its moves kept (docs/records.md).
    """
    cursor = db.execute(
        "UPDATE matches SET status = ?, ended_at = ?, reason = ?, termination = ?"
        " WHERE status = ? AND id NOT IN"
        " (SELECT match_id FROM tournament_games WHERE match_id IS NOT NULL)",
        (
            MatchStatus.ABORTED.value,
            time.time(),
            ABORTED_REASON,
            Termination.ABORTED.value,
            MatchStatus.PLAYING.value,
        ),
    )
    if cursor.rowcount:
        log.warning("%d casual matches left in play by the last run: aborted", cursor.rowcount)
    return cursor.rowcount


def highest_match_id(db: Connection) -> int:
    """The highest match id stored, 0 if none."""
    (highest,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()
    return int(highest)


def _new_match(
    game: str,
    options: dict[str, Any],
    time_control: dict[str, Any],
    illegal: tuple[str, ...],
    seats: Sequence[str],
    players: Sequence[str],
    tournament_game: tuple[int, int] | None,
    clocks: Sequence[str],
) -> list[Statement]:
    """A new match's keyed write: its row, its players (new names registered), their seats,
    and its place in a tournament's schedule (`Storage.create_match`)."""
    now = time.time()
    statements: list[Statement] = [
        (
            "INSERT INTO matches (game, options, time_control, illegal, status, started_at)"
            " VALUES (?, ?, ?, ?, ?, ?)" + RETURNING_ID,
            (
                game,
                json.dumps(options),
                json.dumps(time_control),
                illegal_text(illegal),
                MatchStatus.PLAYING.value,
                now,
            ),
        )
    ]
    statements.extend(
        (
            "INSERT INTO players (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (name, now),
        )
        for name in players
    )
    for index, (seat, name, clock) in enumerate(zip(seats, players, clocks, strict=True)):
        statements.append(
            (
                "INSERT INTO results (match_id, seat_index, seat, player_id, clock)"
                " SELECT ?, ?, ?, id, ? FROM players WHERE name = ?",
                (NEW_ID, index, seat, clock, name),
            )
        )
    if tournament_game is not None:
        statements.append(
            (
                "UPDATE tournament_games SET match_id = ? WHERE tournament_id = ? AND number = ?",
                (NEW_ID, *tournament_game),
            )
        )
    return statements


class SQLStorage(ThreadQueries):
    """`storage.Storage` on one database: a subclass's `connect`, then `run_writer` in a
    nursery for the group commits, and `close()` once it has stopped."""

    ERRORS: ClassVar[ModuleType]
    """The module of the engine's exceptions: a refusal from the commit process comes back as
    the exception it was there (`sqlite3.IntegrityError`, `psycopg.errors.UniqueViolation`)."""

    def __init__(self, connection: Connection, target: str) -> None:
        super().__init__(connection)
        self._target = target
        self._writes = WriteQueue(target, self._refusal, last_batch(connection), self.DIALECT)
        self._page_reads = trio.CapacityLimiter(PAGE_READS)
        self._defaults: dict[int, dict[int, str]] = {}
        """Default kinds noted for matches about to finish: match id -> seat -> kind."""
        self._registry = Registry(
            lambda: self._run(accounts.names, self._db),
            lambda name: self._run(accounts.credentials, self._db, name),
        )
        """Registered names and credentials lately read: most hellos need no query."""
        self._last_match_id: int | None = None
        """The highest match id the database has handed out, once read: `load_match` answers
        None for any id above it without a query (ids only grow), so a crowd asking for
        unknown matches does not queue every hello's account read behind its own."""

    @classmethod
    def _refusal(cls, name: str, message: str) -> Exception:
        """The commit process's refusal as the engine's exception it was, by its class name."""
        base = cls.ERRORS.Error
        kind = getattr(cls.ERRORS, name, base)
        known = isinstance(kind, type) and issubclass(kind, base)
        return cast(Exception, (kind if known else base)(message))

    async def run_writer(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The group-commit loop; runs until cancelled."""
        await self._writes.run(task_status=task_status)

    def after_commit(self, callback: AfterCommit) -> None:
        """Call `callback` (on the event loop) once every write queued so far is committed."""
        self._writes.put(callback)

    def close(self) -> None:
        self._db.close()

    # -- writes on the match path --------------------------------------------------------

    async def create_match(
        self,
        game: str,
        options: dict[str, Any],
        time_control: dict[str, Any],
        illegal: tuple[str, ...],
        seats: Sequence[str],
        players: Sequence[str],
        tournament_game: tuple[int, int] | None = None,
        clocks: Sequence[str] = ("wall", "wall"),
    ) -> int:
        statements = _new_match(
            game, options, time_control, illegal, seats, players, tournament_game, clocks
        )
        write = await self._writes.write(*statements)
        assert write.key is not None  # a keyed write that was stored
        self._last_match_id = max(self._last_match_id or 0, write.key)
        return write.key

    def record_move(
        self,
        match_id: int,
        ply: int,
        seat: str,
        move: str,
        elapsed: float,
        compensation: float = 0.0,
        clock: float | None = None,
        cpu: float | None = None,
    ) -> QueuedWrite:
        """Queue one accepted move without waiting for it; announce it only `after_commit`."""
        write = QueuedWrite(
            [
                (
                    "INSERT INTO moves (match_id, ply, seat, move, elapsed, compensation, clock,"
                    " cpu, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (match_id, ply, seat, move, elapsed, compensation, clock, cpu, time.time()),
                )
            ]
        )
        self._writes.put(write)
        return write

    async def finish_match(
        self,
        match_id: int,
        result: str,
        winner: str | None,
        reason: str,
        termination: Termination,
        scores: Sequence[float],
    ) -> None:
        """Store the result, its termination, the seats' scores and the kinds of any defaults,
        together."""
        defaults = self._defaults.pop(match_id, {})
        await self._writes.write(
            *(
                (
                    "INSERT INTO defaults (match_id, seat_index, kind) VALUES (?, ?, ?)"
                    " ON CONFLICT (match_id, seat_index) DO UPDATE SET kind = excluded.kind",
                    (match_id, seat, kind),
                )
                for seat, kind in defaults.items()
            ),
            (
                "UPDATE matches SET status = ?, ended_at = ?, result = ?, winner = ?,"
                " reason = ?, termination = ? WHERE id = ?",
                (
                    MatchStatus.FINISHED.value,
                    time.time(),
                    result,
                    winner,
                    reason,
                    termination.value,
                    match_id,
                ),
            ),
            *(
                (
                    "UPDATE results SET score = ? WHERE match_id = ? AND seat_index = ?",
                    (score, match_id, index),
                )
                for index, score in enumerate(scores)
            ),
        )

    def finish_unstored(self, match_id: int, reason: str, moves: int) -> None:
        """Store that the match ended because the server could not store it; see `Storage`."""
        self._defaults.pop(match_id, None)
        write = QueuedWrite(
            [
                (
                    "UPDATE matches SET status = ?, ended_at = ?, result = ?,"
                    " winner = NULL, reason = ?, termination = ? WHERE id = ?",
                    (
                        MatchStatus.FINISHED.value,
                        time.time(),
                        UNSTORED_RESULT,
                        reason,
                        SERVER_ERROR,
                        match_id,
                    ),
                ),
                ("UPDATE results SET score = 0 WHERE match_id = ?", (match_id,)),
                ("DELETE FROM moves WHERE match_id = ? AND ply > ?", (match_id, moves)),
            ],
            retry=FIRST_RETRY,
        )
        self._writes.put(write)

    def note_default(self, match_id: int, seat: int, kind: str) -> None:
        """Remember why a seat defaulted. It is written with the match's result, in the same
        transaction, so a stored result never lacks its kind (nor a kind its result)."""
        self._defaults.setdefault(match_id, {})[seat] = kind

    # -- reads ---------------------------------------------------------------------------

    async def load_match(self, match_id: int) -> FullRecord | None:
        if match_id > await self._highest_match_id():
            return None
        return await self._run(self._load_match, match_id)

    async def _highest_match_id(self) -> int:
        if self._last_match_id is None:
            stored = await self._run(highest_match_id, self._db)
            self._last_match_id = max(self._last_match_id or 0, stored)
        return self._last_match_id

    def _load_match(self, match_id: int) -> FullRecord | None:
        return next(read_records(self._db, matches=[match_id], unfinished=True), None)

    async def load_moves(self, match_id: int) -> list[MoveRow]:
        """Every stored move of a match with its times: what resuming it needs."""
        return await self._run(read_moves, self._db, match_id)

    async def finished_games(self, player: str, limit: int) -> list[FullRecord]:
        """A player's latest finished matches, read on a connection of the read's own: pages
        never queue behind the server's queries, and a store that went away under the server
        is found at the next read (`Unreadable`) rather than missed."""
        return await trio.to_thread.run_sync(
            self._finished_games, player, limit, limiter=self._page_reads
        )

    def _finished_games(self, player: str, limit: int) -> list[FullRecord]:
        try:
            db = open_read_only(self._target)
        except CannotOpen as error:
            raise Unreadable(str(error)) from error
        with closing(db):
            return finished_games(db, player, limit)

    # -- tournaments ---------------------------------------------------------------------

    async def create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        """Insert a tournament with its whole schedule; returns its id."""
        tournament_id = await self._run(insert_tournament, self._db, row, games, failure=NotStored)
        if tournament_id is None:
            raise TournamentNameTaken(f"there is a tournament {row.name!r} already")
        return tournament_id

    async def set_tournament_status(self, tournament_id: int, status: TournamentStatus) -> None:
        await self._writes.write(
            ("UPDATE tournaments SET status = ? WHERE id = ?", (status.value, tournament_id))
        )

    async def add_tournament_games(
        self, tournament_id: int, games: Sequence[ScheduledGame]
    ) -> None:
        """Add a round's games to a tournament's schedule."""
        await self._run(insert_games, self._db, tournament_id, games, failure=NotStored)

    async def load_tournaments(self) -> list[StoredTournament]:
        """Every tournament with its schedule and the results so far (a server's start-up)."""
        return await self._run(load_tournaments, self._db)

    # -- accounts ------------------------------------------------------------------------

    async def find_account(self, name: str) -> accounts.Account | None:
        return await self._run(accounts.find, self._db, name)

    async def account_credentials(
        self, name: str, certain: bool = False
    ) -> accounts.Credentials | None:
        return await self._registry.credentials(name, certain)

    async def issue_local_token(self, name: str, role: str = "local") -> str:
        token = await self._run(accounts.issue_local, self._db, name, role, failure=NotStored)
        self._registry.forget(name)
        return token
