"""A game's leagues as stored: per game, and per class where a class has leagues of its own,
each league's name, boss and grade band, lowest first, with the confidence a promotion needs.

A set of leagues is replaced whole in one transaction (`store`): a half-written set would gate
entrants by bosses the instructor never asked for. What makes a set acceptable (bosses in
order, known agents, distinct names, a confidence in range) is the tournaments' business
(`tournaments.leagues.checked`): this module stores what it is given. No trio: the server runs
these on its storage thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.server.storage import classes
from arbiter.server.storage.sql_connection import Connection, rows_as, write_transaction

NO_CLASS = ""
"""The class of the leagues every entrant not in a class with leagues of its own plays in."""


@dataclass(frozen=True, slots=True)
class League:
    """One league: its name, the built-in agent that gates it, and the grade band it stands for."""

    name: str
    boss: str
    band: str


@dataclass(frozen=True, slots=True)
class LeagueSet:
    """A game's leagues (of one class, or of `NO_CLASS`), lowest first."""

    game: str
    class_name: str
    leagues: tuple[League, ...]
    confidence: float
    """How sure the ratings must be that an entrant beats a boss to pass it (0.5 to 1)."""


@dataclass(frozen=True, slots=True)
class StoredLeagues:
    """A game's league sets, by class, and the class of each student of those classes."""

    sets: dict[str, LeagueSet]
    classes: dict[str, str]
    """Each student's account and its class, for the classes with leagues of their own."""

    def of(self, author: str) -> LeagueSet | None:
        """The leagues `author`'s versions play in: its class's, else the game's own."""
        return self.sets.get(self.classes.get(author, NO_CLASS), self.sets.get(NO_CLASS))

    @property
    def bosses(self) -> list[str]:
        """Every boss of the game's league sets, once each."""
        found = (league.boss for one in self.sets.values() for league in one.leagues)
        return list(dict.fromkeys(found))

    def bosses_of(self, class_name: str | None) -> list[str]:
        """The bosses a ladder plays: a game's own ladder every set's; a class's section's
        ladder its class's set's, else everyone's (the leagues its students play in)."""
        if class_name is None:
            return self.bosses
        one = self.sets.get(class_name, self.sets.get(NO_CLASS))
        return [] if one is None else [league.boss for league in one.leagues]


@dataclass(frozen=True, slots=True)
class _LeagueRow:
    class_name: str
    name: str
    boss: str
    band: str
    confidence: float


def store(db: Connection, leagues: LeagueSet) -> None:
    """Replace the game's leagues of that class with `leagues`, at once."""
    with write_transaction(db):
        if leagues.class_name != NO_CLASS:
            classes.refuse_unknown(db, leagues.class_name)
        where = (leagues.game, leagues.class_name)
        db.execute("DELETE FROM leagues WHERE game = ? AND class = ?", where)
        for position, league in enumerate(leagues.leagues):
            db.execute(
                "INSERT INTO leagues (game, class, position, name, boss, band, confidence)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*where, position, league.name, league.boss, league.band, leagues.confidence),
            )


def load(db: Connection, game: str) -> StoredLeagues:
    """`game`'s league sets and the students of the classes that have one."""
    rows = rows_as(
        _LeagueRow,
        db.execute(
            "SELECT class AS class_name, name, boss, band, confidence FROM leagues"
            " WHERE game = ? ORDER BY class, position",
            (game,),
        ),
    )
    sets: dict[str, LeagueSet] = {}
    for row in rows:
        known = sets.get(row.class_name, LeagueSet(game, row.class_name, (), row.confidence))
        added = (*known.leagues, League(row.name, row.boss, row.band))
        sets[row.class_name] = LeagueSet(game, row.class_name, added, row.confidence)
    students = db.execute(
        "SELECT account, class FROM students WHERE class IN"
        " (SELECT DISTINCT class FROM leagues WHERE game = ?)",
        (game,),
    )
    return StoredLeagues(sets, {str(account): str(name) for account, name in students})
