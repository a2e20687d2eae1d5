"""Scripted clients for end-to-end tests: real connections that misbehave on purpose."""

from __future__ import annotations

import random
import struct
from typing import Any

import msgpack
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.games import get_game


async def connect(port: int, name: str) -> ClientConnection:
    return await ClientConnection.open("127.0.0.1", port, name)


async def seek(
    connection: ClientConnection, game: str = "kings-court", move_time: float = 5.0, **options: Any
) -> protocol.Message:
    await connection.send(
        protocol.Seek(game=game, options=options, time={"move": move_time}, hints=True)
    )
    return await connection.receive()


async def until(connection: ClientConnection, kind: type[protocol.Message]) -> Any:
    """Read messages until one of `kind` arrives; return it."""
    while True:
        message = await connection.receive()
        if isinstance(message, kind):
            return message


async def play_randomly(
    connection: ClientConnection, seed: int, stop_at_ply: int | None = None
) -> protocol.GameOver | protocol.YourTurn:
    """Play random legal moves from the hints until the game ends, or until `your_turn` for
    ply `stop_at_ply` arrives (returned unanswered, so the caller can misbehave)."""
    rng = random.Random(seed)
    while True:
        message = await connection.receive()
        if isinstance(message, protocol.GameOver):
            return message
        if not isinstance(message, protocol.YourTurn):
            continue
        if stop_at_ply is not None and message.ply >= stop_at_ply:
            return message
        assert message.legal is not None
        await connection.send(protocol.Move(match=message.match, move=rng.choice(message.legal)))


def replay(game_name: str, options: dict[str, Any], moves: list[str]) -> Any:
    """The final state after applying stored move texts through the checked path."""
    return get_game(game_name).replay(options, moves)


def frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


def packed(**fields: object) -> bytes:
    return frame(msgpack.packb(fields))


class RawPeer:
    """A socket that speaks bytes, to send what no well-behaved client would."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def read_frame(self) -> dict[str, object] | None:
        """The next frame from the server decoded (pings skipped), or None once it closed."""
        while True:
            if len(self.buffer) >= 4:
                (size,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + size:
                    body, self.buffer = self.buffer[4 : 4 + size], self.buffer[4 + size :]
                    decoded: dict[str, object] = msgpack.unpackb(body)
                    if decoded["type"] != "ping":  # the server measures our round trip
                        return decoded
                    continue
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.buffer += data


async def hello(peer: RawPeer) -> None:
    await peer.stream.send_all(packed(type="hello", version=1, name="raw"))
    welcome = await peer.read_frame()
    assert welcome is not None
    assert welcome["type"] == "welcome"


class Dial:
    """The connections a test opens to its server, raw or as clients: all closed when it ends
    (the `dial` fixture), whatever state the test left them in."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._opened: list[trio.abc.AsyncResource] = []

    async def raw(self) -> RawPeer:
        stream = await trio.open_tcp_stream("127.0.0.1", self.port)
        self._opened.append(stream)
        return RawPeer(stream)

    async def client(self, name: str, resume: str | None = None) -> ClientConnection:
        """A client named `name`, taking back the seats of the session `resume` if given."""
        client = await ClientConnection.open("127.0.0.1", self.port, name, resume=resume)
        self._opened.append(client)
        return client

    async def aclose(self) -> None:
        for resource in self._opened:
            await trio.aclose_forcefully(resource)
