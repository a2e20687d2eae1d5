"""The schema's text, its versions and the forward migrations between them: one for every engine.

A store carries the version of the schema it was written with (`arbiter_schema`, one row). A
new store is made at the latest version; an older one is brought up to it by the migrations in
order, in one transaction no other process can change the schema in; a newer one (written by a
later Arbiter) is refused, as this version cannot know what its tables mean. An Arbiter file from
before the stamp holds our tables and no version: it is version 1.

The text is SQL both engines run; the few column types they spell differently are the
dialect's (`server.storage.sql_connection.Dialect.types`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from arbiter.server.storage.errors import NewerSchema, NotArbiterFile
from arbiter.server.storage.sql_connection import Connection, Dialect, has_column, transaction

TABLES: Final = """
CREATE TABLE IF NOT EXISTS players (
    id {key},
    name TEXT NOT NULL UNIQUE,
    created_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id {key},
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: the resolved options, seeds included
    time_control TEXT NOT NULL,     -- JSON, as on the wire
    illegal TEXT NOT NULL,          -- per seat: 'forfeit,forfeit', 'retry,forfeit'...
    status TEXT NOT NULL,           -- 'playing', 'finished' or 'aborted' (a casual match
                                    -- in play when its server stopped: no result)
    started_at {real} NOT NULL,
    ended_at {real},
    result TEXT,                    -- 'win', 'draw', 'both_forfeit'
    winner TEXT,                    -- seat name, for 'win'
    reason TEXT,
    termination TEXT                -- games.Termination: 'rule', 'time', 'resignation'...
                                    -- (NULL while in play, and in a version 1 store's games)
);
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    seat TEXT NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    score {real},                   -- filled when the match ends
    PRIMARY KEY (match_id, seat_index)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,           -- 1 for the first move
    seat TEXT NOT NULL,
    move TEXT NOT NULL,
    elapsed {real} NOT NULL,        -- seconds from your_turn written to move received
    compensation {real} NOT NULL,   -- lag allowance granted (taken off elapsed)
    clock {real},                   -- the mover's game clock after the move, if it has one
    stored_at {real} NOT NULL,
    PRIMARY KEY (match_id, ply)
);
CREATE TABLE IF NOT EXISTS defaults (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- 'crash', 'illegal', 'time' or 'absent'
    PRIMARY KEY (match_id, seat_index)
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,          -- the name a hello must carry with its token
    role TEXT NOT NULL,             -- 'player', 'admin', 'local' (an agent we run), 'worker'
    salt {bytes} NOT NULL,
    token_hash {bytes} NOT NULL,    -- scrypt(token, salt): the token itself is never stored
    created_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id {key},
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON, as the director gave them (seeds drawn per game)
    time_control TEXT NOT NULL,     -- JSON, as on the wire
    rounds INTEGER NOT NULL,
    concurrency INTEGER NOT NULL,
    wait {real} NOT NULL,           -- seconds a due game waits for an absent player
    entrants TEXT NOT NULL,         -- JSON list of names, in seeding order
    local TEXT NOT NULL,            -- JSON map: entrant name -> the built-in agent it runs
    status TEXT NOT NULL,           -- 'created', 'running' or 'finished'
    created_by TEXT NOT NULL,
    created_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    number INTEGER NOT NULL,        -- 1, 2, ... in schedule order
    round INTEGER NOT NULL,
    first TEXT NOT NULL,            -- the entrant in seat 0
    second TEXT NOT NULL,
    match_id INTEGER UNIQUE REFERENCES matches(id),  -- set when the game begins
    PRIMARY KEY (tournament_id, number)
);
CREATE TABLE IF NOT EXISTS arbiter_schema (
    version INTEGER NOT NULL        -- the schema's version (schema.VERSION when written)
);
"""
"""Version 1: the tables as Arbiter wrote them before versions (the `{...}` are the dialect's
types), and the stamp's own table."""

