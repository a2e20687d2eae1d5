"""Tournaments as stored: one written with the games known at its creation
(`insert_tournament`), later rounds added as they are paired (`insert_games`), and all of them
read back with their results so far (`load_tournaments`), each query's rows built by column
name (`sql_connection.rows_as`). No trio: `arbiter tournament standings --db` reads them without
a server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arbiter.server.storage.group_commit import RETURNING_ID
from arbiter.server.storage.interface import ScheduledGame, StoredTournament, TournamentRow
from arbiter.server.storage.sql_connection import (
    Connection,
    has_column,
    rows_as,
    write_transaction,
)
from arbiter.server.storage.statuses import GameStatus, TournamentStatus


def insert_tournament(
    db: Connection, row: TournamentRow, games: Sequence[ScheduledGame]
) -> int | None:
    """The new tournament's id; None if its name is taken (and nothing stored)."""
    with write_transaction(db):
        created = db.execute(
            "INSERT INTO tournaments (name, game, options, time_control, rounds, concurrency,"
            " wait, entrants, local, status, created_by, created_at, format, sprt)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
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
                row.status.value,
                row.created_by,
                time.time(),
                row.format,
                None if row.sprt is None else json.dumps(row.sprt),
            ),
        ).fetchone()
        if created is None:
            return None
        (tournament_id,) = created
        _insert_games(db, tournament_id, games)
    return int(tournament_id)


def insert_games(db: Connection, tournament_id: int, games: Sequence[ScheduledGame]) -> None:
    """Add games to a stored tournament's schedule, all or none."""
    with write_transaction(db):
        _insert_games(db, tournament_id, games)


def _insert_games(db: Connection, tournament_id: int, games: Sequence[ScheduledGame]) -> None:
    db.executemany(
        "INSERT INTO tournament_games (tournament_id, number, round, first, second)"
        " VALUES (?, ?, ?, ?, ?)",
        [(tournament_id, g.number, g.round, g.first, g.second) for g in games],
    )


@dataclass(frozen=True, slots=True)
class _ScheduleRow:
    """One game of a tournament's schedule with its match's outcome, as `load_tournaments`
    selects it."""

    tournament_id: int
    number: int
    round: int
    first: str
    second: str
    match_id: int | None
    status: str | None
    result: str | None
    reason: str | None
    winner: int | None
    """The winning seat's index, for a win."""
    first_default: str | None
    second_default: str | None

    def game(self) -> ScheduledGame:
        return ScheduledGame(
            number=self.number,
            round=self.round,
            first=self.first,
            second=self.second,
            match=self.match_id,
            status=GameStatus(self.status or GameStatus.WAITING),
            result=self.result,
            winner=self.winner,
            reason=self.reason,
            defaults=(self.first_default, self.second_default),
        )


@dataclass(frozen=True, slots=True)
class _TournamentRow:
    """A tournament's row as stored: its JSON columns still text."""

    id: int
    name: str
    game: str
    options: str
    time_control: str
    rounds: int
    concurrency: int
    wait: float
    entrants: str
    local: str
    status: str
    created_by: str
    format: str
    sprt: str | None

    def tournament(self) -> TournamentRow:
        return TournamentRow(
            id=self.id,
            name=self.name,
            game=self.game,
            options=json.loads(self.options),
            time_control=json.loads(self.time_control),
            rounds=self.rounds,
            concurrency=self.concurrency,
            wait=self.wait,
            entrants=json.loads(self.entrants),
            local=json.loads(self.local),
            status=TournamentStatus(self.status),
            created_by=self.created_by,
            format=self.format,
            sprt=None if self.sprt is None else json.loads(self.sprt),
        )


def load_tournaments(db: Connection) -> list[StoredTournament]:
    """Every tournament in a store with its schedule and results so far: what a server
    resumes at start-up, and what `arbiter tournament standings --db` reads without one."""
    games: dict[int, list[ScheduledGame]] = {}
    schedule = db.execute(
        "SELECT g.tournament_id, g.number, g.round, g.first, g.second, g.match_id,"
        " m.status, m.result, m.reason,"
        " CASE WHEN m.winner IS NULL THEN NULL WHEN m.winner = r.seat THEN 0 ELSE 1 END"
        " AS winner,"
        " (SELECT kind FROM defaults WHERE match_id = g.match_id AND seat_index = 0)"
        " AS first_default,"
        " (SELECT kind FROM defaults WHERE match_id = g.match_id AND seat_index = 1)"
        " AS second_default"
        " FROM tournament_games g LEFT JOIN matches m ON m.id = g.match_id"
        " LEFT JOIN results r ON r.match_id = g.match_id AND r.seat_index = 0"
        " ORDER BY g.tournament_id, g.number"
    )
    for row in rows_as(_ScheduleRow, schedule):
        games.setdefault(row.tournament_id, []).append(row.game())
    format_ = "format" if has_column(db, "tournaments", "format") else "'round-robin'"
    sprt = "sprt" if has_column(db, "tournaments", "sprt") else "NULL"
    tournaments = db.execute(  # an older file, read as it is, has round robins only
        "SELECT id, name, game, options, time_control, rounds, concurrency, wait, entrants,"
        f" local, status, created_by, {format_} AS format, {sprt} AS sprt FROM tournaments"
        " ORDER BY id"
    )
    return [
        StoredTournament(row.tournament(), games.get(row.id, []))
        for row in rows_as(_TournamentRow, tournaments)
    ]
