"""`Storage` on a SQL database, either engine: `SQLStorage`, what `SQLiteStorage` (one file,
`server.storage.sqlite_store`) and `PostgresStorage` (`server.storage.postgres_store`) are, but for
how they open it. Every query is written once, on `server.storage.sql_connection.Connection`.

The calls block, so they never run on the event loop. Every accepted move must be stored
before the opponent hears of it, which puts a write on the server's per-move path. Instead of
one transaction per move, one writer task drains every write queued while the previous batch was
committing and has them committed together (group commit) by a process of its own
(`server.storage.commit_writer`, which shares no interpreter lock with the event loop), so 500
concurrent matches cost one round trip and one commit per batch rather than per move. A match
does not wait for its move's commit: it queues the announcement behind the write
(`after_commit`), and the writer sends it once the batch holding the move is committed. Other
queries (accounts, tournaments, loading a match) run on worker threads; creating and finishing
a match go through the writer too, each a few statements stored together: on a thread, under
load, they waited for the interpreter lock statement by statement and queued behind each other
(bench/server.py at 100 matches: a quarter of a second from a seek to `match_started`).

The database numbers a new match: its INSERT returns the id (`RETURNING id`), which the
statements stored with it (its results rows, its place in a tournament) take in the same
transaction, and the commit process's answer brings back
(`server.storage.sqlite_database.commit_batch`).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, Final, TypeVar

import msgpack
import trio

from arbiter.games import Result, Termination
from arbiter.server.storage import accounts
from arbiter.server.storage.commit_writer import TARGET
from arbiter.server.storage.interface import (
    AfterCommit,
    ScheduledGame,
    StorageError,
    StoredTournament,
    TournamentNameTaken,
    TournamentRow,
)
from arbiter.server.storage.records import FullRecord, MoveRow, read_moves, read_records
from arbiter.server.storage.registry import Registry
from arbiter.server.storage.sql_connection import Connection, Dialect, transaction
from arbiter.server.storage.sqlite_database import NEW_ID, RETURNING_ID, Statement, last_batch

T = TypeVar("T")
log = logging.getLogger(__name__)

RESTART_DELAYS: Final = (0.0, 0.25, 1.0, 3.0)
"""How long to wait after each commit process that died before starting the next, for one
batch: four processes in about 4 s (a killed one is replaced at once; a database that is
restarting gets a few seconds) before its writes fail."""
UNSTORED_RESULT: Final = Result.BOTH_FORFEIT.value
"""The result of a match that ended because the server could not store it: no winner, no
points (as a tournament scores a match a server error stopped)."""
SERVER_ERROR: Final = Termination.SERVER_ERROR.value
UNSTORED_RETRY: Final = (0.5, 30.0)
"""The first and the longest wait between attempts at a write that must be stored in the end
(`SQLStorage.finish_unstored`): the wait doubles after each failure."""

ABORTED_REASON = "the server stopped while the game was in play"


def abort_casual_matches(db: Connection) -> int:
    """End the casual matches an earlier run of the server left in play (killed, or stopped
    with matches going on); returns how many. Run by a server as it opens its store.

    A tournament's game is resumed from its stored moves (`server.tournaments.tournament`): its
    players come back under their registered names. A casual match's players were known only by
    their connection's session, which died with the server, so nobody could take its seats back: it
    is stored as `aborted`, with no result and no scores, its moves kept (docs/records.md).
    """
    cursor = db.execute(
        "UPDATE matches SET status = 'aborted', ended_at = ?, reason = ?, termination = ?"
        " WHERE status = 'playing' AND id NOT IN"
        " (SELECT match_id FROM tournament_games WHERE match_id IS NOT NULL)",
        (time.time(), ABORTED_REASON, Termination.ABORTED.value),
    )
    if cursor.rowcount:
        log.warning("%d casual matches left in play by the last run: aborted", cursor.rowcount)
    return cursor.rowcount


def highest_match_id(db: Connection) -> int:
    """The highest match id stored, 0 if none."""
    (highest,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()
    return int(highest)


@dataclass(slots=True)
class QueuedWrite:
    """Statements queued for the next group commit, stored together or not at all (a
    `storage.PendingWrite`): `error` is set if they could not be stored, `key` to the id a keyed
    write's first statement returned (`server.storage.sqlite_database.Write`)."""

    statements: list[Statement]
    done: trio.Event | None = None
    error: BaseException | None = None
    key: int | None = None
    retry: float | None = None
    """For a write that must be stored in the end: how long to wait before trying it again if
    this attempt fails."""


