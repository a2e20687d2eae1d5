"""A registered name is reserved against its lookalikes: case, width, spaces, accents and other
scripts' letters that pass for Latin ones (`accounts.name_key`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.client.connection import ClientConnection, ServerError
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_database
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.tournament.helpers import HOST, create, director, register

ROOT = Path(__file__).resolve().parents[2]
ADMIN = [sys.executable, "-m", "arbiter.server", "admin"]

LOOKALIKES = [
    "North",
    "north ",
    "NORTH",
    "n\u043erth",  # a Cyrillic o
    "N\u041eR\u0422\u041d",  # Cyrillic capitals O, T, H
    "\u039d\u039fR\u03a4\u0397",  # Greek capitals N, O, T, H
    "\uff4e\uff4f\uff52\uff54\uff48",  # full width
    "n\u00f6rth",  # an accent
    "nor\u200bth",  # a zero-width space
    "n0rth",
]


@pytest.mark.parametrize("name", LOOKALIKES)
def test_lookalikes_share_the_key(name: str) -> None:
    assert accounts.name_key(name) == accounts.name_key("north")


@pytest.mark.parametrize("name", ["south", "nord", "north-2", "northe", "HOPTH"])
def test_other_names_do_not(name: str) -> None:
    assert accounts.name_key(name) != accounts.name_key("north")


@BOTH_BACKENDS
async def test_a_lookalike_of_a_registered_name_is_refused_in_hello(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "north")
    for name in filter(str.isprintable, LOOKALIKES):  # the protocol refuses the others itself
        for token in (None, tokens["north"]):
            with pytest.raises(ServerError) as caught:
                await ClientConnection.open(HOST, server.port, name, token)
            assert caught.value.code == "bad_name"
            assert caught.value.message == f"{name!r} is too like the registered name 'north'"
    async with await ClientConnection.open(HOST, server.port, "north", tokens["north"]):
        pass


@BOTH_BACKENDS
async def test_casual_names_may_be_shared(server: RunningServer) -> None:
    register(server.db, "north")
    async with (
        await ClientConnection.open(HOST, server.port, "guest") as first,
        await ClientConnection.open(HOST, server.port, "guest") as second,
        await ClientConnection.open(HOST, server.port, "Guest") as third,
    ):
        assert len({first.session, second.session, third.session}) == 3


@BOTH_BACKENDS
def test_no_account_is_made_beside_a_lookalike(db: Path | str) -> None:
    register(db, "north")
    connection = open_database(db)
    try:
        with pytest.raises(accounts.AccountError, match="'North' is too like the registered"):
            accounts.create(connection, "North")
        with pytest.raises(accounts.AccountError, match="'n0rth' is too like the registered"):
            accounts.create(connection, "n0rth")
        accounts.create(connection, "south")
    finally:
        connection.close()
    done = subprocess.run(
        [*ADMIN, "--db", str(db), "add", "NORTH"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 1
    assert done.stderr == (
        "arbiter-server admin: 'NORTH' is too like the registered name 'north'\n"
    )


@BOTH_BACKENDS
async def test_a_built_in_agent_is_not_named_like_a_registered_player(
    server: RunningServer,
) -> None:
    register(server.db, "Local-Greedy")
    async with await director(server.port, server.db) as boss:
        with pytest.raises(ServerError) as caught:
            await create(boss, local=["greedy", "random"])
    assert caught.value.code == "bad_tournament"
    assert "'Local-Greedy' is a registered player's name" in caught.value.message