COMMIT_LOG: Final = """
CREATE TABLE IF NOT EXISTS commit_log (
    batch BIGINT NOT NULL,          -- the number of the last group commit the commit process ran
    done INTEGER NOT NULL,          -- how many of its writes were committed or refused
    answers {bytes} NOT NULL        -- msgpack: their answers (sqlite_database.Answer)
)
"""
"""Version 3: one row, updated in the transaction of each group commit, so that a batch resent
after its commit process died is not committed twice, and the answers it got (the ids of new
matches) are read back (`server.storage.group_commit.commit_batch`)."""

SUBMISSIONS: Final = """
CREATE TABLE IF NOT EXISTS archives (
    hash TEXT PRIMARY KEY,          -- sha256 of content, lowercase hex
    content {bytes} NOT NULL,       -- protocol/submission.py's archive
    size INTEGER NOT NULL,
    created_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id {key},
    author TEXT NOT NULL,           -- the account that uploaded it
    game TEXT NOT NULL,
    name TEXT NOT NULL,             -- the agent's name, one game's per author
    version INTEGER NOT NULL,       -- 1, 2, ... per author and name
    form TEXT NOT NULL,             -- 'module', 'player' or 'program'
    language TEXT NOT NULL,         -- 'python', 'node', 'c', 'cpp'
    manifest TEXT NOT NULL,         -- JSON: the archive's manifest
    hash TEXT NOT NULL REFERENCES archives(hash),
    size INTEGER NOT NULL,
    status TEXT NOT NULL,           -- 'validating', 'ready', 'failed' or 'retired'
    created_at {real} NOT NULL,
    validation_log TEXT,            -- what the validation game said, once it has run
    UNIQUE (author, name, version)
)
"""
"""Version 4: agents uploaded for the server to run; an archive is stored once however many
versions (of however many authors) hold the same bytes."""

SEAT_LOGS: Final = """
CREATE TABLE IF NOT EXISTS seat_logs (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    author TEXT,                    -- whose submission played the seat (NULL: a built-in agent)
    log TEXT NOT NULL,              -- the end of its stderr, at most protocol.MAX_HOSTED_LOG
    PRIMARY KEY (match_id, seat_index)
)
"""
"""Version 6: what each hosted seat printed on stderr, for its author (`storage.seat_logs`)."""

CLASSES: Final = """
CREATE TABLE IF NOT EXISTS classes (
    name TEXT PRIMARY KEY,
    deadline {real},                -- seconds since the epoch after which its students upload
                                    -- no new version (NULL: no deadline set)
    created_at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS students (
    account TEXT PRIMARY KEY,       -- the student's account (accounts.name): one class each
    class TEXT NOT NULL REFERENCES classes(name),
    student_id TEXT NOT NULL,       -- the school's id, as the roster gave it
    section TEXT NOT NULL,
    UNIQUE (class, student_id)
)
"""
"""Version 7: classes, their students and their submission deadlines (`storage.classes`)."""

LADDERS: Final = """
CREATE TABLE IF NOT EXISTS ladder_ratings (
    game TEXT NOT NULL,
    entrant TEXT NOT NULL,          -- a submission's version: author/name@vN
    mu {real} NOT NULL,             -- OpenSkill's rating and its uncertainty, as its latest
    sigma {real} NOT NULL,          -- game left them
    games INTEGER NOT NULL,
    PRIMARY KEY (game, entrant)
);
CREATE TABLE IF NOT EXISTS ladder_changes (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat_index INTEGER NOT NULL,
    game TEXT NOT NULL,
    entrant TEXT NOT NULL,
    score {real} NOT NULL,          -- 1, 0.5 or 0
    mu_before {real} NOT NULL,
    sigma_before {real} NOT NULL,
    mu_after {real} NOT NULL,
    sigma_after {real} NOT NULL,
    began_at {real} NOT NULL,       -- seconds since the epoch: the cap on games an hour counts it
    PRIMARY KEY (match_id, seat_index)
)
"""
"""Version 8: the server's ladders (`storage.ladder_rows`): each entrant's rating, and each game's
change to it, its history."""

LEAGUES: Final = """
CREATE TABLE IF NOT EXISTS leagues (
    game TEXT NOT NULL,
    class TEXT NOT NULL,            -- a class with leagues of its own, or '' for everyone else
    position INTEGER NOT NULL,      -- 0 the lowest league
    name TEXT NOT NULL,
    boss TEXT NOT NULL,             -- the built-in agent that gates it
    band TEXT NOT NULL,             -- the grade band it stands for in the course's export
    confidence {real} NOT NULL,     -- the same on every league of a set
    PRIMARY KEY (game, class, position)
)
"""
"""Version 11: each game's leagues, gated by boss bots (`storage.leagues`)."""