class _CommitProcess:
    """`server.storage.commit_writer` beside the server: a batch out, one answer per write back.

    Started on the first batch, and again after it dies: the batch in flight is then sent again
    to the new process, which commits it unless the dead one had (the batches are numbered, and
    the commit log says which was committed last: `server.storage.sqlite_database.commit_batch`), so
    a killed commit process costs a pause, not a move. After `RESTART_DELAYS` are spent without an
    answer (a database that is down), the batch's writes fail. A thread would be simpler, but it
    shares the interpreter lock with the event loop: at 500 matches its commits took ten times their
    SQLite time and slowed every move (bench/server.py: 5,320 moves/s with a thread, about 5,960
    with this).
    """

    def __init__(
        self, target: str, errors: Callable[[str, str], Exception], last_batch: int
    ) -> None:
        self._target = target
        self._errors = errors
        self._numbers = itertools.count(last_batch + 1)
        self._process: trio.Process | None = None
        self._stream: trio.SocketStream | None = None
        self._answers = msgpack.Unpacker(raw=False)

    async def commit(self, batch: list[QueuedWrite]) -> None:
        """Commit `batch`, setting each write's `error` if it was refused or lost, and a keyed
        write's `key`. Shielded: an answer left unread would be taken for the next batch's (the
        wait is one commit, or the restarts' delays)."""
        message = msgpack.packb([next(self._numbers), [w.statements for w in batch]])
        with trio.CancelScope(shield=True):
            for delay in RESTART_DELAYS:
                try:
                    stream = self._stream or await self._start()
                    await stream.send_all(message)
                    answer = await self._next_answer(stream)
                    break
                except (OSError, EOFError, trio.BrokenResourceError) as error:
                    await self.stop()
                    log.warning("the commit process stopped (%s): starting another", error)
                    lost = error
                    await trio.sleep(delay)
            else:
                failed = StorageError(f"the commit process stopped: {lost}")
                for write in batch:
                    write.error = failed
                return
        for write, given in zip(batch, answer, strict=True):
            if isinstance(given, int):
                write.key = given
            elif given is not None:
                write.error = self._errors(*given)

    async def _start(self) -> trio.SocketStream:
        ours, theirs = socket.socketpair()
        try:
            command = [
                sys.executable,
                "-m",
                "arbiter.server.storage.commit_writer",
                str(theirs.fileno()),
            ]
            self._process = await trio.lowlevel.open_process(
                command, pass_fds=(theirs.fileno(),), env={**os.environ, TARGET: self._target}
            )
        finally:
            theirs.close()
        self._stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
        self._answers = msgpack.Unpacker(raw=False)
        return self._stream

    async def _next_answer(self, stream: trio.SocketStream) -> list[list[str] | int | None]:
        while True:
            for answer in self._answers:
                return answer  # type: ignore[no-any-return]  # msgpack: untyped values
            data = await stream.receive_some(1 << 16)
            if not data:
                raise EOFError("it closed its socket")
            self._answers.feed(data)

    async def stop(self) -> None:
        """Close the socket, which ends the process; kill it if it does not end."""
        with trio.CancelScope(shield=True):
            if self._stream is not None:
                await trio.aclose_forcefully(self._stream)
                self._stream = None
            if self._process is not None:
                with trio.move_on_after(5):
                    await self._process.wait()
                if self._process.returncode is None:
                    self._process.kill()
                    await self._process.wait()
                self._process = None


