"""Reading stored matches back: what `arbiter export` writes, `arbiter replay` shows, what a
spectator of a finished match is shown, and what a restarted server resumes from. One record
type (`FullRecord`) and one reader (`read_records`) for all of them, on either engine
(`server.storage.sql_connection.Connection`). No trio, so the reading commands start without the
server's event-loop side, and can run beside a live server on a read-only connection
(`server.storage.engine.open_read_only`, which cannot upgrade an older file: the reader copes with
one).

Each query's rows are built by column name into a dataclass of its own (`sql_connection.rows_as`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbiter.games import Termination
from arbiter.server.storage.sql_connection import Connection, has_column, rows_as
from arbiter.server.storage.statuses import MatchStatus


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    seat: str
    move: str
    elapsed: float
    compensation: float
    clock: float | None
    stored_at: float
    cpu: float | None = None
    """The move's CPU seconds, for a seat on a CPU clock (None on the wall clock)."""


@dataclass(frozen=True, slots=True)
class FullRecord:
    """Everything stored about one match: what `arbiter export` writes and `replay` shows."""

    id: int
    game: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    illegal: str
    """Each seat's `statuses.IllegalMove` rule, as stored: 'forfeit,forfeit', 'retry,forfeit'."""
    status: MatchStatus
    started_at: float
    ended_at: float | None
    seats: list[str]
    players: list[str]
    result: str | None
    winner: str | None
    reason: str | None
    termination: Termination | None
    """How it ended, a `games.Termination` value ('rule', 'time', 'resignation'...); None while
    in play, and for a game stored before terminations were."""
    scores: list[float | None]
    defaults: list[str | None]
    tournament: dict[str, Any] | None
    """`{"name", "round", "game"}` for a tournament game, else None."""
    moves: list[MoveRow]
    clocks: list[str] = field(default_factory=lambda: ["wall", "wall"])
    """The clock that judged each seat: `wall`, or `cpu` for a hosted agent."""

    @property
    def notation(self) -> list[str]:
        """The moves as the protocol carries them: their text alone."""
        return [row.move for row in self.moves]


def read_moves(db: Connection, match_id: int) -> list[MoveRow]:
    cpu = "cpu" if has_column(db, "moves", "cpu") else "NULL AS cpu"  # a store read as it is
    cursor = db.execute(
        f"SELECT ply, seat, move, elapsed, compensation, clock, stored_at, {cpu} FROM moves"
        " WHERE match_id = ? ORDER BY ply",
        (match_id,),
    )
    return rows_as(MoveRow, cursor)


@dataclass(frozen=True, slots=True)
class _MatchRow:
    """A match's row with its place in a tournament, as `read_records` selects it."""

    id: int
    game: str
    options: str
    time_control: str
    illegal: str
    status: str
    started_at: float
    ended_at: float | None
    result: str | None
    winner: str | None
    reason: str | None
    termination: str | None
    tournament: str | None
    round: int | None
    number: int | None


@dataclass(frozen=True, slots=True)
class _SeatRow:
    """One seat of a match: who sat there, what they scored, the kind of their default."""

    seat: str
    player: str
    score: float | None
    default_kind: str | None
    clock: str


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
        where.append("m.status = ?")
        args.append(MatchStatus.FINISHED.value)
    if matches is not None:
        where.append(f"m.id IN ({', '.join('?' * len(matches))})")
        args += list(matches)
    if tournament is not None:
        where.append("t.name = ?")
        args.append(tournament)
    termination = "m.termination" if has_column(db, "matches", "termination") else "NULL"
    cursor = db.execute(
        "SELECT m.id, m.game, m.options, m.time_control, m.illegal, m.status, m.started_at,"
        " m.ended_at, m.result, m.winner, m.reason, t.name AS tournament, g.round, g.number,"
        f" {termination} AS termination"
        " FROM matches m LEFT JOIN tournament_games g ON g.match_id = m.id"
        " LEFT JOIN tournaments t ON t.id = g.tournament_id"
        f" WHERE {' AND '.join(where)} ORDER BY m.id",
        args,
    )
    for row in rows_as(_MatchRow, cursor):
        yield _full_record(db, row)


def finished_games(db: Connection, player: str, limit: int) -> list[FullRecord]:
    """The latest `limit` finished matches `player` played, newest first."""
    cursor = db.execute(
        "SELECT r.match_id FROM results r JOIN players p ON p.id = r.player_id"
        " JOIN matches m ON m.id = r.match_id"
        " WHERE p.name = ? AND m.status = ? ORDER BY r.match_id DESC LIMIT ?",
        (player, MatchStatus.FINISHED.value, limit),
    )
    found = [match_id for (match_id,) in cursor.fetchall()]
    return list(reversed(list(read_records(db, matches=found)))) if found else []


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
        (status,) = row
        if status != MatchStatus.FINISHED and not unfinished:
            return f"match {match_id} is {status}, not finished (add --unfinished to include it)"
    return ""


def _full_record(db: Connection, row: _MatchRow) -> FullRecord:
    clock = "r.clock" if has_column(db, "results", "clock") else "'wall'"
    cursor = db.execute(
        f"SELECT r.seat, p.name AS player, r.score, {clock} AS clock,"
        " (SELECT kind FROM defaults d WHERE d.match_id = r.match_id"
        " AND d.seat_index = r.seat_index) AS default_kind"
        " FROM results r JOIN players p ON p.id = r.player_id"
        " WHERE r.match_id = ? ORDER BY r.seat_index",
        (row.id,),
    )
    seats = rows_as(_SeatRow, cursor)
    tournament = None
    if row.tournament is not None:
        tournament = {"name": row.tournament, "round": row.round, "game": row.number}
    return FullRecord(
        id=row.id,
        game=row.game,
        options=json.loads(row.options),
        time_control=json.loads(row.time_control),
        illegal=row.illegal,
        status=MatchStatus(row.status),
        started_at=row.started_at,
        ended_at=row.ended_at,
        seats=[seat.seat for seat in seats],
        players=[seat.player for seat in seats],
        result=row.result,
        winner=row.winner,
        reason=row.reason,
        termination=None if row.termination is None else Termination(row.termination),
        scores=[seat.score for seat in seats],
        defaults=[seat.default_kind for seat in seats],
        tournament=tournament,
        moves=read_moves(db, row.id),
        clocks=[seat.clock for seat in seats],
    )
