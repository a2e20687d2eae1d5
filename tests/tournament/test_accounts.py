"""Registered names and their tokens: stored hashed, checked on `hello`, needed for a seat. On
both backends."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.client.tournament import request
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.sql_connection import Connection
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.e2e.helpers import seek, until
from tests.tournament.helpers import HOST, create, director, register, status

ROOT = Path(__file__).resolve().parents[2]
ADMIN = [sys.executable, "-m", "arbiter.server", "admin"]

pytestmark = BOTH_BACKENDS


@pytest.fixture
def store(db: Path | str) -> Iterator[Connection]:
    """The test's store, opened as the admin command opens it."""
    with closing(open_database(db)) as connection:
        yield connection


def verify(db: Connection, name: str, token: str) -> accounts.Account | None:
    """What the lobby does with a hello's name and token (in two steps, the hash on a thread)."""
    return accounts.check_token(accounts.credentials(db, name), token)


def test_a_token_is_stored_only_as_a_salted_hash(store: Connection) -> None:
    db = store
    token = accounts.create(db, "alice")
    other = accounts.create(db, "bob")
    rows = db.execute("SELECT name, salt, token_hash FROM accounts ORDER BY name").fetchall()
    assert token.encode() not in b"".join(salt + digest for _, salt, digest in rows)
    assert rows[0][1] != rows[1][1], "every account has its own salt"
    assert verify(db, "alice", token) == accounts.Account("alice", "player")
    assert verify(db, "alice", other) is None
    assert verify(db, "carol", token) is None


def test_renewing_a_token_revokes_the_old_one(store: Connection) -> None:
    db = store
    old = accounts.create(db, "alice", "admin")
    new = accounts.renew(db, "alice")
    assert verify(db, "alice", old) is None
    assert verify(db, "alice", new) == accounts.Account("alice", "admin")


@pytest.mark.parametrize("name", ["", "a b", "-dash", "x" * 65, "名前"])
def test_account_names_are_plain_identifiers(store: Connection, name: str) -> None:
    with pytest.raises(accounts.AccountError, match="cannot be an account name"):
        accounts.create(store, name)


def test_a_built_in_agent_never_takes_over_a_players_name(store: Connection) -> None:
    db = store
    accounts.create(db, "greedy")
    with pytest.raises(accounts.AccountError, match="registered player"):
        accounts.issue_local(db, "greedy")
    first = accounts.issue_local(db, "random")
    second = accounts.issue_local(db, "random")
    assert verify(db, "random", first) is None
    assert verify(db, "random", second) == accounts.Account("random", "local")


@pytest.mark.long
def test_the_admin_command_adds_lists_renews_and_removes(db: Path | str) -> None:
    def verify_in_store(name: str, token: str) -> accounts.Account | None:
        with closing(open_database(db)) as store:
            return verify(store, name, token)

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*ADMIN, "--db", str(db), *args], capture_output=True, text=True, cwd=ROOT, timeout=30
        )

    added = admin("add", "alice")
    assert added.returncode == 0
    assert "shown this once" in added.stderr
    token = added.stdout.strip()
    assert verify_in_store("alice", token) is not None
    assert admin("add", "boss", "--role", "admin").returncode == 0
    assert admin("list").stdout == "alice\tplayer\nboss\tadmin\n"
    again = admin("add", "alice")
    assert again.returncode == 1
    assert "registered already" in again.stderr
    renewed = admin("token", "alice").stdout.strip()
    assert verify_in_store("alice", token) is None
    assert verify_in_store("alice", renewed) is not None
    assert admin("remove", "alice").returncode == 0
    assert admin("list").stdout == "boss\tadmin\n"


# -- over the wire ----------------------------------------------------------------------------


async def refused(port: int, name: str, token: str | None) -> str:
    with pytest.raises(ServerError) as caught:
        await ClientConnection.open(HOST, port, name, token)
    assert caught.value.code == "bad_name"
    return caught.value.message


