"""`Storage` on one SQLite file: `SQLiteStorage.connect(path)`.

SQLite calls block, so they never run on the event loop. Every accepted move must be stored
before the opponent hears of it, which puts a write on the server's per-move path. Instead of
one transaction per move, one writer task drains every write queued while the previous batch was
committing and has them committed together (group commit) by a process of its own
(`server.commit_writer`, which shares no interpreter lock with the event loop), so 500
concurrent matches cost one round trip and one commit per batch rather than per move. A match
does not wait for its move's commit: it queues the announcement behind the write
(`after_commit`), and the writer sends it once the batch holding the move is committed. Other
queries (accounts, tournaments, loading a match) run on worker threads; creating and finishing
a match go through the writer too, each a few statements stored together: on a thread, under
load, they waited for the interpreter lock statement by statement and queued behind each other
(bench/server.py at 100 matches: a quarter of a second from a seek to `match_started`).

SQLite numbers a new match: its INSERT returns the id (`RETURNING id`), which the statements
stored with it (its results rows, its place in a tournament) take in the same transaction, and
the commit process's answer brings back (`server.database.commit_batch`).

One server per file: `connect` takes a lock (`DB.lock`, beside the file) and refuses a file
another server holds, as two would both resume its unfinished matches and run its tournaments.

Durability: WAL with `synchronous=NORMAL` survives a killed server process (the goal: a SIGKILL
loses no accepted move); only a power cut can lose the last transactions.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import socket
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import trio

from arbiter.games import Termination
from arbiter.server import accounts
from arbiter.server.database import (
    NEW_ID,
    PRIVATE_FILE,
    RETURNING_ID,
    ReadOnlyDatabase,
    Statement,
    open_database,
    transaction,
)
from arbiter.server.records import FullRecord, MoveRow, read_moves, read_records
from arbiter.server.storage import (
    AfterCommit,
    ScheduledGame,
    StorageError,
    StoredTournament,
    TournamentNameTaken,
    TournamentRow,
)

T = TypeVar("T")
log = logging.getLogger(__name__)

ABORTED_REASON = "the server stopped while the game was in play"


def abort_casual_matches(db: sqlite3.Connection) -> int:
    """End the casual matches an earlier run of the server left in play (killed, or stopped
    with matches going on); returns how many. Run by the server that holds the file's lock,
    as it starts.

    A tournament's game is resumed from its stored moves (`server.tournament`): its players
    come back under their registered names. A casual match's players were known only by their
    connection's session, which died with the server, so nobody could take its seats back: it
    is stored as `aborted`, with no result and no scores, its moves kept (docs/records.md).
    """
    with db:
        cursor = db.execute(
            "UPDATE matches SET status = 'aborted', ended_at = ?, reason = ?, termination = ?"
            " WHERE status = 'playing' AND id NOT IN"
            " (SELECT match_id FROM tournament_games WHERE match_id IS NOT NULL)",
            (time.time(), ABORTED_REASON, Termination.ABORTED.value),
        )
    return cursor.rowcount


@dataclass(slots=True)
class QueuedWrite:
    """Statements queued for the next group commit, stored together or not at all (a
    `storage.PendingWrite`): `error` is set if they could not be stored, `key` to the id a keyed
    write's first statement returned (`server.database.Write`)."""

    statements: list[Statement]
    done: trio.Event | None = None
    error: BaseException | None = None
    key: int | None = None


class DatabaseInUse(Exception):
    """Another server holds the file's lock: two would both resume its unfinished matches and
    run its tournaments."""


def _open_lock(lock_path: str) -> int:
    """The lock file beside the database, made if need be; `ReadOnlyDatabase` if it cannot be
    (a read-only folder that still holds the database's -wal and -shm files)."""
    try:
        return os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
    except OSError as error:
        raise ReadOnlyDatabase(
            f"cannot make its lock file {lock_path!r}: {error.strerror or error}"
        ) from error