FINALS: Final = """
CREATE TABLE IF NOT EXISTS class_finals (
    class TEXT NOT NULL REFERENCES classes(name),
    game TEXT NOT NULL,
    tournament TEXT NOT NULL,       -- tournaments.name: the frozen versions' tournament
    PRIMARY KEY (class, game)
)
"""
"""Version 10: each class's finals (`storage.finals`); the classes' pseudonym settings are two
columns added to `classes`."""

OUR_TABLES: Final = frozenset(
    re.findall(
        r"CREATE TABLE IF NOT EXISTS (\w+)",
        TABLES + COMMIT_LOG + SUBMISSIONS + SEAT_LOGS + CLASSES + LADDERS + FINALS + LEAGUES,
    )
)
STAMP: Final = "arbiter_schema"


def schema(dialect: Dialect) -> str:
    """Version 1's tables in the dialect's types."""
    return TABLES.format(**dialect.types)


def _version_2(db: Connection, dialect: Dialect) -> None:
    """An index of the matches in play: a server's start (`abort_casual_matches`) and its
    lobby look for them among every match a term has stored. And the `termination` column,
    for a file from before it (stamped as version 1, as every unstamped file is)."""
    if not has_column(db, "matches", "termination"):
        db.execute("ALTER TABLE matches ADD COLUMN termination TEXT")
    db.execute(
        "CREATE INDEX IF NOT EXISTS matches_in_play ON matches (id) WHERE status = 'playing'"
    )


def _version_3(db: Connection, dialect: Dialect) -> None:
    """The commit log (`COMMIT_LOG`), with its one row: batch 0, of no writes."""
    db.execute(COMMIT_LOG.format(**dialect.types))
    db.execute("INSERT INTO commit_log (batch, done, answers) VALUES (0, 0, ?)", (EMPTY_ANSWERS,))


def _version_4(db: Connection, dialect: Dialect) -> None:
    """The submissions and their archives (`SUBMISSIONS`)."""
    for statement in SUBMISSIONS.format(**dialect.types).split(";"):
        db.execute(statement)
    db.execute("CREATE INDEX IF NOT EXISTS submissions_by_hash ON submissions (hash)")


def _version_5(db: Connection, dialect: Dialect) -> None:
    """The clocks of hosted seats: each move's CPU seconds beside its wall time (NULL for a
    seat on the wall clock), and which clock judged each seat of a match ('wall' for every
    seat stored before)."""
    db.execute(f"ALTER TABLE moves ADD COLUMN cpu {dialect.types['real']}")
    db.execute("ALTER TABLE results ADD COLUMN clock TEXT NOT NULL DEFAULT 'wall'")


def _version_6(db: Connection, dialect: Dialect) -> None:
    """The hosted seats' logs (`SEAT_LOGS`)."""
    db.execute(SEAT_LOGS.format(**dialect.types))


def _version_7(db: Connection, dialect: Dialect) -> None:
    """The classes and their students (`CLASSES`)."""
    for statement in CLASSES.format(**dialect.types).split(";"):
        db.execute(statement)


def _version_8(db: Connection, dialect: Dialect) -> None:
    """The ladders' ratings and their changes (`LADDERS`), the changes indexed by game."""
    for statement in LADDERS.format(**dialect.types).split(";"):
        db.execute(statement)
    db.execute(
        "CREATE INDEX IF NOT EXISTS ladder_changes_by_game ON ladder_changes (game, match_id)"
    )


def _version_9(db: Connection, dialect: Dialect) -> None:
    """Each tournament's format (`server.tournaments.formats`): every tournament stored
    before it is a double round robin."""
    db.execute("ALTER TABLE tournaments ADD COLUMN format TEXT NOT NULL DEFAULT 'round-robin'")


