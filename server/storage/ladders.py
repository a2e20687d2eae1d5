"""The ladders a server runs, as stored: each one's scope and terms, and whether it runs.

`arbiter-server admin ladder start` and `stop` write here beside a running server, which looks
again every few seconds (`tournaments.ladder_keeper`), and a restarted server starts every
ladder stored as running again; the `--ladder` flags are that same start, made by the server as
it starts. So what runs is always what the store says.

A ladder's key is its game's name, or `GAME@CLASS/SECTION` for the ladder of one section of a
class. The key is what its ratings and changes are stored under (`ladder_rows`), so a section's
ladder has its own table and its own ratings beside the game's. No trio: the server runs these
on its storage thread.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arbiter.protocol import TimeControl
from arbiter.server.storage import classes
from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.sql_connection import Connection, rows_as, write_transaction

DEFAULT_CONTROL = TimeControl.parse("move=1")
"""A ladder plays many games, each seat on a worker's CPU clock: a second a move."""
DEFAULT_WAIT = 60.0
"""Seconds a ladder game waits for both seats: a worker starting a sandboxed agent."""


class LadderRefused(AccountError):
    """A ladder that cannot be started, stopped, scoped or joined: the sentence says why."""


@dataclass(frozen=True, slots=True)
class LadderScope:
    """Which ladder: a game's own, or the one of a class's section."""

    game: str
    class_name: str | None = None
    section: str | None = None

    @property
    def key(self) -> str:
        """What its ratings are stored under: `GAME` or `GAME@CLASS/SECTION`."""
        label = self.section_label
        return self.game if label is None else f"{self.game}@{label}"

    @property
    def section_label(self) -> str | None:
        """`CLASS/SECTION`, as the commands and the protocol write it; None for a game's own."""
        return None if self.class_name is None else f"{self.class_name}/{self.section}"

    @property
    def title(self) -> str:
        """`GAME`, or `GAME in section CLASS/SECTION`: how a sentence names it."""
        label = self.section_label
        return self.game if label is None else f"{self.game} in section {label}"

    @classmethod
    def of(cls, game: str, section: str | None) -> LadderScope:
        """The scope `--section CLASS/SECTION` (or none) names; `LadderRefused` if it is not
        written so."""
        if section is None:
            return cls(game)
        class_name, slash, name = section.partition("/")
        if not slash or not class_name or not name:
            raise LadderRefused(f"a section is written CLASS/SECTION, not {section!r}")
        return cls(game, class_name, name)


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """A ladder's scope and terms: its game, time control, options, cap of games an hour per
    entrant, games at once, and how long a game waits for its seats."""

    game: str
    control: TimeControl = DEFAULT_CONTROL
    options: dict[str, Any] = field(default_factory=dict)
    """The options of every game (a seed left unset is drawn afresh for each)."""
    per_hour: int | None = None
    concurrency: int = 1
    wait: float = DEFAULT_WAIT
    """Seconds a game waits for both seats to seek; then the absent side loses by default."""
    class_name: str | None = None
    section: str | None = None
    """With `class_name`: only this section's students play, on a table of their own."""

    @property
    def scope(self) -> LadderScope:
        return LadderScope(self.game, self.class_name, self.section)


@dataclass(frozen=True, slots=True)
class _Row:
    game: str
    class_name: str | None
    section: str | None
    time_control: str
    options: str
    per_hour: int | None
    concurrency: int
    wait: float
    running: int

    def settings(self) -> LadderSettings:
        return LadderSettings(
            self.game,
            TimeControl.from_wire(json.loads(self.time_control)),
            json.loads(self.options),
            self.per_hour,
            self.concurrency,
            self.wait,
            self.class_name,
            self.section,
        )


_COLUMNS = (
    "game, class AS class_name, section, time_control, options, per_hour, concurrency, wait,"
    " running"
)


def start(db: Connection, settings: LadderSettings) -> None:
    """Store the ladder as running on `settings`; `LadderRefused` if it runs already or its
    section is not one of its class's."""
    key = settings.scope.key
    with write_transaction(db):
        check_scope(db, settings.scope)
        if key in {one.scope.key for one in _read(db, running_only=True)}:
            raise LadderRefused(
                f"the ladder of {settings.scope.title} is running already: stop it first to"
                " change its terms"
            )
        _write(db, settings)


def keep_running(db: Connection, settings: LadderSettings) -> None:
    """Store the ladder as running on `settings`, whether it ran or not (the `--ladder` flags:
    the terms a server is started with are the ones it plays)."""
    with write_transaction(db):
        check_scope(db, settings.scope)
        _write(db, settings)


def stop(db: Connection, scope: LadderScope) -> None:
    """Store the ladder as stopped (its ratings stay); `LadderRefused` if it is not running."""
    with write_transaction(db):
        running = sorted(one.scope.key for one in _read(db, running_only=True))
        if scope.key not in running:
            which = ", ".join(running) if running else "none"
            raise LadderRefused(f"the ladder of {scope.title} is not running (running: {which})")
        db.execute("UPDATE ladders SET running = 0 WHERE ladder = ?", (scope.key,))


def running(db: Connection) -> list[LadderSettings]:
    """The ladders stored as running, by key."""
    return _read(db, running_only=True)


def listing(db: Connection) -> list[tuple[LadderSettings, bool]]:
    """Every ladder ever started, by key, and whether it runs."""
    rows = rows_as(_Row, db.execute(f"SELECT {_COLUMNS} FROM ladders ORDER BY ladder"))
    return [(row.settings(), bool(row.running)) for row in rows]


def members(db: Connection, scope: LadderScope) -> frozenset[str] | None:
    """The accounts that may play in the ladder: its section's students; None (everyone) for a
    game's own ladder."""
    if scope.class_name is None:
        return None
    return frozenset(
        student.account for student in classes.listing(db, scope.class_name, scope.section)
    )


def check_scope(db: Connection, scope: LadderScope) -> None:
    """`LadderRefused` naming the class's sections if `scope` names a section it does not have
    (`AccountError` naming the classes if there is no such class)."""
    if scope.class_name is None:
        return
    sections = {student.section for student in classes.listing(db, scope.class_name)}
    if scope.section not in sections:
        known = ", ".join(sorted(sections)) or "none"
        raise LadderRefused(
            f"the class {scope.class_name} has no section {scope.section!r} (sections: {known})"
        )


def _read(db: Connection, running_only: bool) -> list[LadderSettings]:
    where = " WHERE running = 1" if running_only else ""
    rows = rows_as(_Row, db.execute(f"SELECT {_COLUMNS} FROM ladders{where} ORDER BY ladder"))
    return [row.settings() for row in rows]


def _write(db: Connection, settings: LadderSettings) -> None:
    scope = settings.scope
    db.execute(
        "INSERT INTO ladders (ladder, game, class, section, time_control, options, per_hour,"
        " concurrency, wait, running) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)"
        " ON CONFLICT (ladder) DO UPDATE SET time_control = excluded.time_control,"
        " options = excluded.options, per_hour = excluded.per_hour,"
        " concurrency = excluded.concurrency, wait = excluded.wait, running = 1",
        (
            scope.key,
            settings.game,
            settings.class_name,
            settings.section,
            json.dumps(settings.control.to_wire()),
            json.dumps(settings.options),
            settings.per_hour,
            settings.concurrency,
            settings.wait,
        ),
    )
