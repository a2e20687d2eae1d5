"""Registered names are known in memory (`server.storage.registry`): hellos under names nobody
registered, or passing for a name whose credentials were just read, cost no read of the store;
an account made while the server runs is known within `FRESH_SECONDS`. Shown on a real SQLite
store whose one query slot the test holds, so any read would hang."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
import trio
import trio.testing

from arbiter import protocol
from arbiter.server.connection.admission import UNLIMITED
from arbiter.server.connection.session import Session
from arbiter.server.play.lobby import Lobby
from arbiter.server.storage import registry
from arbiter.server.storage.sql_store import SQLStorage
from tests.server.memory import Client, lobby_on_file
from tests.tournament.helpers import register


async def hello(
    lobby: Lobby, nursery: trio.Nursery, name: str, token: str | None = None
) -> protocol.Message:
    """The server's answer to a new connection's `hello`."""
    ours, theirs = trio.testing.memory_stream_pair()
    nursery.start_soon(Session(theirs, lobby, UNLIMITED).run)
    client = Client(ours)
    await client.send(protocol.Hello(version=protocol.PROTOCOL_VERSION, name=name, token=token))
    return await client.receive()


async def test_names_once_read_answer_hellos_without_a_read(
    tmp_path: Path, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "FRESH_SECONDS", 60.0)  # nothing goes stale in the test
    db = tmp_path / "arbiter.db"
    register(db, "ann")
    async with lobby_on_file(db) as lobby:
        lookalike = await hello(lobby, nursery, "ANN")  # reads the names and ann's credentials
        assert isinstance(lookalike, protocol.Error)
        assert "too like" in lookalike.message
        async with cast(SQLStorage, lobby.storage)._query_lock:  # no query can run now
            with trio.fail_after(2):
                for name in ("dan", "eve", "zed"):
                    assert isinstance(await hello(lobby, nursery, name), protocol.Welcome)
                again = await hello(lobby, nursery, "Ann")
                assert isinstance(again, protocol.Error)
                assert "too like" in again.message
                bare = await hello(lobby, nursery, "ann")
                assert isinstance(bare, protocol.Error)
                assert "with its token" in bare.message


async def test_a_token_for_an_account_made_a_moment_ago_is_checked_at_once(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    db = tmp_path / "arbiter.db"
    async with lobby_on_file(db) as lobby:
        assert isinstance(await hello(lobby, nursery, "cat"), protocol.Welcome)  # names read
        token = register(db, "bob")["bob"]
        assert isinstance(await hello(lobby, nursery, "bob", token), protocol.Welcome)
        bare = await hello(lobby, nursery, "bob")  # and now known to the registry
        assert isinstance(bare, protocol.Error)
        assert "with its token" in bare.message


async def test_an_account_made_while_the_server_runs_is_known_soon(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    db = tmp_path / "arbiter.db"
    async with lobby_on_file(db) as lobby:
        assert isinstance(await hello(lobby, nursery, "bob"), protocol.Welcome)
        token = register(db, "bob")["bob"]  # `arbiter-server admin` beside the running server
        await trio.sleep(registry.FRESH_SECONDS)
        bare = await hello(lobby, nursery, "bob")
        assert isinstance(bare, protocol.Error)
        assert "with its token" in bare.message
        assert isinstance(await hello(lobby, nursery, "bob", token), protocol.Welcome)
