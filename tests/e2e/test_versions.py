"""Both protocol versions against one real server over TCP.

The players here are written from docs/protocol.md alone: raw msgpack frames on a socket, no
code of ours, as a client in another language would be. The same game (each seat plays the
first legal move it is offered) is played by two version 1 clients, two version 2 clients and
one of each: the moves and the result are the same, a version 1 client never meets a field of
version 2, and a version 2 client draws every position from what it is sent.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.games import get_game
from tests.conftest import RunningServer

GAME = "amazons"
TIME = {"move": 10.0}


class RawClient:
    """A player of `version` from the spec: frames are a 4-byte big-endian length and a
    msgpack map; pings are answered; every frame it reads is kept."""

    def __init__(self, stream: trio.SocketStream, version: int) -> None:
        self.stream = stream
        self.version = version
        self.buffer = b""
        self.frames: list[dict[str, Any]] = []

    @classmethod
    async def hello(cls, server: RunningServer, name: str, version: int) -> RawClient:
        client = cls(await trio.open_tcp_stream(server.host, server.port), version)
        await client.send(type="hello", version=version, name=name)
        welcome = await client.read()
        assert welcome["type"] == "welcome", welcome
        assert welcome["version"] == version
        return client

    async def send(self, **message: Any) -> None:
        body = msgpack.packb(message)
        await self.stream.send_all(struct.pack(">I", len(body)) + body)

    async def read(self) -> dict[str, Any]:
        while True:
            if len(self.buffer) >= 4:
                (size,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + size:
                    body, self.buffer = self.buffer[4 : 4 + size], self.buffer[4 + size :]
                    message: dict[str, Any] = msgpack.unpackb(body)
                    if message["type"] == "ping":
                        await self.send(type="pong", nonce=message["nonce"])
                        continue
                    self.frames.append(message)
                    return message
            data = await self.stream.receive_some(65536)
            assert data, "the server closed the connection"
            self.buffer += data

    async def read_until(self, kind: str) -> dict[str, Any]:
        while (message := await self.read())["type"] != kind:
            assert message["type"] != "error", message
        return message

    async def play(self) -> dict[str, Any]:
        """Play the first legal move offered on every turn; the `game_over`."""
        while True:
            message = await self.read()
            if message["type"] == "your_turn":
                await self.send(type="move", match=message["match"], move=message["legal"][0])
            elif message["type"] == "game_over":
                return message
            assert message["type"] != "error", message


def first_legal_game() -> tuple[list[str], list[dict[str, Any]]]:
    """The moves of the game where each seat plays its first legal move, and each position."""
    game = get_game(GAME)
    state = game.initial_state(game.resolve_options({}))
    moves, positions = [], []
    while not state.is_over():
        move = state.legal_moves()[0]
        moves.append(game.format_move(move))
        state = state.play(move)
        positions.append(state.to_data())
    return moves, positions


async def seated(server: RunningServer, versions: tuple[int, int]) -> tuple[RawClient, RawClient]:
    first = await RawClient.hello(server, "first", versions[0])
    await first.send(type="seek", game=GAME, time=TIME)
    await first.read_until("seeking")  # the longer-waiting seek takes the first seat
    second = await RawClient.hello(server, "second", versions[1])
    await second.send(type="seek", game=GAME, time=TIME)
    return first, second


def only_version_1_fields(frames: list[dict[str, Any]]) -> None:
    for frame in frames:
        cls = protocol.MESSAGE_TYPES[frame["type"]]
        first = {name for name, since in cls.SINCE.items() if since == 1}
        assert set(frame) == {"type", *first}, frame["type"]


def positions_sent(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kinds = ("move_accepted", "opponent_moved")
    return [frame["position"]["state"] for frame in frames if frame["type"] in kinds]


@pytest.mark.parametrize("versions", [(1, 1), (2, 2), (1, 2), (2, 1)])
async def test_the_same_game_in_either_version_and_both_at_once(
    server: RunningServer, versions: tuple[int, int]
) -> None:
    moves, positions = first_legal_game()
    with trio.fail_after(60):
        players = await seated(server, versions)
        overs: list[dict[str, Any]] = [{}, {}]

        async def play(seat: int) -> None:
            overs[seat] = await players[seat].play()

        async with trio.open_nursery() as nursery:
            for seat in (0, 1):
                nursery.start_soon(play, seat)
    for player, over in zip(players, overs, strict=True):
        assert over["moves"] == moves
        assert over["result"] == "win"
        if player.version == 1:
            only_version_1_fields(player.frames)
            continue
        assert over["termination"] == "rule"
        assert over["clocks_ms"] is None, "no game clock"
        assert positions_sent(player.frames) == positions, "every position, as the rules say"
        last = [f for f in player.frames if f["type"] in ("move_accepted", "opponent_moved")][-1]
        assert last["position"]["to_move"] is None, "nobody moves once the game is over"
    for player in players:
        await player.stream.aclose()


async def test_a_version_2_client_learns_a_time_loss_from_game_over_alone(
    server: RunningServer,
) -> None:
    """Our client (version 2) lets its one-second game clock run out; `game_over` says it was
    time and that its clock is at 0, with no sentence to read."""
    time = {"clock": 1.0, "increment": 0.0}
    with trio.fail_after(30):
        mover = await RawClient.hello(server, "mover", 1)
        await mover.send(type="seek", game=GAME, time=time)
        await mover.read_until("seeking")
        async with (
            await ClientConnection.open(server.host, server.port, "sleeper") as sleeper,
            trio.open_nursery() as nursery,
        ):
            assert sleeper.wire.version == protocol.PROTOCOL_VERSION == 2
            nursery.start_soon(mover.play)  # white, at once
            await sleeper.send(protocol.Seek(game=GAME, time=time))
            while not isinstance(over := await sleeper.receive(), protocol.GameOver):
                pass  # black: never moves
    assert over.termination == "time"
    assert over.winner == "white"
    assert over.clocks_ms is not None
    assert over.clocks_ms[1] == 0, "the sleeper's clock ran out"
    assert over.clocks_ms[0] > 0, "the mover's was left"
    await mover.stream.aclose()


async def test_a_version_the_server_does_not_speak_is_refused_naming_those_it_does(
    server: RunningServer,
) -> None:
    client = RawClient(await trio.open_tcp_stream(server.host, server.port), 3)
    await client.send(type="hello", version=3, name="future")
    error = await client.read()
    assert error["code"] == "version_mismatch"
    assert "versions 1 and 2, not 3" in error["message"]
    await client.stream.aclose()
