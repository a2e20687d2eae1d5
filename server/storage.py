"""The match record in SQLite: players, matches, moves and results.

SQLite calls block, so they run on worker threads, never on the event loop. Every accepted move
must be stored before the opponent hears of it, which puts a write on the server's per-move path.
Instead of one transaction per move, one writer task drains every write queued while the previous
batch was committing and commits them together (group commit) on a thread of its own, so 500
concurrent matches cost one thread hop and one commit per batch rather than per move. A match
does not wait for its move's commit: it queues the announcement behind the write
(`after_commit`), and the writer sends it once the batch holding the move is committed.

Durability: WAL with `synchronous=NORMAL` survives a killed server process (the goal: a SIGKILL
loses no accepted move); only a power cut can lose the last transactions.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import queue
import socket
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import trio

T = TypeVar("T")
log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: the resolved options, seeds included
    time_control TEXT NOT NULL,     -- JSON, as on the wire
    illegal TEXT NOT NULL,          -- per seat: 'forfeit,forfeit', 'retry,forfeit'...
    status TEXT NOT NULL,           -- 'playing' or 'finished'
    started_at REAL NOT NULL,
    ended_at REAL,
    result TEXT,                    -- 'win', 'draw', 'both_forfeit'
    winner TEXT,                    -- seat name, for 'win'
    reason TEXT
);
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    seat TEXT NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    score REAL,                     -- filled when the match ends
    PRIMARY KEY (match_id, seat_index)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,           -- 1 for the first move
    seat TEXT NOT NULL,
    move TEXT NOT NULL,
    elapsed REAL NOT NULL,          -- seconds from your_turn written to move received
    compensation REAL NOT NULL,     -- lag allowance granted (taken off elapsed)
    clock REAL,                     -- the mover's game clock after the move, if it has one
    stored_at REAL NOT NULL,
    PRIMARY KEY (match_id, ply)
);
CREATE TABLE IF NOT EXISTS defaults (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- 'crash', 'illegal', 'time' or 'absent'
    PRIMARY KEY (match_id, seat_index)
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,          -- the name a hello must carry with its token
    role TEXT NOT NULL,             -- 'player', 'admin' or 'local' (a built-in agent we run)
    salt BLOB NOT NULL,
    token_hash BLOB NOT NULL,       -- scrypt(token, salt); the token itself is never stored
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON, as the director gave them (seeds drawn per game)
    time_control TEXT NOT NULL,     -- JSON, as on the wire
    rounds INTEGER NOT NULL,
    concurrency INTEGER NOT NULL,
    wait REAL NOT NULL,             -- seconds a due game waits for an absent player
    entrants TEXT NOT NULL,         -- JSON list of names, in seeding order
    local TEXT NOT NULL,            -- JSON map: entrant name -> the built-in agent it runs
    status TEXT NOT NULL,           -- 'created', 'running' or 'finished'
    created_by TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    number INTEGER NOT NULL,        -- 1, 2, ... in schedule order
    round INTEGER NOT NULL,
    first TEXT NOT NULL,            -- the entrant in seat 0
    second TEXT NOT NULL,
    match_id INTEGER UNIQUE REFERENCES matches(id),  -- set when the game begins
    PRIMARY KEY (tournament_id, number)
);
"""


def open_database(path: str | Path) -> sqlite3.Connection:
    """The SQLite file with our pragmas and every table: for the server and the admin command."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    db.executescript(SCHEMA)
    return db


@dataclass(slots=True)
class PendingWrite:
    """A write queued for the next group commit; `error` is set if it could not be stored."""

    sql: str
    args: Sequence[Any]
    done: trio.Event | None = None
    error: BaseException | None = None


AfterCommit = Callable[[], None]
"""Run by the writer task once every write queued before it is committed."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    game: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    status: str
    players: list[str]
    seats: list[str]
    result: str | None
    winner: str | None
    reason: str | None
    moves: list[str]


