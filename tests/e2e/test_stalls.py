"""The server's own stalls are not charged to players: a deliberately stalled event loop (the
test blocks it, server and clients alike, as a long computation on the loop would) neither makes
a move late nor lets the alarm forfeit a player. Real TCP, real time."""

from __future__ import annotations

import time

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from tests.e2e.helpers import Dial, until
from tests.e2e.test_time_controls import pair

STALL = 1.5
"""Seconds the loop is held: longer than the 1 s move limit."""


async def white_to_move(
    dial: Dial,
) -> tuple[ClientConnection, ClientConnection, protocol.Move]:
    """A match with a 1 s move limit, and the move white will send on its first turn."""
    white, black, _ = await pair(dial, {"move": 1.0})
    turn = await until(white, protocol.YourTurn)
    assert turn.legal
    return white, black, protocol.Move(match=turn.match, move=turn.legal[0])


def stall_the_loop() -> None:
    time.sleep(STALL)  # on purpose: nothing on this trio loop runs meanwhile, the server's neither


async def test_a_move_in_the_socket_during_a_stall_is_charged_its_own_time(
    dial: Dial,
) -> None:
    white, black, move = await white_to_move(dial)
    await white.send(move)
    stall_the_loop()
    with trio.fail_after(10):  # without the credit, game_over comes instead
        accepted = await until(white, protocol.MoveAccepted)
    assert accepted.elapsed < 0.5, accepted
    assert isinstance(await until(black, protocol.YourTurn), protocol.YourTurn)


async def test_a_stall_while_the_player_thinks_moves_the_deadline_on(
    dial: Dial,
) -> None:
    white, _, move = await white_to_move(dial)
    stall_the_loop()
    await trio.sleep(0.3)
    await white.send(move)
    with trio.fail_after(10):
        accepted = await until(white, protocol.MoveAccepted)
    assert accepted.elapsed < 0.9, accepted


async def test_without_a_stall_the_limit_still_holds(dial: Dial) -> None:
    white, _, started = await pair(dial, {"move": 0.5})
    waited = trio.current_time()
    await until(white, protocol.YourTurn)
    over = await until(white, protocol.GameOver)
    assert (over.match, over.winner) == (started.match, "black")
    assert over.reason == "white ran out of time (0.5 s per move)"
    assert trio.current_time() - waited < 2.0