def _version_10(db: Connection, dialect: Dialect) -> None:
    """The classes' finals (`FINALS`), and per class whether its public standings show
    pseudonyms and the key they are made with (`storage.finals`)."""
    db.execute(FINALS.format(**dialect.types))
    db.execute("ALTER TABLE classes ADD COLUMN pseudonyms INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE classes ADD COLUMN pseudonym_key TEXT")


def _version_11(db: Connection, dialect: Dialect) -> None:
    """The leagues (`LEAGUES`)."""
    db.execute(LEAGUES.format(**dialect.types))


def _version_12(db: Connection, dialect: Dialect) -> None:
    """The terms of a match's SPRT (`server.tournaments.paired_match`), as JSON; null for a
    fixed match and every other format."""
    db.execute("ALTER TABLE tournaments ADD COLUMN sprt TEXT")


EMPTY_ANSWERS: Final = b"\x90"
"""msgpack's empty array: the answers of batch 0."""

MIGRATIONS: Final[dict[int, Callable[[Connection, Dialect], None]]] = {
    2: _version_2,
    3: _version_3,
    4: _version_4,
    5: _version_5,
    6: _version_6,
    7: _version_7,
    8: _version_8,
    9: _version_9,
    10: _version_10,
    11: _version_11,
    12: _version_12,
}
"""What brings a store from the version before each one to it."""
VERSION: Final = max(MIGRATIONS)
"""The version this Arbiter writes."""


def refuse_foreign(db: Connection, dialect: Dialect) -> None:
    """`NotArbiterFile` if the store holds tables that are not ours."""
    others = sorted({name for (name,) in db.execute(dialect.tables)} - OUR_TABLES)
    if others:
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        raise NotArbiterFile(
            f"not an Arbiter server's {dialect.store}: it holds other tables ({shown})"
        )


def stored_version(db: Connection, dialect: Dialect) -> int:
    """The store's schema version: 0 for an empty store, 1 for our tables without a stamp."""
    tables = {name for (name,) in db.execute(dialect.tables)}
    if STAMP in tables:
        row = db.execute(f"SELECT version FROM {STAMP}").fetchone()
        if row is not None:
            return int(row[0])
    return 1 if tables & OUR_TABLES else 0


def prepare(db: Connection, dialect: Dialect) -> None:
    """Make the store's schema the latest: create it in an empty store, or run the migrations
    an older one lacks (a SQLite file is backed up first: `sqlite_database.open_sqlite`;
    PostgreSQL's migrations are one transaction, and its backups `pg_dump`'s).

    `NotArbiterFile` if the store holds another program's tables and no stamp of ours;
    `NewerSchema` if a later Arbiter wrote it. Either way nothing is written to it.
    """
    found = stored_version(db, dialect)
    if found == VERSION:
        return
    _check(db, dialect, found)
    with transaction(db, *dialect.begin_exclusive):
        found = stored_version(db, dialect)  # again, now that no one else can change it
        _check(db, dialect, found)
        if found < VERSION:
            _upgrade(db, dialect, found)


def refuse_newer(db: Connection, dialect: Dialect, found: int | None = None) -> None:
    """`NewerSchema` if a later Arbiter wrote the store: what reading it needs (a read-only
    connection upgrades nothing, and reads an older store as it is)."""
    found = stored_version(db, dialect) if found is None else found
    if found > VERSION:
        raise NewerSchema(
            f"this {dialect.store} was written by a later Arbiter (schema version {found};"
            f" this one knows up to {VERSION}): upgrade Arbiter to use it"
        )


def _check(db: Connection, dialect: Dialect, found: int) -> None:
    refuse_newer(db, dialect, found)
    if found <= 1:  # no stamp of ours: another program's tables beside ours are a wrong --db
        refuse_foreign(db, dialect)


def _upgrade(db: Connection, dialect: Dialect, found: int) -> None:
    for statement in schema(dialect).split(";"):
        if statement.strip():
            db.execute(statement)  # IF NOT EXISTS: a no-op for a version 1 store's tables
    for version in range(max(found, 1) + 1, VERSION + 1):
        MIGRATIONS[version](db, dialect)
    db.execute(f"DELETE FROM {STAMP}")
    db.execute(f"INSERT INTO {STAMP} (version) VALUES (?)", (VERSION,))
