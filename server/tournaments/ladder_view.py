"""A stored ladder as its readers see it: the table (rank, rating, uncertainty, games, the last
game) and each entrant's history; pure, but for `read`, which asks the store. A ladder is named
by its scope (`storage.ladders.LadderScope`): a game's own, or one class's section's.

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
from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.ladder_rows import LadderRating, RatingChange, StoredLadder
from arbiter.server.storage.ladders import LadderRefused, LadderScope
from arbiter.server.storage.leagues import StoredLeagues
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.tournaments.ladder_ratings import CONFIDENCE, MODEL, Skill
from arbiter.server.tournaments.leagues import Placement, boss_entrant, placements


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
    """Whether it is still paired: a ready version, a league's boss or a bot in the pool (a
    retired version, or a bot gone, keeps its line)."""
    league: str | None
    """Its league, if its game (or its author's class) has leagues; a boss has none."""

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
            "league": self.league,
        }


def unpaired(entrant: str) -> str:
    """What an entrant no longer paired is: a version `retired`, a connected bot `away` (a bot's
    name is its account's, with no `/`), a boss `retired` from its leagues."""
    return "away" if "/" not in entrant and ":" not in entrant else "retired"


@dataclass(frozen=True, slots=True)
class Played:
    """One game of an entrant's history: its change, and who it met."""

    change: RatingChange
    opponent: str


def table(stored: StoredLadder, active: Set[str], leagues: StoredLeagues) -> list[TableLine]:
    """The entrants best first: by `mu - 3 sigma`, then by name, so that ties read the same.
    A ready version (or boss) that has not played yet is there with the model's first guess."""
    last = {change.entrant: change for change in stored.changes}
    rated = {rating.entrant for rating in stored.ratings}
    fresh = [LadderRating(name, MODEL.mu, MODEL.sigma, 0) for name in active - rated]
    everyone = [*stored.ratings, *fresh]
    placed = placements({r.entrant: Skill(r.mu, r.sigma) for r in everyone}, leagues)
    ranked = sorted(everyone, key=lambda r: (-(r.mu - CONFIDENCE * r.sigma), r.entrant))
    return [
        TableLine(
            rank,
            r.entrant,
            r.mu,
            r.sigma,
            r.games,
            last.get(r.entrant),
            r.entrant in active,
            placed[r.entrant].league if r.entrant in placed else None,
        )
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


@dataclass(frozen=True, slots=True)
class Reading:
    """A ladder as stored, the entrants it pairs now, and its game's leagues."""

    scope: LadderScope
    stored: StoredLadder
    active: frozenset[str]
    """The ready versions (of the section's students, for a section's ladder), the bosses of
    its leagues, and the bots in its pool."""
    leagues: StoredLeagues

    def table(self) -> list[TableLine]:
        return table(self.stored, self.active, self.leagues)


async def read(storage: Storage, scope: LadderScope, pool: Set[str] = frozenset()) -> Reading:
    """The ladder of `scope` as the public sees it (`pool`: the bots in it now): a student whose
    class asked for pseudonyms under theirs."""
    reading = await _read(storage, scope, pool)
    shown = partial(public_entrant, reading.stored.pseudonyms)
    active = frozenset(map(shown, reading.active))
    return Reading(scope, _renamed(reading.stored, shown), active, reading.leagues)


async def _read(storage: Storage, scope: LadderScope, pool: Set[str] = frozenset()) -> Reading:
    """The stored ladder of `scope`, the entrants it pairs now, and its leagues, under real
    names."""
    game = scope.game
    stored = await storage.load_ladder(scope.key)
    members = await storage.ladder_members(scope)
    ready = await storage.submissions_with_status(SubmissionStatus.READY)
    leagues = await storage.load_leagues(game)
    versions = {
        pinned(row)
        for row in ready
        if row.game == game and (members is None or row.author in members)
    }
    bosses = {boss_entrant(agent) for agent in leagues.bosses_of(scope.class_name)}
    return Reading(scope, stored, frozenset(versions | bosses | pool), leagues)


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


async def read_placements(storage: Storage, game: str) -> dict[str, Placement]:
    """Each version's league and grade band in `game`'s ladder, by entrant (`ann/bot@v2`):
    what the course's grades export asks. Empty when the game has no leagues."""
    reading = await _read(storage, LadderScope(game))
    skills = {line.entrant: Skill(line.mu, line.sigma) for line in reading.table()}
    return placements(skills, reading.leagues)


def message(reading: Reading, running: bool) -> protocol.LadderTable:
    """The `ladder_table` answer: the best `MAX_LADDER_ENTRIES` lines."""
    lines = reading.table()[: protocol.MAX_LADDER_ENTRIES]
    return protocol.LadderTable(
        game=reading.scope.game,
        running=running,
        entries=[line.to_wire() for line in lines],
        section=reading.scope.section_label,
    )


class NoLadder(Refused):
    """A request for a ladder this server neither runs nor keeps, or named wrong."""


def scope_of(game: str, section: str | None) -> LadderScope:
    """The ladder a request names; `NoLadder` with the sentence for an unknown game or a
    section not written `CLASS/SECTION`."""
    if game not in {rules.name for rules in all_games()}:
        raise NoLadder(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}")
    try:
        return LadderScope.of(game, section)
    except LadderRefused as error:
        raise NoLadder(ErrorCode.BAD_FIELD, str(error)) from None


async def answer(
    storage: Storage, scope: LadderScope, running: bool, pool: Set[str] = frozenset()
) -> protocol.LadderTable:
    """The answer to `ladder`; `NoLadder` with the sentence for a ladder not kept here."""
    try:
        reading = await read(storage, scope, pool)
    except StoreError as error:
        raise NoLadder(
            ErrorCode.INTERNAL_ERROR, f"the ladder cannot be read now ({error}): try again later"
        ) from error
    except AccountError as error:  # a section's ladder of a class that is not there
        raise NoLadder(ErrorCode.UNKNOWN_TOURNAMENT, str(error)) from None
    if not running and not reading.stored.ratings:
        raise NoLadder(
            ErrorCode.UNKNOWN_TOURNAMENT, f"this server keeps no ladder of {scope.title}"
        )
    return message(reading, running)
