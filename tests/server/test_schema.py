"""Schema versions: a new store is made at the latest version, an older SQLite file is upgraded
in place after a backup beside it, and a store a later Arbiter wrote is refused in one sentence
by every command that opens it, on both backends. And `--db` naming PostgreSQL: a URL, or the
`ARBITER_DB` variable; a server that does not answer is one sentence too."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import psycopg
import pytest

from arbiter.server.storage import schema
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.postgres_database import POSTGRES
from arbiter.server.storage.sql_connection import SQLITE
from arbiter.server.storage.sqlite_database import SCHEMA, backup_path
from tests.conftest import BOTH_BACKENDS
from tests.postgres import Cluster
from tests.processes import CLI, ROOT, SERVER
from tests.server.test_storage import _rows

COMMANDS = [
    [*SERVER, "--port", "0", "--db", "DB"],
    [*SERVER, "admin", "--db", "DB", "list"],
    [*CLI, "export", "--db", "DB"],
    [*CLI, "tournament", "local", "kings-court", "random", "greedy", "--db", "DB"],
]
"""Every command that opens a store: the server, its admin, a reader, a local tournament."""


def run(command: list[str], db: Path | str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(db) if arg == "DB" else arg for arg in command],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, **env},
    )


def _version(db: Path | str) -> int:
    """The stamp, read without opening the store as Arbiter does (which may refuse it)."""
    if isinstance(db, Path):
        with closing(sqlite3.connect(db)) as file:
            return schema.stored_version(file, SQLITE)
    with psycopg.connect(db) as database:  # no parameters: psycopg runs our SQL as it is
        return schema.stored_version(database, POSTGRES)  # type: ignore[arg-type]


def _dump(file: Path) -> list[str]:
    """A SQLite file's tables, indexes and rows as SQL."""
    with closing(sqlite3.connect(file)) as reading:
        return list(reading.iterdump())


@BOTH_BACKENDS
def test_a_new_store_is_made_at_the_latest_version(db: Path | str) -> None:
    open_database(db).close()
    assert _version(db) == schema.VERSION
    assert _rows(db, f"SELECT version FROM {schema.STAMP}") == [(schema.VERSION,)]
    open_database(db).close()  # opened again as it is: one stamp
    assert _rows(db, f"SELECT count(*) FROM {schema.STAMP}") == [(1,)]


def test_an_older_file_is_backed_up_beside_itself_then_upgraded(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    with closing(sqlite3.connect(db)) as old:  # version 1: our tables, no stamp, one game
        old.executescript(SCHEMA)
        old.execute(f"DROP TABLE {schema.STAMP}")
        old.execute(
            "INSERT INTO matches (id, game, options, time_control, illegal, status, started_at)"
            " VALUES (7, 'kings-court', '{}', '{}', 'forfeit,forfeit', 'playing', 0)"
        )
        old.commit()
    before = _dump(db)
    listed = run([*SERVER, "admin", "--db", "DB", "list"], db)
    assert listed.returncode == 0, listed.stderr
    backup = backup_path(db, 1)
    assert backup.name == "arbiter.db.v1.bak"
    assert _dump(backup) == before, "the backup is the file as it was"
    assert backup.stat().st_mode & 0o777 == 0o600
    assert _version(db) == schema.VERSION
    assert _rows(db, "SELECT id, status FROM matches") == [(7, "playing")]
    indexes = _rows(db, "SELECT name FROM sqlite_master WHERE type = 'index'")
    assert ("matches_in_play",) in indexes
    with closing(sqlite3.connect(backup)) as copy:  # version 1 still, as the old Arbiter wrote it
        assert schema.stored_version(copy, SQLITE) == 1
        assert copy.execute("SELECT id FROM matches").fetchall() == [(7,)]


@BOTH_BACKENDS
@pytest.mark.parametrize("command", COMMANDS, ids=["server", "admin", "export", "local"])
def test_a_store_from_a_later_arbiter_is_refused_in_one_sentence(
    db: Path | str, command: list[str]
) -> None:
    open_database(db).close()
    with closing(open_database(db)) as connection:
        connection.execute(f"UPDATE {schema.STAMP} SET version = ?", (schema.VERSION + 1,))
    done = run(command, db)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "listening" not in done.stdout
    [line] = done.stderr.splitlines()
    assert line.endswith(
        f"was written by a later Arbiter (schema version {schema.VERSION + 1};"
        f" this one knows up to {schema.VERSION}): upgrade Arbiter to use it"
    )
    assert _version(db) == schema.VERSION + 1, "left as it was"


def test_a_postgres_database_of_another_program_is_refused_and_left_as_it_was(
    postgres_cluster: Cluster,
) -> None:
    url = postgres_cluster.database()
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    done = run([*SERVER, "admin", "--db", "DB", "list"], url)
    assert done.returncode == 1
    assert "not an Arbiter server's database: it holds other tables (notes)" in done.stderr
    with psycopg.connect(url) as other:
        tables = other.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
    assert tables == [("notes",)]


@pytest.mark.parametrize("command", COMMANDS, ids=["server", "admin", "export", "local"])
def test_a_postgres_server_that_does_not_answer_is_one_sentence(command: list[str]) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none"
    done = run(command, url)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert repr(url) in line
    assert "cannot connect" in line


@BOTH_BACKENDS
def test_arbiter_db_names_the_store_when_db_is_not_given(db: Path | str) -> None:
    added = run([*SERVER, "admin", "add", "alice"], "", ARBITER_DB=str(db))
    assert added.returncode == 0, added.stderr
    assert _rows(db, "SELECT name, role FROM accounts") == [("alice", "player")]