class SQLStorage:
    """`storage.Storage` on one database: a subclass's `connect`, then `run_writer` in a
    nursery for the group commits, and `close()` once it has stopped."""

    DIALECT: ClassVar[Dialect]
    ERRORS: ClassVar[ModuleType]
    """The module of the engine's exceptions: a refusal from the commit process comes back as
    the exception it was there (`sqlite3.IntegrityError`, `psycopg.errors.UniqueViolation`)."""

    def __init__(self, connection: Connection, target: str) -> None:
        self._db = connection
        self._target = target
        # Unbounded: queueing never blocks. What is queued is bounded by the live matches: each
        # has at most one move (and its announcement) waiting, as its next move needs it sent.
        # A plain deque and a parking lot rather than a memory channel: two items per move go
        # through here, and the writer takes them all at once anyway.
        self._queue: deque[QueuedWrite | AfterCommit] = deque()
        self._queued = trio.lowlevel.ParkingLot()
        self._query_lock = trio.Lock()
        """One worker-thread query at a time: they share one connection."""
        self._defaults: dict[int, dict[int, str]] = {}
        """Default kinds noted for matches about to finish: match id -> seat -> kind."""
        self._last_batch = last_batch(connection)
        """The last group commit's number: this server's are numbered after it."""
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
        kind = getattr(cls.ERRORS, name, None)
        if not (isinstance(kind, type) and issubclass(kind, base)):
            kind = base
        error: Exception = kind(message)
        return error

    async def run_writer(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The group-commit loop; runs until cancelled."""
        committer = _CommitProcess(self._target, self._refusal, self._last_batch)
        try:
            async with trio.open_nursery() as retries:
                task_status.started()
                while True:
                    while not self._queue:
                        await self._queued.park()
                    batch = list(self._queue)
                    self._queue.clear()
                    writes = [item for item in batch if isinstance(item, QueuedWrite)]
                    if writes:
                        await committer.commit(writes)
                    for item in batch:
                        if not isinstance(item, QueuedWrite):
                            self._call_back(item)
                        elif item.error is not None and item.retry is not None:
                            retries.start_soon(self._try_again, item)
                        elif item.done is not None:
                            item.done.set()
        finally:
            await committer.stop()

    async def _try_again(self, write: QueuedWrite) -> None:
        """Queue a write that must be stored again, after its wait (doubled for the next)."""
        assert write.retry is not None
        log.error("could not store a write (%s): trying again in %g s", write.error, write.retry)
        await trio.sleep(write.retry)
        write.error, write.retry = None, min(2 * write.retry, UNSTORED_RETRY[1])
        self._enqueue(write)

    def _enqueue(self, item: QueuedWrite | AfterCommit) -> None:
        self._queue.append(item)
        if self._queued:
            self._queued.unpark()

    @staticmethod
    def _call_back(callback: AfterCommit) -> None:
        try:
            callback()
        except Exception:  # one match's bug must not stop every match's storage
            log.exception("after-commit callback failed")

    def after_commit(self, callback: AfterCommit) -> None:
        """Call `callback` (on the event loop) once every write queued so far is committed."""
        self._enqueue(callback)

    def close(self) -> None:
        self._db.close()

    async def _write(self, *statements: Statement) -> QueuedWrite:
        """Store `statements` together in the next group commit, and wait until they are."""
        done = trio.Event()
        write = QueuedWrite(list(statements), done)
        self._enqueue(write)
        await done.wait()
        if isinstance(write.error, StorageError):
            raise write.error
        if write.error is not None:
            raise StorageError(f"{self.DIALECT.name} refused it: {write.error}") from write.error
        return write

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on a worker thread, one at a time: they share one connection."""
        async with self._query_lock:
            return await trio.to_thread.run_sync(fn, *args)

    # -- writes on the match path --------------------------------------------------------

    async def create_match(
        self,
        game: str,
        options: dict[str, Any],
        time_control: dict[str, Any],
        illegal: str,
        seats: Sequence[str],
        players: Sequence[str],
        tournament_game: tuple[int, int] | None = None,
    ) -> int:
        now = time.time()
        statements: list[Statement] = [
            (
                "INSERT INTO matches (game, options, time_control, illegal, status, started_at)"
                " VALUES (?, ?, ?, ?, 'playing', ?)" + RETURNING_ID,
                (game, json.dumps(options), json.dumps(time_control), illegal, now),
            )
        ]
        statements.extend(
            (
                "INSERT INTO players (name, created_at) VALUES (?, ?)"
                " ON CONFLICT (name) DO NOTHING",
                (name, now),
            )
            for name in players
        )
        for index, (seat, name) in enumerate(zip(seats, players, strict=True)):
            statements.append(
                (
                    "INSERT INTO results (match_id, seat_index, seat, player_id)"
                    " SELECT ?, ?, ?, id FROM players WHERE name = ?",
                    (NEW_ID, index, seat, name),
                )
            )
        if tournament_game is not None:
            statements.append(
                (
                    "UPDATE tournament_games SET match_id = ?"
                    " WHERE tournament_id = ? AND number = ?",
                    (NEW_ID, *tournament_game),
                )
            )
        write = await self._write(*statements)
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
    ) -> QueuedWrite:
        """Queue one accepted move without waiting for it; announce it only `after_commit`."""
        write = QueuedWrite(
            [
                (
                    "INSERT INTO moves (match_id, ply, seat, move, elapsed, compensation, clock,"
                    " stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (match_id, ply, seat, move, elapsed, compensation, clock, time.time()),
                )
            ]
        )
        self._enqueue(write)
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
        await self._write(
            *(
                (
                    "INSERT INTO defaults (match_id, seat_index, kind) VALUES (?, ?, ?)"
                    " ON CONFLICT (match_id, seat_index) DO UPDATE SET kind = excluded.kind",
                    (match_id, seat, kind),
                )
                for seat, kind in defaults.items()
            ),
            (
                "UPDATE matches SET status = 'finished', ended_at = ?, result = ?, winner = ?,"
                " reason = ?, termination = ? WHERE id = ?",
                (time.time(), result, winner, reason, termination.value, match_id),
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
                    "UPDATE matches SET status = 'finished', ended_at = ?, result = ?,"
                    " winner = NULL, reason = ?, termination = ? WHERE id = ?",
                    (time.time(), UNSTORED_RESULT, reason, SERVER_ERROR, match_id),
                ),
                ("UPDATE results SET score = 0 WHERE match_id = ?", (match_id,)),
                ("DELETE FROM moves WHERE match_id = ? AND ply > ?", (match_id, moves)),
            ],
            retry=UNSTORED_RETRY[0],
        )
        self._enqueue(write)

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

    # -- tournaments ---------------------------------------------------------------------

    async def create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        """Insert a tournament with its whole schedule; returns its id."""
        tournament_id = await self._run(self._create_tournament, row, games)
        if tournament_id is None:
            raise TournamentNameTaken(f"there is a tournament {row.name!r} already")
        return tournament_id

    def _create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int | None:
        """The new tournament's id; None if its name is taken (and nothing stored)."""
        with transaction(self._db):
            created = self._db.execute(
                "INSERT INTO tournaments (name, game, options, time_control, rounds, concurrency,"
                " wait, entrants, local, status, created_by, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name) DO NOTHING" + RETURNING_ID,
                (
                    row.name,
                    row.game,
                    json.dumps(row.options),
                    json.dumps(row.time_control),
                    row.rounds,
                    row.concurrency,
                    row.wait,
                    json.dumps(row.entrants),
                    json.dumps(row.local),
                    row.status,
                    row.created_by,
                    time.time(),
                ),
            ).fetchone()
            if created is None:
                return None
            (tournament_id,) = created
            self._db.executemany(
                "INSERT INTO tournament_games (tournament_id, number, round, first, second)"
                " VALUES (?, ?, ?, ?, ?)",
                [(tournament_id, g.number, g.round, g.first, g.second) for g in games],
            )
        return int(tournament_id)

    async def set_tournament_status(self, tournament_id: int, status: str) -> None:
        await self._write(
            ("UPDATE tournaments SET status = ? WHERE id = ?", (status, tournament_id))
        )

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

    async def issue_local_token(self, name: str) -> str:
        token = await self._run(accounts.issue_local, self._db, name)
        self._registry.forget(name)
        return token


