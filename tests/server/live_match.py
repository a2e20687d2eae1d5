"""A King's Court match played over real TCP by two scripted clients that move at once, and what
its store holds: for the tests of what storage faults cost a live match."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.server.storage.engine import open_read_only
from tests.e2e.helpers import Dial, until

LONG_GAME = {"no_capture_limit": 200}
"""King's Court options under which the first legal move, always played, lasts 201 plies."""


async def pair(dial: Dial, time: dict[str, float]) -> list[ClientConnection]:
    """White and black seated in one King's Court match, in that order."""
    seated = [await dial.client("white"), await dial.client("black")]
    for client in seated:
        await client.send(
            protocol.Seek(game="kings-court", options=LONG_GAME, time=time, hints=True)
        )
    for client in seated:
        await until(client, protocol.MatchStarted)
    return seated


async def next_turn(client: ClientConnection) -> protocol.YourTurn | protocol.GameOver:
    """The client's next `your_turn`, or the `game_over` that came instead."""
    with trio.fail_after(15):
        while True:
            message = await client.receive()
            if isinstance(message, protocol.YourTurn | protocol.GameOver):
                return message


async def move(client: ClientConnection, played: list[str]) -> None:
    """Wait for the client's turn and play the first legal move at once."""
    turn = await next_turn(client)
    assert isinstance(turn, protocol.YourTurn), turn
    await answer(client, turn, played)


async def answer(client: ClientConnection, turn: protocol.YourTurn, played: list[str]) -> None:
    """Play the first legal move of `turn`."""
    assert turn.legal
    assert turn.ply == len(played)
    played.append(turn.legal[0])
    await client.send(protocol.Move(match=turn.match, move=turn.legal[0]))


async def play(seated: list[ClientConnection], played: list[str], plies: int) -> None:
    for _ in range(plies):
        await move(seated[len(played) % 2], played)


async def resign_and_compare(
    seated: list[ClientConnection], played: list[str], db: Path | str
) -> None:
    """The side to move resigns; both hear every move played, and every one is stored."""
    mover = seated[len(played) % 2]
    turn = await next_turn(mover)
    assert isinstance(turn, protocol.YourTurn), turn
    await mover.send(protocol.Resign(match=turn.match))
    for client in seated:
        over = await next_turn(client)
        assert isinstance(over, protocol.GameOver), over
        assert "resigned" in over.reason, over
        assert over.moves == played
    assert stored_moves(db) == played


def rows(db: Path | str, sql: str) -> list[tuple[Any, ...]]:
    with closing(open_read_only(db)) as reader:
        return [tuple(row) for row in reader.execute(sql)]


def stored_moves(db: Path | str) -> list[str]:
    return [text for (text,) in rows(db, "SELECT move FROM moves ORDER BY ply")]
