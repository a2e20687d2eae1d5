"""What the server needs from its store, and nothing of how it keeps it: `Storage`.

The lobby, the matches and the tournaments type against this interface; `server.app` picks the
implementation by `--db` (`server.storage.engine`): `server.storage.sqlite_store.SQLiteStorage` on
one SQLite file, or `server.storage.postgres_store.PostgresStorage` on a PostgreSQL database, both
the same queries (`server.storage.sql_store`) with the same meaning:

- the database numbers matches and tournaments: `create_match` returns the id it gave;
- every accepted move is stored before the opponent hears of it, yet a match never waits for a
  move's write: `record_move` only queues it, and the match announces the move from a callback
  it queues behind the write (`after_commit`), called once the write is committed or refused;
- a match's creation (with its players, and its place in a tournament's schedule) and its end
  (result, termination, scores, the kinds of its defaults) are each stored in one transaction;
- a commit process that dies costs a pause, not a write: the writes in flight are sent to a new
  one, and stored once; writes fail only when the store refuses them or stays out of reach, and
  the end of a match that could not be stored is stored as soon as the store takes it again
  (`finish_unstored`);
- every query runs off the event loop; `run_writer` is the one task that commits writes, and
  runs in the server's nursery until it is cancelled; `close()` once it has stopped.

The dataclasses here are what a tournament is stored as; a match's record is
`server.storage.records.FullRecord`. What it raises is `server.storage.errors`'s, whichever
engine keeps the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import trio

from arbiter.server.storage.seat_logs import SeatLog
from arbiter.server.storage.statuses import GameStatus, SubmissionStatus, TournamentStatus

if TYPE_CHECKING:
    from arbiter.games import Termination
    from arbiter.server.storage.accounts import Account, Credentials
    from arbiter.server.storage.ladder_rows import RatingChange, StoredLadder
    from arbiter.server.storage.leagues import StoredLeagues
    from arbiter.server.storage.records import FullRecord, MoveRow
    from arbiter.server.storage.submissions import AuthorLimits, NewSubmission, SubmissionRow

AfterCommit = Callable[[], None]
"""Run by the writer task once every write queued before it is committed."""


class PendingWrite(Protocol):
    """A queued write (`Storage.record_move`): by the time an `after_commit` callback queued
    after it runs, `error` is None if it is stored, else why it is not."""

    @property
    def error(self) -> BaseException | None: ...


class Storage(Protocol):
    """The server's store: matches, moves, results, tournaments and accounts."""

    async def run_writer(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Commit queued writes until cancelled; started (`nursery.start`) before any write."""

    def after_commit(self, callback: AfterCommit) -> None:
        """Call `callback` (on the event loop) once every write queued so far is committed."""

    def close(self) -> None:
        """Let go of the store, once the writer has stopped."""

    # -- matches -------------------------------------------------------------------------

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
        """Store a new match with its players; returns the id the database gave it, once stored.
        `illegal` is each seat's rule for an illegal move, `clocks` the clock that judges each
        seat (`wall`, or `cpu` for a hosted agent).

        `tournament_game` (tournament id, game number) links it to its place in a tournament's
        schedule in the same transaction: a restart never finds one without the other.
        `errors.NotStored` if it could not be stored.
        """
        ...

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
    ) -> PendingWrite:
        """Queue one accepted move without waiting for it; announce it only `after_commit`.
        `cpu` is the CPU seconds of a move on a CPU clock (None on the wall clock)."""
        ...

    def note_default(self, match_id: int, seat: int, kind: str) -> None:
        """Remember why a seat defaulted (a `standings.DEFAULT_KINDS` kind), to be stored with
        the match's result by `finish_match`, in the same transaction."""

    async def finish_match(
        self,
        match_id: int,
        result: str,
        winner: str | None,
        reason: str,
        termination: Termination,
        scores: Sequence[float],
    ) -> None:
        """Store the end of a match: result, winning seat, reason in words, termination kind,
        each seat's score, and the defaults noted for it, together. `errors.NotStored` if not."""

    def finish_unstored(self, match_id: int, reason: str, moves: int) -> None:
        """Store the end of a match the server could not store (a write refused or lost: a
        full disk, a database that is down): termination `SERVER_ERROR`, no winner, no points,
        `reason` in words. Its first `moves` moves are what was stored and announced; any later
        one stored (its announcement never went out) is dropped with it.

        Returns at once: the write is tried, and tried again in the background with a growing
        wait, until it is stored or the server stops (a casual match left in play is then
        aborted at the next start, a tournament game resumed)."""

    async def load_match(self, match_id: int) -> FullRecord | None:
        """Everything stored about a match, in play or not; None if there is no such match
        (known without a query for an id above the highest the database has handed out)."""
        ...

    async def load_moves(self, match_id: int) -> list[MoveRow]:
        """Every stored move of a match with its times: what resuming it needs."""
        ...

    async def finished_games(self, player: str, limit: int) -> list[FullRecord]:
        """The latest `limit` finished matches `player` played, newest first: what a player's
        page lists. Read apart from the server's own queries (a page's read never delays a
        match's); `errors.Unreadable` if the store cannot be read now."""
        ...

    # -- tournaments ---------------------------------------------------------------------

    async def create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        """Store a tournament with its whole schedule; returns the id the database gave it.
        `TournamentNameTaken` if its name is."""
        ...

    async def set_tournament_status(self, tournament_id: int, status: TournamentStatus) -> None: ...

    async def add_tournament_games(
        self, tournament_id: int, games: Sequence[ScheduledGame]
    ) -> None:
        """Add games to a tournament's schedule: a Swiss or knockout round paired from the
        results before it."""
        ...

    async def load_tournaments(self) -> list[StoredTournament]:
        """Every tournament with its schedule and the results so far (a server's start-up)."""
        ...

    # -- accounts (server.storage.accounts) ----------------------------------------------

    async def find_account(self, name: str) -> Account | None: ...

    async def account_credentials(self, name: str, certain: bool = False) -> Credentials | None:
        """What checking `name`'s token needs; the check itself (a slow hash) is the caller's,
        on a thread of its own (`accounts.check_token`). For a name that only looks like a
        registered one (`accounts.name_key`), that one's: `account.name` tells. Answered from
        what the server knows of the accounts (`server.storage.registry`), which may be a second
        old; `certain` asks the store about a name not known (a hello with a token)."""
        ...

    async def issue_local_token(self, name: str, role: str = "local") -> str:
        """A fresh token for a built-in agent's account, or with `role="worker"` for one of
        the server's own workers (`accounts.issue_local`); raises
        `accounts.AccountError` for a name a player or an admin holds."""
        ...

    # -- submissions (server.storage.submissions) ----------------------------------------

    async def add_submission(self, new: NewSubmission, limits: AuthorLimits) -> SubmissionRow:
        """Store an upload as the next version of its name, status `validating`, its archive
        once by hash; `errors.SubmissionRefused` with a sentence (identical to a kept version,
        the name is another game's, past the author's `limits`)."""
        ...

    async def submissions(self, author: str, game: str | None = None) -> list[SubmissionRow]:
        """The author's versions (of one game, if named), by name then version."""
        ...

    async def find_submission(self, submission_id: int) -> SubmissionRow | None: ...

    async def submissions_with_status(self, status: SubmissionStatus) -> list[SubmissionRow]:
        """Every author's versions in `status`, oldest first."""
        ...

    async def retire_submission(self, author: str, name: str, version: int) -> SubmissionRow:
        """Retire a version (kept, with its games); `errors.SubmissionRefused` if there is no
        such version or it is retired already."""
        ...

    async def set_submission_status(
        self, submission_id: int, status: SubmissionStatus, log: str | None = None
    ) -> bool:
        """Set a version's status and its validation log (the validation game's verdict);
        False if there is no such version."""
        ...

    async def read_archive(self, content_hash: str) -> bytes | None:
        """The archive stored under this SHA-256 (hex), or None."""
        ...

    async def keep_seat_log(
        self, player: str, since: float, author: str | None, log: str
    ) -> list[int]:
        """Keep a hosted seat's stderr with each match `player` began at `since` (seconds since
        the epoch) or later, as `author`'s to read; the matches' ids (`storage.seat_logs`)."""
        ...

    async def seat_logs(self, match_id: int) -> list[SeatLog]:
        """The hosted seats' logs kept for a match, in seat order."""
        ...

    async def archive_authors(self, content_hash: str) -> frozenset[str]:
        """The authors of the versions holding this archive (who may fetch it besides admins
        and workers)."""
        ...

    async def record_ladder_game(self, game: str, changes: Sequence[RatingChange]) -> None:
        """Store a ladder game's rating changes (one per seat) and the ratings they lead to, in
        one transaction (`storage.ladder_rows`)."""
        ...

    async def load_ladder(self, game: str) -> StoredLadder:
        """`game`'s ladder as stored: its ratings and every change, the oldest first."""
        ...

    async def load_leagues(self, game: str) -> StoredLeagues:
        """`game`'s leagues, by class, and the students of the classes that have their own
        (`storage.leagues`)."""
        ...


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament as stored: what its director asked for, and where it stands."""

    name: str
    game: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    rounds: int
    concurrency: int
    wait: float
    entrants: list[str]
    local: dict[str, str]
    status: TournamentStatus
    created_by: str
    id: int = 0
    format: str = "round-robin"
    """How it pairs (`server.tournaments.formats`): its games beyond the first are added as
    the games before them finish."""
    sprt: dict[str, float] | None = None
    """The terms of a match's SPRT (`elo0`, `elo1`, `alpha`, `beta`:
    `server.tournaments.paired_match`); None for a fixed match and every other format."""


@dataclass(slots=True)
class ScheduledGame:
    """One game of a tournament's schedule, with its result once it has one."""

    number: int
    round: int
    first: str
    second: str
    match: int | None = None
    status: GameStatus = GameStatus.WAITING
    result: str | None = None
    winner: int | None = None
    """The winning seat of a win."""
    reason: str | None = None
    defaults: tuple[str | None, str | None] = (None, None)


@dataclass(frozen=True, slots=True)
class StoredTournament:
    row: TournamentRow
    games: list[ScheduledGame]
