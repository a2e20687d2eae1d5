"""What pages read from the store itself, where the protocol has no request for it: a player's
finished games (the player page), and how a finished match ended (its termination kind, which
`game_over` does not carry). Read on a thread, through a read-only connection of its own (safe
beside the server's writer)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from arbiter.server.records import open_read_only, read_records
from arbiter.server.sql import Connection

LISTED = ("game", "seats", "players", "result", "winner", "reason", "termination", "scores")
"""The fields of a `FullRecord` the pages show as they are."""
SHOWN_GAMES = 200
"""The player's latest finished games listed; older ones are in `arbiter export`."""


@contextmanager
def reading(db_path: str | Path) -> Iterator[Connection]:
    with closing(open_read_only(db_path)) as db:
        yield db


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
            "match": record.id,
            **{field: getattr(record, field) for field in LISTED},
            "moves": len(record.moves),
            "tournament": record.tournament and record.tournament["name"],
        }
        for record in reversed(records)
    ]


def match_ending(db_path: str | Path, match: int) -> dict[str, Any] | None:
    """How finished match `match` ended (result, winner, reason, termination), or None while it
    is in play or when there is no such match."""
    with reading(db_path) as db:
        found = list(read_records(db, matches=[match]))
    if not found:
        return None
    return {"match": match, **{field: getattr(found[0], field) for field in LISTED}}
