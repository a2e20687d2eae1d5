"""Scripted clients for end-to-end tests: real connections that misbehave on purpose."""

from __future__ import annotations

import random
from typing import Any

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