class _CommitThread:
    """A thread that only commits batches: handed them through a queue, it answers through a
    socket the event loop waits on.

    `trio.to_thread` suits occasional calls. The group commit runs back to back under load, and
    a thread of its own with a socket for its answers costs the event loop less per batch (one
    read) than a thread-cache hand-off and a `run_sync_soon` each time: about 7% more moves per
    second at 100 matches (bench/server.py).
    """

    def __init__(self, commit: Callable[[list[PendingWrite]], None]) -> None:
        self._commit = commit
        self._jobs: queue.SimpleQueue[list[PendingWrite] | None] = queue.SimpleQueue()
        self._answers, self._answer = socket.socketpair()
        self._answers.setblocking(False)
        self._thread = threading.Thread(target=self._work, name="arbiter-commit", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (batch := self._jobs.get()) is not None:
            try:
                self._commit(batch)
            except BaseException as error:  # SQLite's errors are handled inside; anything else
                for write in batch:  # must still answer, or the event loop would wait forever
                    write.error = write.error or error
            self._answer.send(b".")

    async def commit(self, batch: list[PendingWrite]) -> None:
        """Commit `batch` on the thread. Shielded: an answer left unread would be taken for the
        next batch's (the wait is one commit; `stop` would wait for it anyway)."""
        self._jobs.put(batch)
        with trio.CancelScope(shield=True):
            while True:
                await trio.lowlevel.wait_readable(self._answers)
                try:
                    self._answers.recv(1)
                except BlockingIOError:
                    continue
                return

    def stop(self) -> None:
        """Let a commit under way finish (at most a batch, milliseconds), then end the thread:
        the connection may be closed once this returns."""
        self._jobs.put(None)
        self._thread.join()
        self._answers.close()
        self._answer.close()


class Storage:
    """One SQLite file. Open it with `async with Storage.open(path) as storage`."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        # Unbounded: queueing never blocks. What is queued is bounded by the live matches: each
        # has at most one move (and its announcement) waiting, as its next move needs it sent.
        # A plain deque and a parking lot rather than a memory channel: two items per move go
        # through here, and the writer takes them all at once anyway.
        self._queue: deque[PendingWrite | AfterCommit] = deque()
        self._queued = trio.lowlevel.ParkingLot()
        self._lock = trio.Lock()
        self._defaults: dict[int, dict[int, str]] = {}
        """Default kinds noted for matches about to finish: match id -> seat -> kind."""

    @classmethod
    def connect(cls, path: str | Path) -> Storage:
        return cls(open_database(path))

    async def run_writer(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The group-commit loop; runs until cancelled."""
        committer = _CommitThread(self._commit_batch)
        try:
            task_status.started()
            while True:
                while not self._queue:
                    await self._queued.park()
                batch = list(self._queue)
                self._queue.clear()
                writes = [item for item in batch if isinstance(item, PendingWrite)]
                if writes:
                    async with self._lock:
                        await committer.commit(writes)
                for item in batch:
                    if not isinstance(item, PendingWrite):
                        self._call_back(item)
                    elif item.done is not None:
                        item.done.set()
        finally:
            committer.stop()

    def _enqueue(self, item: PendingWrite | AfterCommit) -> None:
        self._queue.append(item)
        if self._queued:
            self._queued.unpark()

    @staticmethod
    def _call_back(callback: AfterCommit) -> None:
        try:
            callback()
        except Exception:  # one match's bug must not stop every match's storage
            log.exception("after-commit callback failed")

    def queue_write(self, sql: str, args: Sequence[Any]) -> PendingWrite:
        """Queue a write for the next group commit without waiting for it."""
        write = PendingWrite(sql, args)
        self._enqueue(write)
        return write

    def after_commit(self, callback: AfterCommit) -> None:
        """Call `callback` (on the event loop) once every write queued so far is committed."""
        self._enqueue(callback)

    def close(self) -> None:
        self._db.close()

    async def _write(self, sql: str, args: Sequence[Any]) -> None:
        write = PendingWrite(sql, args, trio.Event())
        self._enqueue(write)
        await write.done.wait()
        if write.error is not None:
            raise write.error

    async def _run(self, fn: Any, *args: Any) -> Any:
        async with self._lock:
            return await trio.to_thread.run_sync(fn, *args)

    def _commit_batch(self, batch: list[PendingWrite]) -> None:
        """Commit the batch at once; if that fails, write one by one so only the bad one fails.

        Every statement hands the interpreter lock to the event loop's thread and waits to get
        it back, which under load takes far longer than SQLite's own work. So a batch is as few
        statements as possible: a run of INSERTs becomes one statement with many VALUES rows,
        and a batch that is one statement needs no BEGIN and COMMIT (it is atomic by itself).
        """
        statements = [
            statement
            for sql, writes in itertools.groupby(batch, key=lambda write: write.sql)
            for statement in self._statements(sql, [write.args for write in writes])
        ]
        try:
            if len(statements) == 1:
                self._db.execute(*statements[0])
            else:
                with self._transaction():
                    for sql, args in statements:
                        self._db.execute(sql, args)
        except sqlite3.Error:
            for write in batch:
                try:
                    with self._transaction():
                        self._db.execute(write.sql, write.args)
                except sqlite3.Error as error:
                    write.error = error

    def _statements(
        self, sql: str, rows: list[Sequence[Any]]
    ) -> Iterator[tuple[str, Sequence[Any]]]:
        """`sql` once per row, or for an INSERT, as few multi-row statements as SQLite allows."""
        if len(rows) == 1 or not (sql.startswith("INSERT") and sql.endswith(")")):
            for args in rows:
                yield sql, args
            return
        values = sql[sql.rindex("(") :]
        limit = self._db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        per_statement = max(1, limit // len(rows[0]))
        for start in range(0, len(rows), per_statement):
            chunk = rows[start : start + per_statement]
            yield sql + f", {values}" * (len(chunk) - 1), [arg for row in chunk for arg in row]

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

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
        """Insert the match and its players; returns the new match id.

        `tournament_game` (tournament id, game number) links the match to its place in a
        tournament's schedule in the same transaction, so a restart never finds one without
        the other.
        """
        return int(
            await self._run(
                self._create_match,
                game,
                options,
                time_control,
                illegal,
                seats,
                players,
                tournament_game,
            )
        )

    def _create_match(
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
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO matches (game, options, time_control, illegal, status, started_at)"
                " VALUES (?, ?, ?, ?, 'playing', ?)",
                (game, json.dumps(options), json.dumps(time_control), illegal, now),
            )
            match_id = cursor.lastrowid
            for index, (seat, name) in enumerate(zip(seats, players, strict=True)):
                self._db.execute(
                    "INSERT OR IGNORE INTO players (name, created_at) VALUES (?, ?)", (name, now)
                )
                self._db.execute(
                    "INSERT INTO results (match_id, seat_index, seat, player_id)"
                    " SELECT ?, ?, ?, id FROM players WHERE name = ?",
                    (match_id, index, seat, name),
                )
            if tournament_game is not None:
                self._db.execute(
                    "UPDATE tournament_games SET match_id = ?"
                    " WHERE tournament_id = ? AND number = ?",
                    (match_id, *tournament_game),
                )
        assert match_id is not None
        return match_id

    def record_move(
        self,
        match_id: int,
        ply: int,
        seat: str,
        move: str,
        elapsed: float,
        compensation: float = 0.0,
        clock: float | None = None,
    ) -> PendingWrite:
        """Queue one accepted move; announce it only `after_commit`."""
        return self.queue_write(
            "INSERT INTO moves (match_id, ply, seat, move, elapsed, compensation, clock, stored_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (match_id, ply, seat, move, elapsed, compensation, clock, time.time()),
        )

    async def finish_match(
        self,
        match_id: int,
        result: str,
        winner: str | None,
        reason: str,
        scores: Sequence[float],
    ) -> None:
        defaults = self._defaults.pop(match_id, {})
        await self._run(self._finish_match, match_id, result, winner, reason, scores, defaults)

    def note_default(self, match_id: int, seat: int, kind: str) -> None:
        """Remember why a seat defaulted. It is written with the match's result, in the same
        transaction, so a stored result never lacks its kind (nor a kind its result)."""
        self._defaults.setdefault(match_id, {})[seat] = kind

    def _finish_match(
        self,
        match_id: int,
        result: str,
        winner: str | None,
        reason: str,
        scores: Sequence[float],
        defaults: dict[int, str],
    ) -> None:
        with self._transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO defaults (match_id, seat_index, kind) VALUES (?, ?, ?)",
                [(match_id, seat, kind) for seat, kind in defaults.items()],
            )
            self._db.execute(
                "UPDATE matches SET status = 'finished', ended_at = ?, result = ?, winner = ?,"
                " reason = ? WHERE id = ?",
                (time.time(), result, winner, reason, match_id),
            )
            for index, score in enumerate(scores):
                self._db.execute(
                    "UPDATE results SET score = ? WHERE match_id = ? AND seat_index = ?",
                    (score, match_id, index),
                )

    # -- reads ---------------------------------------------------------------------------

    async def load_match(self, match_id: int) -> MatchRecord | None:
        result: MatchRecord | None = await self._run(self._load_match, match_id)
        return result

    def _load_match(self, match_id: int) -> MatchRecord | None:
        row = self._db.execute(
            "SELECT id, game, options, time_control, status, result, winner, reason"
            " FROM matches WHERE id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        seats = self._db.execute(
            "SELECT r.seat, p.name FROM results r JOIN players p ON p.id = r.player_id"
            " WHERE r.match_id = ? ORDER BY r.seat_index",
            (match_id,),
        ).fetchall()
        moves = self._db.execute(
            "SELECT move FROM moves WHERE match_id = ? ORDER BY ply", (match_id,)
        ).fetchall()
        return MatchRecord(
            id=row[0],
            game=row[1],
            options=json.loads(row[2]),
            time_control=json.loads(row[3]),
            status=row[4],
            result=row[5],
            winner=row[6],
            reason=row[7],
            seats=[seat for seat, _ in seats],
            players=[name for _, name in seats],
            moves=[move for (move,) in moves],
        )

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(connection, *args)` on the storage thread, for modules that keep their own
        queries (`server.accounts`)."""
        result: T = await self._run(fn, self._db, *args)
        return result

    async def load_moves(self, match_id: int) -> list[MoveRow]:
        """Every stored move of a match with its times: what resuming it needs."""
        moves: list[MoveRow] = await self._run(read_moves, self._db, match_id)
        return moves

    # -- tournaments ---------------------------------------------------------------------

    async def create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        """Insert a tournament with its whole schedule; returns its id."""
        return int(await self._run(self._create_tournament, row, games))

    def _create_tournament(self, row: TournamentRow, games: Sequence[ScheduledGame]) -> int:
        with self._transaction():
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
        await self._write("UPDATE tournaments SET status = ? WHERE id = ?", (status, tournament_id))

    async def load_tournaments(self) -> list[StoredTournament]:
        """Every tournament with its schedule and the results so far (a server's start-up)."""
        tournaments: list[StoredTournament] = await self._run(self._load_tournaments)
        return tournaments

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
            game = ScheduledGame(*row[1:5], match=row[5], status=row[6] or "waiting")
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
    status: str
    created_by: str
    id: int = 0


@dataclass(slots=True)
class ScheduledGame:
    """One game of a tournament's schedule, with its result once it has one."""

    number: int
    round: int
    first: str
    second: str
    match: int | None = None
    status: str = "waiting"
    """'waiting' (not begun), 'playing' or 'finished': the status of its match."""
    result: str | None = None
    winner: int | None = None
    """The winning seat of a win."""
    reason: str | None = None
    defaults: tuple[str | None, str | None] = (None, None)


@dataclass(frozen=True, slots=True)
class StoredTournament:
    row: TournamentRow
    games: list[ScheduledGame]


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    seat: str
    move: str
    elapsed: float
    compensation: float
    clock: float | None
    stored_at: float


@dataclass(frozen=True, slots=True)
class FullRecord:
    """Everything stored about one match: what `arbiter export` writes and `replay` shows."""

    id: int
    game: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    illegal: str
    status: str
    started_at: float
    ended_at: float | None
    seats: list[str]
    players: list[str]
    result: str | None
    winner: str | None
    reason: str | None
    scores: list[float | None]
    defaults: list[str | None]
    tournament: dict[str, Any] | None
    """`{"name", "round", "game"}` for a tournament game, else None."""
    moves: list[MoveRow]


def read_moves(db: sqlite3.Connection, match_id: int) -> list[MoveRow]:
    return [
        MoveRow(*row)
        for row in db.execute(
            "SELECT ply, seat, move, elapsed, compensation, clock, stored_at FROM moves"
            " WHERE match_id = ? ORDER BY ply",
            (match_id,),
        )
    ]


def open_read_only(path: str | Path) -> sqlite3.Connection:
    """A server's file opened for reading only (safe beside a running server), or
    `sqlite3.OperationalError` if there is no such file."""
    if not Path(path).is_file():
        raise sqlite3.OperationalError(f"no database file {str(path)!r}")
    return sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)


def read_records(
    db: sqlite3.Connection,
    *,
    matches: Sequence[int] | None = None,
    tournament: str | None = None,
    unfinished: bool = False,
) -> Iterator[FullRecord]:
    """The stored matches in id order: all of them, or those named, or one tournament's;
    finished ones only unless `unfinished`."""
    where, args = ["1"], []
    if not unfinished:
        where.append("m.status = 'finished'")
    if matches is not None:
        where.append(f"m.id IN ({', '.join('?' * len(matches))})")
        args += list(matches)
    if tournament is not None:
        where.append("t.name = ?")
        args.append(tournament)
    rows = db.execute(
        "SELECT m.id, m.game, m.options, m.time_control, m.illegal, m.status, m.started_at,"
        " m.ended_at, m.result, m.winner, m.reason, t.name, g.round, g.number"
        " FROM matches m LEFT JOIN tournament_games g ON g.match_id = m.id"
        " LEFT JOIN tournaments t ON t.id = g.tournament_id"
        f" WHERE {' AND '.join(where)} ORDER BY m.id",
        args,
    ).fetchall()
    for row in rows:
        yield _full_record(db, row)


def _full_record(db: sqlite3.Connection, row: Sequence[Any]) -> FullRecord:
    match_id = row[0]
    seats = db.execute(
        "SELECT r.seat, p.name, r.score,"
        " (SELECT kind FROM defaults d WHERE d.match_id = r.match_id"
        " AND d.seat_index = r.seat_index)"
        " FROM results r JOIN players p ON p.id = r.player_id"
        " WHERE r.match_id = ? ORDER BY r.seat_index",
        (match_id,),
    ).fetchall()
    tournament = None
    if row[11] is not None:
        tournament = {"name": row[11], "round": row[12], "game": row[13]}
    return FullRecord(
        id=match_id,
        game=row[1],
        options=json.loads(row[2]),
        time_control=json.loads(row[3]),
        illegal=row[4],
        status=row[5],
        started_at=row[6],
        ended_at=row[7],
        seats=[seat[0] for seat in seats],
        players=[seat[1] for seat in seats],
        result=row[8],
        winner=row[9],
        reason=row[10],
        scores=[seat[2] for seat in seats],
        defaults=[seat[3] for seat in seats],
        tournament=tournament,
        moves=read_moves(db, match_id),
    )
