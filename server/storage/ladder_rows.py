"""Ladders as stored: each entrant's rating, and every game's change to its two players' ratings.

A ladder never ends, and a restarted server must go on from the ratings it had, so each game's
changes are written in one transaction with the ratings they lead to (`record_game`): the
ratings row is what the next game starts from, the changes are each entrant's history (its
chart, its recent games). No trio: the server runs these on its storage thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arbiter.server.storage import finals
from arbiter.server.storage.sql_connection import Connection, rows_as, write_transaction


@dataclass(frozen=True, slots=True)
class LadderRating:
    """One entrant's rating as its latest game left it."""

    entrant: str
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's side of one ladder game: its score and its rating before and after."""

    match_id: int
    seat_index: int
    entrant: str
    score: float
    """1, 0.5 or 0 (0 to both sides of a double forfeit)."""
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    began_at: float
    """When the game began, in seconds since the epoch."""


@dataclass(frozen=True, slots=True)
class StoredLadder:
    """A game's ladder as stored: the ratings, and the changes in the order they were made."""

    game: str
    ratings: list[LadderRating]
    changes: list[RatingChange]
    pseudonyms: dict[str, str] = field(default_factory=dict)
    """Account -> pseudonym, for the students whose class shows pseudonyms on public pages
    (`storage.finals`): read with the ladder, for the pages that show it."""


def record_game(db: Connection, game: str, changes: Sequence[RatingChange]) -> None:
    """Store one game's changes (one per seat) and the ratings they lead to, at once."""
    with write_transaction(db):
        for change in changes:
            db.execute(
                "INSERT INTO ladder_changes (match_id, seat_index, game, entrant, score,"
                " mu_before, sigma_before, mu_after, sigma_after, began_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    change.match_id,
                    change.seat_index,
                    game,
                    change.entrant,
                    change.score,
                    change.mu_before,
                    change.sigma_before,
                    change.mu_after,
                    change.sigma_after,
                    change.began_at,
                ),
            )
            db.execute(
                "INSERT INTO ladder_ratings (game, entrant, mu, sigma, games)"
                " VALUES (?, ?, ?, ?, 1)"
                " ON CONFLICT (game, entrant) DO UPDATE"
                " SET mu = excluded.mu, sigma = excluded.sigma,"
                " games = ladder_ratings.games + 1",
                (game, change.entrant, change.mu_after, change.sigma_after),
            )


def load(db: Connection, game: str) -> StoredLadder:
    """`game`'s ladder: every rating and every change, the oldest game first."""
    ratings = rows_as(
        LadderRating,
        db.execute(
            "SELECT entrant, mu, sigma, games FROM ladder_ratings WHERE game = ? ORDER BY entrant",
            (game,),
        ),
    )
    changes = rows_as(
        RatingChange,
        db.execute(
            "SELECT match_id, seat_index, entrant, score, mu_before, sigma_before, mu_after,"
            " sigma_after, began_at FROM ladder_changes WHERE game = ?"
            " ORDER BY match_id, seat_index",
            (game,),
        ),
    )
    return StoredLadder(game, ratings, changes, finals.public_names(db))
