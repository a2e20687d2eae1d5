"""A ladder's table: each entrant's skill and games, and the games played, in order; pure.

A ladder is a table that every finished game updates (`record`), read at any moment (`table`)
and paired from (`ladder_pairing.pairings`). Nothing here reads a clock: each game is recorded
with the time it began on the caller's clock, which is all the cap on games an hour needs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from arbiter.server.tournaments.ladder_ratings import Skill, rated
from arbiter.server.tournaments.standings import GameResult


class LadderError(ValueError):
    """A ladder asked to hold what it cannot: the sentence says what."""


@dataclass(frozen=True, slots=True)
class LadderGame:
    """A finished game of the ladder, and when it began (seconds, the caller's clock)."""

    result: GameResult
    began: float


@dataclass(slots=True)
class Entry:
    """One entrant's line of the table."""

    name: str
    skill: Skill = field(default_factory=Skill)
    games: int = 0


class Ladder:
    """The entrants' skills and the games played; ranked by the conservative `ordinal`."""

    def __init__(self, entrants: Iterable[str]) -> None:
        names = list(entrants)
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise LadderError(f"an entrant may be entered once: {', '.join(repeated)} repeated")
        self.entries = {name: Entry(name) for name in names}
        self.games: list[LadderGame] = []

    def record(self, result: GameResult, began: float) -> None:
        """Take in a finished game: both skills move (if it is rated) and both count it."""
        for player in result.players:
            if player not in self.entries:
                raise LadderError(f"{player!r} is not an entrant of this ladder")
        if result.first == result.second:
            raise LadderError(f"{result.first!r} cannot play itself")
        first, second = self.entries[result.first], self.entries[result.second]
        first.skill, second.skill = rated(first.skill, second.skill, result)
        first.games += 1
        second.games += 1
        self.games.append(LadderGame(result, began))

    def table(self) -> list[Entry]:
        """The entries, best first: by `ordinal`, then by name so that ties read the same."""
        return sorted(self.entries.values(), key=lambda entry: (-entry.skill.ordinal, entry.name))


def kendall_tau(ranking: list[str], expected: list[str]) -> float:
    """How far two orders of the same entrants agree: 1 when every pair is in the same order,
    -1 when every pair is reversed (Kendall's tau, which has no ties to correct for here)."""
    if sorted(ranking) != sorted(expected) or len(set(ranking)) != len(ranking):
        raise LadderError(f"cannot compare the orders {ranking} and {expected}: not the same names")
    place = {name: index for index, name in enumerate(ranking)}
    pairs = list(itertools.combinations(expected, 2))
    if not pairs:
        return 1.0
    agreeing = sum(1 if place[a] < place[b] else -1 for a, b in pairs)
    return agreeing / len(pairs)
