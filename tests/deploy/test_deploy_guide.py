"""docs/deploy.md, run: each of its commands as written, against real servers on a SQLite file
and on a database of the throwaway PostgreSQL cluster (tests/deploy/guide.py). A term in
short: start, register players and re-issue a token, a game between two registered bots seen in
the lobby and the log, a backup while the server runs, a restore that a new server serves with
the same tokens, and an older file upgraded. Its `docker compose` commands are checked against
`compose config`, as no Docker engine runs here."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from arbiter.server.storage import schema
from arbiter.server.storage.sql_connection import SQLITE
from arbiter.server.storage.sqlite_database import SCHEMA, backup_path
from tests.deploy.compose import config
from tests.deploy.guide import Namespace, Reader, guide_commands, namespace
from tests.postgres import Cluster

USE_SQLITE = "export ARBITER_DB=class.db"
USE_POSTGRES = "export ARBITER_DB=postgresql://arbiter@db.example.org/arbiter"
START = "arbiter-server --host 0.0.0.0 --log-format json 2>> server.jsonl"
ADMIN = (
    "arbiter-server admin add north > north.token",
    "arbiter-server admin add south > south.token",
    "arbiter-server admin add judge --role admin > judge.token",
)
LIST = "arbiter-server admin list"
RENEW = "arbiter-server admin token south > south.token"
REMOVE = "arbiter-server admin remove judge"
BOTS = (
    "ARBITER_TOKEN=$(cat north.token) arbiter bot --server arbiter.example.org --game kings-court"
    " --agent greedy --name north",
    "ARBITER_TOKEN=$(cat south.token) arbiter bot --server arbiter.example.org --game kings-court"
    " --agent random --name south",
)
LOBBY = "arbiter lobby --server arbiter.example.org"
ENDED = """grep '"event": "match_ended"' server.jsonl"""
SQLITE_BACKUPS = (
    '(umask 077 && sqlite3 class.db ".backup class-backup.db")',
    "(umask 077 && python3 -c \"import sqlite3; sqlite3.connect('class.db')"
    ".backup(sqlite3.connect('class-backup.db'))\")",
)
SQLITE_RESTORE = (
    "cp class-backup.db restored.db",
    "arbiter-server --host 0.0.0.0 --db restored.db",
)
PG_DUMP = 'pg_dump --no-owner --file=class.sql "$ARBITER_DB"'
PG_RESTORE = (
    'psql "$ARBITER_DB" --command="CREATE DATABASE arbiter_restored"',
    "psql postgresql://arbiter@db.example.org/arbiter_restored --single-transaction"
    " --set=ON_ERROR_STOP=1 --file=class.sql",
    "arbiter-server --host 0.0.0.0 --db postgresql://arbiter@db.example.org/arbiter_restored",
)
VERSION = 'sqlite3 class.db "SELECT version FROM arbiter_schema"'
RUN = {
    USE_SQLITE,
    USE_POSTGRES,
    START,
    *ADMIN,
    LIST,
    RENEW,
    REMOVE,
    *BOTS,
    LOBBY,
    ENDED,
    *SQLITE_BACKUPS,
    *SQLITE_RESTORE,
    PG_DUMP,
    *PG_RESTORE,
    VERSION,
}
"""The guide's commands these tests run against real servers: every one but Docker's."""
DOCKER = "docker compose "
PASSWORD_FILE = (
    'echo "POSTGRES_PASSWORD=$(python3 -c'
    """ 'import secrets; print(secrets.token_hex(16))')" > .env"""
)


@pytest.fixture
def net() -> Iterator[Namespace]:
    with namespace() as held:
        yield held


@pytest.fixture
def reader(net: Namespace, tmp_path: Path) -> Iterator[Reader]:
    reading = Reader(net, tmp_path, {"arbiter.example.org": "127.0.0.1"})
    try:
        yield reading
    finally:
        reading.close()


def play_a_term(reader: Reader) -> subprocess.Popen[str]:
    """Start, players and tokens, a game seen in the lobby and the log: the same commands on
    either store. The server is left running: returned."""
    server = reader.serve(START)
    for command in ADMIN:
        reader.run(command)
    assert reader.run(LIST).split("\n") == ["judge\tadmin", "north\tplayer", "south\tplayer", ""]
    old = (reader.folder / "south.token").read_text()
    reader.run(RENEW)
    assert (reader.folder / "south.token").read_text() != old
    reader.run(REMOVE)
    assert "judge" not in reader.run(LIST)
    play_a_game(reader)
    assert "open seeks: 0" in reader.run(LOBBY)
    (line,) = reader.run(ENDED).splitlines()
    assert json.loads(line)["event"] == "match_ended"
    return server


