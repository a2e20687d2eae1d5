"""A lobby served over trio's in-memory streams: real sessions, matches and SQLite storage,
clients speaking the real protocol, and no socket. With the tests' `mock_clock` (no autojump:
storage does real I/O, and an autojumping clock would leap to the next deadline while a commit
is in flight) time moves only when a test says, so every time a test asserts is exact."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import trio
import trio.testing

from arbiter import protocol
from arbiter.server.connection.admission import UNLIMITED
from arbiter.server.connection.session import Session
from arbiter.server.play.defaults import Illegal
from arbiter.server.play.lobby import Lobby
from arbiter.server.play.match import Match
from arbiter.server.storage.connect import connect_storage
from arbiter.server.storage.sql_store import SQLStorage

M = TypeVar("M", bound=protocol.Message)
FORFEITS = (Illegal.FORFEIT, Illegal.FORFEIT)
"""Both seats' rule for an illegal move where a test does not care: it loses the game."""


@asynccontextmanager
async def writing_to(db: Path | str) -> AsyncIterator[SQLStorage]:
    """A storage (a SQLite file's, or a PostgreSQL URL's) with its group-commit writer running,
    stopped and closed on the way out."""
    storage = connect_storage(db)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(storage.run_writer)
            yield storage
            nursery.cancel_scope.cancel()
    finally:
        storage.close()


@asynccontextmanager
async def lobby_on_file(db: Path | str, grace: float = 10.0) -> AsyncIterator[Lobby]:
    """A lobby with its storage writer running, as `server.app.serve` starts one."""
    async with writing_to(db) as storage, trio.open_nursery() as nursery:
        yield Lobby(storage, nursery, grace)
        nursery.cancel_scope.cancel()


class Client:
    """One client on a memory stream; pings are skipped (never answered, so no round trip is
    measured and no lag is compensated)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.wire = protocol.Connection(protocol.CLIENT)
        self.session = ""

    async def send(self, *messages: protocol.Message) -> None:
        """Every message in one write, as a pipelining client sends them."""
        await self.stream.send_all(b"".join(self.wire.send(message) for message in messages))

    async def receive(self) -> protocol.Message:
        while True:
            message = self.wire.next_message()
            if message is protocol.NEED_DATA:
                self.wire.receive_data(await self.stream.receive_some())
            elif message is protocol.CLOSED:
                raise EOFError("the server closed the connection")
            elif not isinstance(message, protocol.Ping):
                assert isinstance(message, protocol.Message)
                return message

    async def expect(self, kind: type[M]) -> M:
        """The next message, which must be a `kind`."""
        message = await self.receive()
        assert isinstance(message, kind), message
        return message

    async def close(self) -> None:
        await self.stream.aclose()


async def connect(
    lobby: Lobby, nursery: trio.Nursery, name: str, resume: str | None = None
) -> Client:
    """A new connection that has said hello (and been welcomed)."""
    ours, theirs = trio.testing.memory_stream_pair()
    nursery.start_soon(Session(theirs, lobby, UNLIMITED).run)  # the mock clock times no pings
    client = Client(ours)
    await client.send(protocol.Hello(version=protocol.PROTOCOL_VERSION, name=name, resume=resume))
    client.session = (await client.expect(protocol.Welcome)).session
    return client


async def pair(
    lobby: Lobby,
    nursery: trio.Nursery,
    time: dict[str, float] | None = None,
    illegal: str = "forfeit",
    names: tuple[str, str] = ("ann", "bob"),
) -> tuple[Client, Client, Match]:
    """Two clients in a new King's Court match (the first seated first), with their
    `match_started` read."""
    seek = protocol.Seek(
        game="kings-court", options={}, time=time or {}, hints=True, illegal=illegal
    )
    first, second = [await connect(lobby, nursery, name) for name in names]
    return first, second, await seated(lobby, first, second, seek)


async def seated(lobby: Lobby, first: Client, second: Client, seek: protocol.Seek) -> Match:
    """The match `first` and `second` are seated in by both sending `seek` (the first is
    seated first), with their `match_started` read."""
    await first.send(seek)
    await first.expect(protocol.Seeking)
    await second.send(seek)
    started = await first.expect(protocol.MatchStarted)
    await second.expect(protocol.MatchStarted)
    return lobby.matches[started.match]


async def move(client: Client, turn: protocol.YourTurn, index: int = 0) -> protocol.MoveAccepted:
    """Play the `index`th hinted move; its acceptance."""
    assert turn.legal is not None
    await client.send(protocol.Move(match=turn.match, move=turn.legal[index]))
    return await client.expect(protocol.MoveAccepted)
