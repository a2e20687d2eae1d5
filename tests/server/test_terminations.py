"""How each game ended, stored as a kind (`matches.termination`) for casual games over real TCP:
the kinds are compared, never the sentences."""

from __future__ import annotations

import sqlite3

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from tests.conftest import RunningServer
from tests.e2e.helpers import Dial, until


async def _pair(dial: Dial, time: dict[str, float]) -> list[ClientConnection]:
    """White and black seated in one King's Court match, in that order."""
    seated = [await dial.client("white"), await dial.client("black")]
    for client in seated:
        await client.send(protocol.Seek(game="kings-court", time=time, hints=True))
    for client in seated:
        await until(client, protocol.MatchStarted)
    return seated


def _stored(server: RunningServer) -> list[tuple[str, str | None, str]]:
    with sqlite3.connect(server.db) as db:
        return db.execute("SELECT status, winner, termination FROM matches").fetchall()


async def test_a_game_lost_on_time_stores_time(server: RunningServer, dial: Dial) -> None:
    _, black = await _pair(dial, {"move": 0.3})
    with trio.fail_after(10):
        over = await until(black, protocol.GameOver)
    assert over.winner == "black"
    assert _stored(server) == [("finished", "black", "time")]


async def test_a_resignation_stores_resignation(server: RunningServer, dial: Dial) -> None:
    white, black = await _pair(dial, {"move": 5.0})
    turn = await until(white, protocol.YourTurn)
    assert turn.legal
    await white.send(protocol.Move(match=turn.match, move=turn.legal[0]))
    await until(black, protocol.YourTurn)
    await black.send(protocol.Resign(match=turn.match))
    with trio.fail_after(10):
        await until(white, protocol.GameOver)
    assert _stored(server) == [("finished", "white", "resignation")]


async def test_an_illegal_move_under_forfeit_stores_illegal_move(
    server: RunningServer, dial: Dial
) -> None:
    white, black = await _pair(dial, {"move": 5.0})
    turn = await until(white, protocol.YourTurn)
    await white.send(protocol.Move(match=turn.match, move="A1A2"))
    with trio.fail_after(10):
        await until(black, protocol.GameOver)
    assert _stored(server) == [("finished", "black", "illegal-move")]


@pytest.mark.grace(0)
async def test_a_dropped_connection_past_its_grace_stores_disconnect(
    server: RunningServer,
    dial: Dial,
) -> None:
    white, black = await _pair(dial, {"move": 5.0})
    await until(white, protocol.YourTurn)
    await white.aclose()
    with trio.fail_after(10):
        await until(black, protocol.GameOver)
    assert _stored(server) == [("finished", "black", "disconnect")]
