"""What pages read from the store itself, where the protocol has no request for it: a player's
finished games (the player page). Read on a thread, through a read-only connection of its own (safe
beside the server's writer), from either engine: a SQLite file or a PostgreSQL URL. Whatever
either engine raises, and a store that cannot be opened, comes out as `Unreadable`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from arbiter.server.storage.records import FullRecord, open_read_only, read_records
from arbiter.server.storage.sql_connection import Connection

LISTED = ("game", "seats", "players", "result", "winner", "reason", "termination", "scores")
"""The fields of a `FullRecord` the pages show as they are."""
SHOWN_GAMES = 200
"""The player's latest finished games listed; older ones are in `arbiter export`."""


class Unreadable(Exception):
    """The store cannot be read now (the sentence says why)."""


@contextmanager
def reading(db_path: str | Path) -> Iterator[Connection]:
    """A read-only connection to the store; `Unreadable` for any error of its engine."""
    try:
        db = open_read_only(db_path)
    except sqlite3.Error as error:  # both engines' "cannot open" (`sql.CannotOpen` included)
        raise Unreadable(str(error)) from error
    with closing(db):
        try:
            yield db
        except db.Error as error:
            raise Unreadable(str(error)) from error


def player_games(db_path: str | Path, name: str) -> list[dict[str, Any]]:
    """The latest `SHOWN_GAMES` finished games `name` played, newest first."""
    with reading(db_path) as db:
        rows = db.execute(
            "SELECT r.match_id FROM results r JOIN players p ON p.id = r.player_id"
            " JOIN matches m ON m.id = r.match_id"
            " WHERE p.name = ? AND m.status = 'finished' ORDER BY r.match_id DESC LIMIT ?",
            (name, SHOWN_GAMES),
        ).fetchall()
        records = list(read_records(db, matches=[row[0] for row in rows])) if rows else []
    return [
        {
            **shown(record),
            "moves": len(record.moves),
            "tournament": record.tournament and record.tournament["name"],
        }
        for record in reversed(records)
    ]


def shown(record: FullRecord) -> dict[str, Any]:
    """A finished match as the player page lists it: its number and its `LISTED` fields."""
    return {"match": record.id, **{field: getattr(record, field) for field in LISTED}}
