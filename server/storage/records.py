"""Reading stored matches back: what `arbiter export` writes, `arbiter replay` shows, what a
spectator of a finished match is shown, and what a restarted server resumes from. One record
type (`FullRecord`) and one reader (`read_records`) for all of them, on either engine
(`server.storage.sql_connection.Connection`). No trio, so the reading commands start without the
server's event-loop side, and can run beside a live server on a read-only connection (which cannot
upgrade an older file: the reader copes with one).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arbiter.server.storage.schema import refuse_newer
from arbiter.server.storage.sql_connection import SQLITE, Connection, has_column
from arbiter.server.storage.sqlite_database import is_postgres


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
    termination: str | None
    """How it ended, a `games.Termination` value ('rule', 'time', 'resignation'...); None while
    in play, and for a game stored before terminations were."""
    scores: list[float | None]
    defaults: list[str | None]
    tournament: dict[str, Any] | None
    """`{"name", "round", "game"}` for a tournament game, else None."""
    moves: list[MoveRow]

    @property
    def notation(self) -> list[str]:
        """The moves as the protocol carries them: their text alone."""
        return [row.move for row in self.moves]


def read_moves(db: Connection, match_id: int) -> list[MoveRow]:
    return [
        MoveRow(*row)
        for row in db.execute(
            "SELECT ply, seat, move, elapsed, compensation, clock, stored_at FROM moves"
            " WHERE match_id = ? ORDER BY ply",
            (match_id,),
        )
    ]


def open_read_only(path: str | Path) -> Connection:
    """A server's store opened for reading only (safe beside a running server): a SQLite file,
    or a PostgreSQL database for a URL. `sqlite3.OperationalError` if there is no such file,
    `sql.CannotOpen` if the database cannot be reached."""
    if is_postgres(path):
        from arbiter.server.storage.postgres_database import open_postgres

        return open_postgres(str(path), read_only=True)
    if not Path(path).is_file():
        raise sqlite3.OperationalError(f"no database file {str(path)!r}")
    db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        refuse_newer(db, SQLITE)
    except BaseException:
        db.close()
        raise
    return db


def read_records(
    db: Connection,
    *,
    matches: Sequence[int] | None = None,
    tournament: str | None = None,
    unfinished: bool = False,
) -> Iterator[FullRecord]:
    """The stored matches in id order: all of them, or those named, or one tournament's;
    finished ones only unless `unfinished`."""
    where: list[str] = ["TRUE"]
    args: list[Any] = []
    if not unfinished:
        where.append("m.status = 'finished'")
    if matches is not None:
        where.append(f"m.id IN ({', '.join('?' * len(matches))})")
        args += list(matches)
    if tournament is not None:
        where.append("t.name = ?")
        args.append(tournament)
    termination = "m.termination" if has_column(db, "matches", "termination") else "NULL"
    rows = db.execute(
        "SELECT m.id, m.game, m.options, m.time_control, m.illegal, m.status, m.started_at,"
        f" m.ended_at, m.result, m.winner, m.reason, t.name, g.round, g.number, {termination}"
        " FROM matches m LEFT JOIN tournament_games g ON g.match_id = m.id"
        " LEFT JOIN tournaments t ON t.id = g.tournament_id"
        f" WHERE {' AND '.join(where)} ORDER BY m.id",
        args,
    ).fetchall()
    for row in rows:
        yield _full_record(db, row)


def missing_records(
    db: Connection,
    *,
    matches: Sequence[int] | None = None,
    tournament: str | None = None,
    unfinished: bool = False,
) -> str:
    """What `read_records` with these filters is asked for and would not find, in a sentence
    ("" when there is nothing missing): an unknown tournament or match is a mistake to say,
    not an export of no games."""
    if tournament is not None:
        names = [name for (name,) in db.execute("SELECT name FROM tournaments ORDER BY id")]
        if tournament not in names:
            known = f"tournaments: {', '.join(names)}" if names else "it holds no tournament"
            return f"no tournament {tournament!r} ({known})"
    for match_id in matches or ():
        row = db.execute("SELECT status FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            return f"no match {match_id}"
        if row[0] != "finished" and not unfinished:
            return f"match {match_id} is {row[0]}, not finished (add --unfinished to include it)"
    return ""


def _full_record(db: Connection, row: Sequence[Any]) -> FullRecord:
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
        termination=row[14],
        scores=[seat[2] for seat in seats],
        defaults=[seat[3] for seat in seats],
        tournament=tournament,
        moves=read_moves(db, match_id),
    )