def load_tournaments(db: Connection) -> list[StoredTournament]:
    """Every tournament in a store with its schedule and results so far: what a server
    resumes at start-up, and what `arbiter tournament standings --db` reads without one."""
    games: dict[int, list[ScheduledGame]] = {}
    for row in db.execute(
        "SELECT g.tournament_id, g.number, g.round, g.first, g.second, g.match_id,"
        " m.status, m.result, m.reason,"
        " CASE WHEN m.winner IS NULL THEN NULL WHEN m.winner = r.seat THEN 0 ELSE 1 END,"
        " (SELECT kind FROM defaults WHERE match_id = g.match_id AND seat_index = 0),"
        " (SELECT kind FROM defaults WHERE match_id = g.match_id AND seat_index = 1)"
        " FROM tournament_games g LEFT JOIN matches m ON m.id = g.match_id"
        " LEFT JOIN results r ON r.match_id = g.match_id AND r.seat_index = 0"
        " ORDER BY g.tournament_id, g.number"
    ):
        number, round_, first, second = row[1:5]
        game = ScheduledGame(number, round_, first, second, row[5], row[6] or "waiting")
        game.result, game.reason, game.winner = row[7], row[8], row[9]
        game.defaults = (row[10], row[11])
        games.setdefault(row[0], []).append(game)
    return [
        StoredTournament(
            TournamentRow(
                id=row[0],
                name=row[1],
                game=row[2],
                options=json.loads(row[3]),
                time_control=json.loads(row[4]),
                rounds=row[5],
                concurrency=row[6],
                wait=row[7],
                entrants=json.loads(row[8]),
                local=json.loads(row[9]),
                status=row[10],
                created_by=row[11],
            ),
            games.get(row[0], []),
        )
        for row in db.execute(
            "SELECT id, name, game, options, time_control, rounds, concurrency, wait,"
            " entrants, local, status, created_by FROM tournaments ORDER BY id"
        )
    ]
