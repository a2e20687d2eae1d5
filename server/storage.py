"""The match record in SQLite: players, matches, moves and results.

SQLite calls block, so they run on a worker thread, never on the event loop. Every accepted move
must be stored before the opponent hears of it, which puts a write on the server's per-move path.
Instead of one transaction per move, one writer task drains every write queued while the previous
batch was committing and commits them together (group commit), so 500 concurrent matches cost
one thread hop and one commit per batch rather than per move.

Durability: WAL with `synchronous=NORMAL` survives a killed server process (the goal: a SIGKILL
loses no accepted move); only a power cut can lose the last transactions.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

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
    illegal TEXT NOT NULL,          -- 'forfeit' or 'retry'
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
"""


@dataclass(slots=True)
class _PendingWrite:
    sql: str
    args: Sequence[Any]
    done: trio.Event
    error: BaseException | None = None


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


class Storage:
    """One SQLite file. Open it with `async with Storage.open(path) as storage`."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        # Unbounded: queueing a write never blocks, so a move wakes its match task once (when
        # the batch holding it is committed); the number of pending writes is bounded by the
        # number of live matches, each waiting for its own.
        self._send, self._receive = trio.open_memory_channel[_PendingWrite](float("inf"))
        self._lock = trio.Lock()

    @classmethod
    def connect(cls, path: str | Path) -> Storage:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(SCHEMA)
        return cls(db)

    async def run_writer(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The group-commit loop; runs until cancelled."""
        task_status.started()
        async with self._receive:
            while True:
                batch = [await self._receive.receive()]
                while True:
                    try:
                        batch.append(self._receive.receive_nowait())
                    except trio.WouldBlock:
                        break
                await self._run(self._commit_batch, batch)
                for write in batch:
                    write.done.set()

    def close(self) -> None:
        self._db.close()

    async def _write(self, sql: str, args: Sequence[Any]) -> None:
        write = _PendingWrite(sql, args, trio.Event())
        self._send.send_nowait(write)
        await write.done.wait()
        if write.error is not None:
            raise write.error

    async def _run(self, fn: Any, *args: Any) -> Any:
        async with self._lock:
            return await trio.to_thread.run_sync(fn, *args)

    def _commit_batch(self, batch: list[_PendingWrite]) -> None:
        """Commit the batch at once; if that fails, write one by one so only the bad one fails."""
        try:
            with self._transaction():
                for sql, writes in itertools.groupby(batch, key=lambda write: write.sql):
                    self._db.executemany(sql, [write.args for write in writes])
        except sqlite3.Error:
            for write in batch:
                try:
                    with self._transaction():
                        self._db.execute(write.sql, write.args)
                except sqlite3.Error as error:
                    write.error = error

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
    ) -> int:
        """Insert the match and its players; returns the new match id."""
        return int(
            await self._run(
                self._create_match, game, options, time_control, illegal, seats, players
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
        assert match_id is not None
        return match_id

    async def record_move(
        self,
        match_id: int,
        ply: int,
        seat: str,
        move: str,
        elapsed: float,
        compensation: float = 0.0,
        clock: float | None = None,
    ) -> None:
        """Store one accepted move; returns once it is committed."""
        await self._write(
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
        await self._run(self._finish_match, match_id, result, winner, reason, scores)

    def _finish_match(
        self,
        match_id: int,
        result: str,
        winner: str | None,
        reason: str,
        scores: Sequence[float],
    ) -> None:
        with self._transaction():
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
