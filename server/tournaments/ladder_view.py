"""A stored ladder as its readers see it: the table (rank, rating, uncertainty, games, the last
game) and each entrant's history; pure, but for `read`, which asks the store.

The `ladder` request, the web page and the tests all read a ladder from the store, so what they
show is what a restarted server resumes from, whether or not this server is running that
ladder's games now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from arbiter import protocol
from arbiter.games import all_games
from arbiter.protocol import ErrorCode
from arbiter.server.play.hosted_submissions import pinned
from arbiter.server.play.seek_terms import Refused
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.ladder_rows import LadderRating, RatingChange, StoredLadder
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.tournaments.ladder_ratings import CONFIDENCE, MODEL


@dataclass(frozen=True, slots=True)
class TableLine:
    """One entrant's line of the table."""

    rank: int
    entrant: str
    mu: float
    sigma: float
    games: int
    last: RatingChange | None
    """Its latest game's change, if it has played."""
    active: bool
    """Whether it is still paired: a ready version (a retired one keeps its line)."""

    @property
    def rating(self) -> float:
        """What the table ranks by: `mu - 3 sigma`."""
        return self.mu - CONFIDENCE * self.sigma

    def to_wire(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "entrant": self.entrant,
            "rating": self.rating,
            "mu": self.mu,
            "sigma": self.sigma,
            "games": self.games,
            "last": None if self.last is None else self.last.match_id,
            "last_at": None if self.last is None else self.last.began_at,
            "active": self.active,
        }


@dataclass(frozen=True, slots=True)
class Played:
    """One game of an entrant's history: its change, and who it met."""

    change: RatingChange
    opponent: str


def table(stored: StoredLadder, active: Set[str]) -> list[TableLine]:
    """The entrants best first: by `mu - 3 sigma`, then by name, so that ties read the same.
    A ready version that has not played yet is there with the model's first guess."""
    last = {change.entrant: change for change in stored.changes}
    rated = {rating.entrant for rating in stored.ratings}
    fresh = [LadderRating(name, MODEL.mu, MODEL.sigma, 0) for name in active - rated]
    everyone = [*stored.ratings, *fresh]
    ranked = sorted(everyone, key=lambda r: (-(r.mu - CONFIDENCE * r.sigma), r.entrant))
    return [
        TableLine(rank, r.entrant, r.mu, r.sigma, r.games, last.get(r.entrant), r.entrant in active)
        for rank, r in enumerate(ranked, 1)
    ]


def history(stored: StoredLadder, entrant: str) -> list[Played]:
    """`entrant`'s games, the oldest first, each with its rating change and its opponent."""
    seats: dict[int, list[RatingChange]] = {}
    for change in stored.changes:
        seats.setdefault(change.match_id, []).append(change)
    return [
        Played(change, other.entrant)
        for both in seats.values()
        for change in both
        if change.entrant == entrant
        for other in both
        if other is not change
    ]


async def read(storage: Storage, game: str) -> tuple[StoredLadder, frozenset[str]]:
    """`game`'s stored ladder, and the versions it pairs now (its ready ones), as the public
    sees them: a student whose class asked for pseudonyms under theirs."""
    stored = await storage.load_ladder(game)
    ready = await storage.submissions_with_status(SubmissionStatus.READY)
    active = frozenset(pinned(row) for row in ready if row.game == game)
    shown = partial(public_entrant, stored.pseudonyms)
    return _renamed(stored, shown), frozenset(map(shown, active))


def public_entrant(pseudonyms: Mapping[str, str], entrant: str) -> str:
    """`author/name@vN` with its author's pseudonym in place of the author, if they have one."""
    author, slash, rest = entrant.partition("/")
    return f"{pseudonyms[author]}{slash}{rest}" if author in pseudonyms else entrant


def _renamed(stored: StoredLadder, shown: Callable[[str], str]) -> StoredLadder:
    return StoredLadder(
        stored.game,
        [replace(rating, entrant=shown(rating.entrant)) for rating in stored.ratings],
        [replace(change, entrant=shown(change.entrant)) for change in stored.changes],
    )


def message(stored: StoredLadder, active: Set[str], running: bool) -> protocol.LadderTable:
    """The `ladder_table` answer: the best `MAX_LADDER_ENTRIES` lines."""
    lines = table(stored, active)[: protocol.MAX_LADDER_ENTRIES]
    return protocol.LadderTable(
        game=stored.game, running=running, entries=[line.to_wire() for line in lines]
    )


class NoLadder(Refused):
    """A `ladder` request for a ladder this server neither runs nor keeps."""


async def answer(storage: Storage, game: str, running: bool) -> protocol.LadderTable:
    """The answer to `ladder`; `NoLadder` with the sentence for a game with no ladder here."""
    if game not in {rules.name for rules in all_games()}:
        raise NoLadder(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}")
    try:
        stored, active = await read(storage, game)
    except StoreError as error:
        raise NoLadder(
            ErrorCode.INTERNAL_ERROR, f"the ladder cannot be read now ({error}): try again later"
        ) from error
    if not running and not stored.ratings:
        raise NoLadder(ErrorCode.UNKNOWN_TOURNAMENT, f"this server keeps no ladder of {game}")
    return message(stored, active, running)
