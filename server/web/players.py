"""A player's finished games, for the player page: read from the store on a thread, through a
read-only connection of its own (safe beside the server's writer), the latest first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arbiter.server.records import open_read_only, read_records

LISTED = ("game", "seats", "players", "result", "winner", "reason", "termination", "scores")
"""The fields of a `FullRecord` the page lists as they are."""
SHOWN_GAMES = 200
"""The player's latest finished games listed; older ones are in `arbiter export`."""


def player_games(db_path: str | Path, name: str) -> list[dict[str, Any]]:
    """The latest `SHOWN_GAMES` finished games `name` played, newest first."""
    db = open_read_only(db_path)
    try:
        rows = db.execute(
            "SELECT r.match_id FROM results r JOIN players p ON p.id = r.player_id"
            " JOIN matches m ON m.id = r.match_id"
            " WHERE p.name = ? AND m.status = 'finished' ORDER BY r.match_id DESC LIMIT ?",
            (name, SHOWN_GAMES),
        ).fetchall()
        records = list(read_records(db, matches=[row[0] for row in rows])) if rows else []
    finally:
        db.close()
    return [
        {
            "match": record.id,
            **{field: getattr(record, field) for field in LISTED},
            "moves": len(record.moves),
            "tournament": record.tournament and record.tournament["name"],
        }
        for record in reversed(records)
    ]
