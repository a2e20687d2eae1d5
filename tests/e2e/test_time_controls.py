"""Time controls enforced over real TCP with real time (generous margins; precise timing is
bench/timing.py's business)."""

from __future__ import annotations

import random
import sqlite3
import sys
from typing import Any

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from tests.conftest import RunningServer
from tests.e2e.helpers import Dial, play_randomly, until


async def pair(
    dial: Dial, time: dict[str, float], illegal: str = "forfeit"
) -> tuple[ClientConnection, ClientConnection, protocol.MatchStarted]:
    """White and black connections seated in one King's Court match."""
    white, black = await dial.client("white"), await dial.client("black")
    for client in (white, black):
        await client.send(protocol.Seek(game="kings-court", time=time, illegal=illegal))
    assert isinstance(await white.receive(), protocol.Seeking)
    started = await until(black, protocol.MatchStarted)
    await until(white, protocol.MatchStarted)
    return white, black, started


async def test_a_move_at_half_the_limit_is_accepted(dial: Dial) -> None:
    white, black, _ = await pair(dial, {"move": 1.0})
    turn = await until(white, protocol.YourTurn)
    assert turn.time_left == pytest.approx(1.0, abs=0.05)
    assert turn.clocks is None
    await trio.sleep(0.5)
    assert turn.legal
    await white.send(protocol.Move(match=turn.match, move=turn.legal[0]))
    accepted = await until(white, protocol.MoveAccepted)
    # the move's time runs from when the server's write of `your_turn` returned, which a busy
    # machine may put a little after the client read it
    assert 0.4 <= accepted.elapsed < 0.9
    assert (await until(black, protocol.OpponentMoved)).elapsed == accepted.elapsed


async def test_a_game_clock_runs_out_and_loses_without_the_increment(
    dial: Dial,
) -> None:
    white, black, started = await pair(dial, {"clock": 0.6, "increment": 5.0, "lag": 0})
    turn = await until(white, protocol.YourTurn)
    assert turn.clocks == [0.6, 0.6]
    with trio.fail_after(10):
        over = await until(black, protocol.GameOver)
    assert (over.winner, over.reason) == ("black", "white ran out of time (game clock 0.6+5)")
    assert started.time == {"clock": 0.6, "increment": 5.0, "lag": 0.0}


async def test_increment_arithmetic_over_twenty_moves(server: RunningServer, dial: Dial) -> None:
    """Each reported clock is the one before, less the move's time, plus the increment: checked
    on white's connection, which hears of every move (its own and black's)."""
    white, black, _ = await pair(dial, {"clock": 30.0, "increment": 0.25, "lag": 0})
    expected = [30.0, 30.0]
    rng = random.Random(3)
    checked = 0

    async def play(client: ClientConnection, done: trio.CancelScope, check: bool) -> None:
        nonlocal checked
        while True:
            message = await client.receive()
            if isinstance(message, protocol.GameOver):
                done.cancel()
            if isinstance(message, protocol.YourTurn):
                if check:
                    assert message.clocks == pytest.approx(expected, abs=1e-9)
                assert message.legal
                await trio.sleep(rng.random() * 0.05)
                await client.send(
                    protocol.Move(match=message.match, move=rng.choice(message.legal))
                )
            if check and isinstance(message, protocol.MoveAccepted | protocol.OpponentMoved):
                mover = 1 if isinstance(message, protocol.OpponentMoved) else 0
                expected[mover] += message.compensation - message.elapsed + 0.25
                assert message.compensation == 0.0
                assert message.clocks == pytest.approx(expected, abs=1e-9)
                checked += 1
                if checked == 20:
                    done.cancel()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, white, nursery.cancel_scope, True)
            nursery.start_soon(play, black, nursery.cancel_scope, False)
    assert checked == 20, "this seed's game lasts longer than 20 moves"
    with sqlite3.connect(server.db) as db:
        stored = db.execute("SELECT clock, compensation FROM moves ORDER BY ply").fetchall()
    assert len(stored) >= 20
    assert all(c is not None and comp == 0 for c, comp in stored)


async def test_under_retry_an_illegal_move_is_refused_and_the_clock_runs_on(
    dial: Dial,
) -> None:
    white, _, started = await pair(dial, {"move": 3.0}, illegal="retry")
    assert started.illegal == "retry"
    turn = await until(white, protocol.YourTurn)
    await white.send(protocol.Move(match=turn.match, move="A1A2"))
    refused = await until(white, protocol.MoveRefused)
    assert refused.code == "illegal_move"
    assert refused.reason.startswith("illegal move A1A2")
    await white.send(protocol.Move(match=turn.match, move="B4C4 is not notation"))
    assert (await until(white, protocol.MoveRefused)).code == "invalid_move"
    assert turn.legal
    await white.send(protocol.Move(match=turn.match, move=turn.legal[0]))
    accepted = await until(white, protocol.MoveAccepted)
    assert accepted.ply == 1


async def test_under_forfeit_an_illegal_move_loses_at_once(dial: Dial) -> None:
    white, black, _ = await pair(dial, {"move": 3.0})
    turn = await until(white, protocol.YourTurn)
    await white.send(protocol.Move(match=turn.match, move="A1A2"))
    over = await until(black, protocol.GameOver)
    assert over.winner == "black"
    assert over.reason.startswith("illegal move A1A2")