async def test_nobody_plays_under_a_registered_name_without_its_token(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "alice", "bob")
    assert "say hello with its token" in await refused(server.port, "alice", None)
    assert "wrong token" in await refused(server.port, "alice", tokens["bob"])
    assert "wrong token" in await refused(server.port, "carol", tokens["alice"])
    async with await ClientConnection.open(HOST, server.port, "alice", tokens["alice"]):
        pass


async def test_casual_seeks_still_work_without_a_token_and_for_registered_players(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "alice")
    async with (
        await ClientConnection.open(HOST, server.port, "alice", tokens["alice"]) as alice,
        await ClientConnection.open(HOST, server.port, "guest") as guest,
    ):
        assert isinstance(await seek(alice), protocol.Seeking)
        started = await seek(guest)
        assert isinstance(started, protocol.MatchStarted)
        assert started.players == ["alice", "guest"]
        await until(alice, protocol.MatchStarted)


async def test_only_an_admin_creates_or_starts_a_tournament_but_anyone_reads_it(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "alice", "bob")
    async with await ClientConnection.open(HOST, server.port, "alice", tokens["alice"]) as alice:
        for message in (
            protocol.TournamentCreate(name="cup", game="kings-court", players=["alice", "bob"]),
            protocol.TournamentStart(tournament="cup"),
        ):
            with pytest.raises(ServerError) as caught:
                await request(alice, message)
            assert caught.value.code == "not_allowed"
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["alice", "bob"])
    async with await ClientConnection.open(HOST, server.port, "guest") as guest:
        seen = await status(guest)
        assert (seen.name, seen.status, seen.entrants) == ("cup", "created", ["alice", "bob"])


@pytest.mark.parametrize(
    ("fields", "code", "words"),
    [
        ({"players": ["alice", "nobody"]}, "bad_tournament", "'nobody' is not a registered"),
        ({"players": ["alice"]}, "bad_tournament", "two entrants or more"),
        ({"players": ["alice", "bob"], "rounds": 0}, "bad_tournament", "rounds must be"),
        ({"players": ["alice"], "local": ["oracle"]}, "bad_tournament", "no built-in agent"),
        ({"players": ["alice"], "local": ["greedy"]}, "bad_tournament", "registered player's"),
        ({"players": ["alice"], "local": ["my_agent.py"]}, "bad_tournament", "no built-in agent"),
        ({"players": ["alice"], "local": ["cmd=sh -c 'exit 1'"]}, "bad_tournament", "no built-in"),
        ({"players": ["alice", "bob"], "game": "chess"}, "unknown_game", "chess"),
        ({"players": ["alice", "bob"], "options": {"size": 3}}, "bad_option", "size"),
        ({"players": ["alice", "bob"], "time": {"move": 0}}, "bad_time_control", "move"),
    ],
)
async def test_a_tournament_the_server_cannot_run_is_refused_with_a_reason(
    server: RunningServer, fields: dict, code: str, words: str
) -> None:
    register(server.db, "alice", "bob", "local-greedy")
    async with await director(server.port, server.db) as boss:
        with pytest.raises(ServerError) as caught:
            await create(boss, **fields)
    assert caught.value.code == code
    assert words in caught.value.message


async def test_a_name_is_taken_once_and_a_tournament_starts_once(server: RunningServer) -> None:
    register(server.db, "alice", "bob")
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["alice", "bob"])
        with pytest.raises(ServerError, match="there is a tournament 'cup' already"):
            await create(boss, players=["alice", "bob"])
        await request(boss, protocol.TournamentStart(tournament="cup"))
        with pytest.raises(ServerError, match="is running already"):
            await request(boss, protocol.TournamentStart(tournament="cup"))
        with pytest.raises(ServerError) as caught:
            await status(boss, "plate")
        assert caught.value.code == "unknown_tournament"


async def test_a_built_in_agent_beside_a_player_of_its_seat_name_is_numbered(
    server: RunningServer,
) -> None:
    register(server.db, "local-greedy", "bob")
    async with await director(server.port, server.db) as boss:
        created = await create(boss, players=["local-greedy", "bob"], local=["greedy", "random"])
    assert created.entrants == ["local-greedy", "bob", "local-greedy-2", "local-random"]
    assert created.local == ["local-greedy-2", "local-random"]
    assert len(created.games) == 12