class _CommitProcess:
    """`server.commit_writer` beside the server: a batch out, one answer per write back.

    Started on the first batch, and again after it dies (the batch in flight then fails and its
    matches stop; later ones go on). A thread would be simpler, but it shares the interpreter
    lock with the event loop: at 500 matches its commits took ten times their SQLite time and
    slowed every move (bench/server.py: 5,320 moves/s with a thread, about 5,960 with this).
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._process: trio.Process | None = None
        self._stream: trio.SocketStream | None = None
        self._answers = msgpack.Unpacker(raw=False)

    async def commit(self, batch: list[QueuedWrite]) -> None:
        """Commit `batch`, setting each write's `error` if it was refused or lost, and a keyed
        write's `key`. Shielded:
        an answer left unread would be taken for the next batch's (the wait is one commit)."""
        with trio.CancelScope(shield=True):
            try:
                stream = self._stream or await self._start()
                await stream.send_all(msgpack.packb([w.statements for w in batch]))
                answer = await self._next_answer(stream)
            except (OSError, EOFError, trio.BrokenResourceError) as error:
                await self.stop()
                lost = StorageError(f"the commit process stopped: {error}")
                for write in batch:
                    write.error = lost
                return
        for write, given in zip(batch, answer, strict=True):
            if isinstance(given, int):
                write.key = given
            elif given is not None:
                write.error = _sqlite_error(*given)

    async def _start(self) -> trio.SocketStream:
        ours, theirs = socket.socketpair()
        try:
            command = [sys.executable, "-m", "arbiter.server.commit_writer", str(theirs.fileno())]
            self._process = await trio.lowlevel.open_process(
                [*command, str(self._path)], pass_fds=(theirs.fileno(),)
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


def _sqlite_error(name: str, message: str) -> sqlite3.Error:
    """The commit process's refusal as the sqlite3 exception it was (IntegrityError...)."""
    kind = getattr(sqlite3, name, None)
    if not (isinstance(kind, type) and issubclass(kind, sqlite3.Error)):
        kind = sqlite3.Error
    return kind(message)


class SQLiteStorage:
    """`storage.Storage` on one SQLite file, this server's alone: `SQLiteStorage.connect(path)`,
    then `run_writer` in a nursery for the group commits, and `close()` once it has stopped."""

    def __init__(self, connection: sqlite3.Connection, path: Path, lock: int) -> None:
        self._db = connection
        self._path = path
        self._file_lock = lock
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

    @classmethod
    def connect(cls, path: str | Path) -> SQLiteStorage:
        """Open the file for this server alone: `DatabaseInUse` if another server has it."""
        db = open_database(path)  # first, so a bad path is reported as SQLite sees it
        with contextlib.ExitStack() as on_failure:
            on_failure.callback(db.close)
            lock_path = f"{path}.lock"
            lock = _open_lock(lock_path)
            on_failure.callback(os.close, lock)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise DatabaseInUse(
                    f"another Arbiter server is using {str(path)!r} (it holds {lock_path!r});"
                    " stop it, or give this one its own --db"
                ) from None
            aborted = abort_casual_matches(db)
            if aborted:
                log.warning("%d casual matches left in play by the last run: aborted", aborted)
            storage = cls(db, Path(path), lock)
            on_failure.pop_all()
        return storage

    async def run_writer(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The group-commit loop; runs until cancelled."""
        committer = _CommitProcess(self._path)
        try:
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
                    elif item.done is not None:
                        item.done.set()
        finally:
            await committer.stop()

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
        os.close(self._file_lock)  # releases it

    async def _write(self, *statements: Statement) -> QueuedWrite:
        """Store `statements` together in the next group commit, and wait until they are."""
        done = trio.Event()
        write = QueuedWrite(list(statements), done)
        self._enqueue(write)
        await done.wait()
        if isinstance(write.error, StorageError):
            raise write.error
        if write.error is not None:
            raise StorageError(f"SQLite refused it: {write.error}") from write.error
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
        for name in players:
            statements.append(
                ("INSERT OR IGNORE INTO players (name, created_at) VALUES (?, ?)", (name, now))
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
                    "INSERT OR REPLACE INTO defaults (match_id, seat_index, kind) VALUES (?, ?, ?)",
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

    def note_default(self, match_id: int, seat: int, kind: str) -> None:
        """Remember why a seat defaulted. It is written with the match's result, in the same
        transaction, so a stored result never lacks its kind (nor a kind its result)."""
        self._defaults.setdefault(match_id, {})[seat] = kind

    # -- reads ---------------------------------------------------------------------------

    async def load_match(self, match_id: int) -> FullRecord | None:
        return await self._run(self._load_match, match_id)

    def _load_match(self, match_id: int) -> FullRecord | None:
        return next(read_records(self._db, matches=[match_id], unfinished=True), None)

    async def load_moves(self, match_id: int) -> list[MoveRow]:
        """Every stored move of a match with its times: what resuming it needs."""
        return await self._run(read_moves, self._db, match_id)

    # -- tournaments ---------------------------------------------------------------------

    async def create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        """Insert a tournament with its whole schedule; returns its id."""
        try:
            return await self._run(self._create_tournament, row, games)
        except sqlite3.IntegrityError as error:  # the only UNIQUE a new tournament can break
            raise TournamentNameTaken(f"there is a tournament {row.name!r} already") from error

    def _create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        with transaction(self._db):
            cursor = self._db.execute(
                "INSERT INTO tournaments (name, game, options, time_control, rounds, concurrency,"
                " wait, entrants, local, status, created_by, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            )
            tournament_id = cursor.lastrowid
            self._db.executemany(
                "INSERT INTO tournament_games (tournament_id, number, round, first, second)"
                " VALUES (?, ?, ?, ?, ?)",
                [(tournament_id, g.number, g.round, g.first, g.second) for g in games],
            )
        assert tournament_id is not None
        return tournament_id

    async def set_tournament_status(self, tournament_id: int, status: str) -> None:
        await self._write(
            ("UPDATE tournaments SET status = ? WHERE id = ?", (status, tournament_id))
        )

    async def load_tournaments(self) -> list[StoredTournament]:
        """Every tournament with its schedule and the results so far (a server's start-up)."""
        return await self._run(self._load_tournaments)

    def _load_tournaments(self) -> list[StoredTournament]:
        games: dict[int, list[ScheduledGame]] = {}
        for row in self._db.execute(
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
            for row in self._db.execute(
                "SELECT id, name, game, options, time_control, rounds, concurrency, wait,"
                " entrants, local, status, created_by FROM tournaments ORDER BY id"
            )
        ]

    # -- accounts ------------------------------------------------------------------------

    async def find_account(self, name: str) -> accounts.Account | None:
        return await self._run(accounts.find, self._db, name)

    async def account_credentials(self, name: str) -> accounts.Credentials | None:
        return await self._run(accounts.credentials, self._db, name)

    async def issue_local_token(self, name: str) -> str:
        return await self._run(accounts.issue_local, self._db, name)