def play_a_game(reader: Reader) -> None:
    """north seeks (the lobby shows it), south takes it; both with their tokens."""
    north = reader.start(BOTS[0])
    reader.until(LOBBY, "north", beside=north)
    south = reader.start(BOTS[1])
    for bot in (north, south):
        reader.finish(bot)


def finished_games(db: Path | str) -> int:
    query = "SELECT count(*) FROM matches WHERE status = 'finished'"
    if isinstance(db, Path):
        with closing(sqlite3.connect(db)) as file:
            return int(file.execute(query).fetchone()[0])
    with psycopg.connect(db) as database:
        row = database.execute(query).fetchone()
        assert row is not None
        return int(row[0])


@pytest.mark.long
def test_a_term_on_sqlite_backed_up_while_running_and_restored(reader: Reader) -> None:
    reader.export(USE_SQLITE)
    server = play_a_term(reader)
    backup = reader.folder / "class-backup.db"
    for command in SQLITE_BACKUPS:  # two ways, each a whole copy while the server runs
        backup.unlink(missing_ok=True)
        reader.run(command)
        assert backup.stat().st_mode & 0o777 == 0o600
        assert finished_games(backup) == 1
    reader.stop(server)
    reader.run(SQLITE_RESTORE[0])
    reader.serve(SQLITE_RESTORE[1])
    play_a_game(reader)  # the restored tokens let north and south in
    assert finished_games(reader.folder / "restored.db") == 2
    assert reader.run(VERSION) == f"{schema.VERSION}\n"


def test_an_older_file_is_backed_up_and_upgraded_as_the_server_starts(reader: Reader) -> None:
    db = reader.folder / "class.db"
    with closing(sqlite3.connect(db)) as old:  # version 1: our tables, no stamp
        old.executescript(SCHEMA)
        old.execute(f"DROP TABLE {schema.STAMP}")
    reader.export(USE_SQLITE)
    reader.stop(reader.serve(START))
    with closing(sqlite3.connect(backup_path(db, 1))) as kept:
        assert schema.stored_version(kept, SQLITE) == 1
    assert reader.run(VERSION) == f"{schema.VERSION}\n"


@pytest.mark.long
def test_a_term_on_postgresql_dumped_while_running_and_restored(
    reader: Reader, postgres_cluster: Cluster
) -> None:
    socket = quote(str(postgres_cluster.folder), safe="")
    ours = f"postgresql://arbiter@{socket}:{postgres_cluster.port}/"
    reader.places["postgresql://arbiter@db.example.org/"] = ours
    with psycopg.connect(postgres_cluster.url("postgres"), autocommit=True) as admin:
        admin.execute("CREATE DATABASE arbiter")
        try:
            reader.export(USE_POSTGRES)
            server = play_a_term(reader)
            reader.run(PG_DUMP)
            reader.stop(server)
            for command in PG_RESTORE[:2]:
                reader.run(command)
            reader.serve(PG_RESTORE[2])
            play_a_game(reader)
            assert finished_games(postgres_cluster.url("arbiter_restored")) == 2
            assert finished_games(postgres_cluster.url("arbiter")) == 1
        finally:
            reader.close()
            for name in ("arbiter", "arbiter_restored"):
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_every_command_of_the_guide_is_run_or_is_dockers() -> None:
    commands = set(guide_commands())
    docker = {command for command in commands if command.startswith(DOCKER)}
    assert commands - docker - {PASSWORD_FILE} == RUN


def test_the_guides_docker_commands_name_the_stacks_services(tmp_path: Path) -> None:
    subprocess.run(["sh", "-c", PASSWORD_FILE], cwd=tmp_path, check=True)
    name, password = (tmp_path / ".env").read_text().strip().split("=")
    services = config(**{name: password})["services"]
    assert password in services["server"]["environment"]["ARBITER_DB"]
    for command in guide_commands():
        words = command.removeprefix(DOCKER).split()
        if not command.startswith(DOCKER) or words[0] not in ("exec", "logs"):
            continue
        named = [word for word in words[1:] if not word.startswith("-")]
        assert named[0] in services, command
        if words[0] == "exec" and named[0] == "server":  # what the guide runs outside Docker
            assert " ".join(words[2:]) in RUN or _with_output(words[2:]), command


def _with_output(words: list[str]) -> bool:
    """Whether `words` is one of RUN's admin commands less its `> FILE`."""
    return any(command.startswith(" ".join(words) + " >") for command in RUN)
