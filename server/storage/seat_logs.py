"""What hosted agents printed on stderr, kept with the matches they played, for their authors.

A worker reports the end of its agent's stderr when the hosting ends (`host_ended`). The log is
kept once for every match the hosting's seat played (a challenge's one game, or every game of a
tournament seat, which shares one process and so one stderr), with the author of the submission
that ran (None for a built-in agent, whose logs only admins read). The author is stored with
the log rather than worked out from the seat's name, so a renamed or retired version keeps
its logs readable by whoever uploaded it. No trio: the server runs these on its storage thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.server.storage.sql_connection import Connection, write_transaction


@dataclass(frozen=True, slots=True)
class SeatLog:
    """One hosted seat's log in one match."""

    match: int
    seat_index: int
    seat: str
    player: str
    author: str | None
    log: str


def keep(db: Connection, player: str, since: float, author: str | None, log: str) -> list[int]:
    """Keep `log` for each match `player` began playing at `since` or later; their ids."""
    with write_transaction(db):
        rows = db.execute(
            "SELECT results.match_id, results.seat_index FROM results"
            " JOIN players ON players.id = results.player_id"
            " JOIN matches ON matches.id = results.match_id"
            " WHERE players.name = ? AND matches.started_at >= ?",
            (player, since),
        ).fetchall()
        for match_id, seat_index in rows:
            db.execute(
                "DELETE FROM seat_logs WHERE match_id = ? AND seat_index = ?",
                (match_id, seat_index),
            )
            db.execute(
                "INSERT INTO seat_logs (match_id, seat_index, author, log) VALUES (?, ?, ?, ?)",
                (match_id, seat_index, author, log),
            )
    return [int(match_id) for match_id, _ in rows]


def of_match(db: Connection, match_id: int) -> list[SeatLog]:
    """The logs kept for `match_id`'s hosted seats, in seat order."""
    rows = db.execute(
        "SELECT seat_logs.match_id, seat_logs.seat_index, results.seat, players.name,"
        " seat_logs.author, seat_logs.log FROM seat_logs"
        " JOIN results ON results.match_id = seat_logs.match_id"
        " AND results.seat_index = seat_logs.seat_index"
        " JOIN players ON players.id = results.player_id"
        " WHERE seat_logs.match_id = ? ORDER BY seat_logs.seat_index",
        (match_id,),
    ).fetchall()
    return [
        SeatLog(int(m), int(i), seat, player, author, log)
        for m, i, seat, player, author, log in rows
    ]