@pytest.mark.grace(5.0)
async def test_a_reconnect_inside_the_grace_period_continues_the_game(
    dial: Dial,
) -> None:
    white, black, _ = await pair(dial, {"move": 5.0})
    first = await until(white, protocol.YourTurn)
    assert first.legal
    token = white.session
    await white.aclose()
    await trio.sleep(0.3)
    back = await dial.client("white", resume=token)
    resumed = await until(back, protocol.Resumed)
    assert (resumed.seat, resumed.to_move, resumed.moves) == ("white", True, [])
    again = await until(back, protocol.YourTurn)
    assert again.ply == 0
    assert again.time_left < 5.0 - 0.25, "the clock ran while away"
    results: dict[str, Any] = {}

    async def finish(client: ClientConnection, seed: int, name: str) -> None:
        results[name] = await play_randomly(client, seed)

    assert again.legal
    await back.send(protocol.Move(match=again.match, move=again.legal[0]))
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(finish, back, 1, "white")
            nursery.start_soon(finish, black, 2, "black")
    assert results["white"].moves == results["black"].moves
    assert results["white"].moves[0] == again.legal[0]
    assert "disconnected" not in results["white"].reason


@pytest.mark.grace(0.3)
async def test_a_reconnect_after_the_grace_period_finds_the_game_lost(
    dial: Dial,
) -> None:
    white, black, _ = await pair(dial, {"move": 30.0})
    await until(white, protocol.YourTurn)
    token = white.session
    await white.aclose()
    with trio.fail_after(10):
        over = await until(black, protocol.GameOver)
    assert (over.winner, over.reason) == ("black", "disconnected")
    late = await dial.client("white", resume=token)
    with pytest.raises(ServerError, match="unknown_session"):
        await late.receive()


@pytest.mark.grace(5.0)
async def test_an_away_seat_whose_clock_runs_out_loses_on_time(dial: Dial) -> None:
    white, black, _ = await pair(dial, {"move": 0.5})
    await until(white, protocol.YourTurn)
    await white.aclose()
    with trio.fail_after(10):
        over = await until(black, protocol.GameOver)
    assert over.reason == "white ran out of time (0.5 s per move)"


async def test_the_server_measures_round_trips_with_its_own_pings(server: RunningServer) -> None:
    """Right after the handshake the server pings; a client that answers gets a round trip."""
    stream = await trio.open_tcp_stream(server.host, server.port)
    wire = protocol.Connection(protocol.CLIENT)
    await stream.send_all(wire.send(protocol.Hello(version=1, name="pinged")))
    seen: list[protocol.Message] = []
    with trio.fail_after(5):
        while len(seen) < 2:
            message = wire.next_message()
            if message is protocol.NEED_DATA:
                wire.receive_data(await stream.receive_some(65536))
            elif isinstance(message, protocol.Message):
                seen.append(message)
    welcome, ping = seen
    assert isinstance(welcome, protocol.Welcome)
    assert isinstance(ping, protocol.Ping)
    await stream.send_all(wire.send(protocol.Pong(nonce=ping.nonce)))
    await stream.aclose()


@pytest.mark.grace(0.3)
async def test_an_agent_whose_process_dies_is_a_disconnect(
    server: RunningServer, dial: Dial
) -> None:
    """SIGKILL an `arbiter bot` process mid-game: its seat defaults once the grace is over."""
    white = await dial.client("survivor")
    await white.send(protocol.Seek(game="kings-court", time={"move": 30.0}))
    assert isinstance(await white.receive(), protocol.Seeking)
    bot = await trio.lowlevel.open_process(
        [sys.executable, "-m", "arbiter.client.cli", "bot", "--server", f"127.0.0.1:{server.port}",
         "--game", "kings-court", "--agent", "random", "--time", "move=30"],
    )  # fmt: skip
    try:
        with trio.fail_after(20):
            started = await until(white, protocol.MatchStarted)
            assert started.players[1] == "random"
            await until(white, protocol.YourTurn)
            bot.kill()
            over = await until(white, protocol.GameOver)
    finally:
        bot.kill()
        await bot.wait()
    assert (over.winner, over.reason) == ("white", "disconnected")


async def test_each_seat_keeps_its_own_illegal_move_rule(dial: Dial) -> None:
    """A person under `retry` meets a bot under `forfeit`: each rule costs only its own seat."""
    person, bot = await dial.client("person"), await dial.client("bot")
    await person.send(protocol.Seek(game="kings-court", time={"move": 5.0}, illegal="retry"))
    assert isinstance(await person.receive(), protocol.Seeking)
    await bot.send(protocol.Seek(game="kings-court", time={"move": 5.0}))
    started = await until(person, protocol.MatchStarted)
    assert (started.seat, started.illegal) == ("white", "retry")
    assert (await until(bot, protocol.MatchStarted)).illegal == "forfeit"
    turn = await until(person, protocol.YourTurn)
    await person.send(protocol.Move(match=turn.match, move="A1A2"))
    assert (await until(person, protocol.MoveRefused)).code == "illegal_move"
    assert turn.legal
    await person.send(protocol.Move(match=turn.match, move=turn.legal[0]))
    await until(bot, protocol.YourTurn)
    await bot.send(protocol.Move(match=turn.match, move="A1A2"))
    over = await until(person, protocol.GameOver)
    assert over.winner == "white"
    assert over.reason.startswith("illegal move A1A2")
