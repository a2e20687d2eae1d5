"""How exactly the server enforces move time limits, measured against a real server process.

    python bench/timing.py [--timeouts 200] [--matches 500] [--seconds 20] [--moves 30]

1. Timeout lateness: seats that never answer, over `--timeouts` timeouts (50 at a time). For each,
   the time from receiving `your_turn` to receiving `game_over`, less the limit: how late the
   server declares the timeout (it also contains one loopback trip).
2. False forfeits under load: `--matches` concurrent matches whose agents answer every move at
   90% of a 1 s per-move limit for `--seconds`; every loss on time is a false forfeit (target 0).
3. The lag allowance: one agent behind a proxy that delays every byte by 100 ms each way (200 ms
   of round trip) playing at 95% of a 1 s limit for `--moves` moves, with the allowance on (never
   flagged) and, as the control, off (flagged).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from collections import Counter
from pathlib import Path

import trio
from launch import start_arbiter

from arbiter import protocol
from arbiter.client.connection import ClientConnection

HOST = "127.0.0.1"


PAIRING = trio.Lock()
"""Pairs are seated one at a time, so two concurrent set-ups never swap partners."""


async def seated_pair(
    port: int, time: dict[str, float], tag: str
) -> tuple[ClientConnection, ClientConnection]:
    """Two connections paired into one King's Court match (the first plays white)."""
    first = await ClientConnection.open(HOST, port, f"{tag}-w")
    second = await ClientConnection.open(HOST, port, f"{tag}-b")
    seek = protocol.Seek(game="kings-court", time=time)
    async with PAIRING:
        await first.send(seek)
        await first.receive()  # seeking
        await second.send(seek)
        while not isinstance(await second.receive(), protocol.MatchStarted):
            pass
    return first, second


TIME_LOSS = "ran out of time"
"""The words of every time loss's reason (`white ran out of time (1 s per move)`)."""


def ending(reason: str) -> str:
    """How a game ended, as counted: a time loss whichever seat lost it, else the reason's
    words before its parenthesis."""
    return TIME_LOSS if TIME_LOSS in reason else reason.split(" (")[0]


async def play_at(
    connection: ClientConnection, fraction: float, limit: float, results: Counter[str]
) -> None:
    """Answer every `your_turn` after `fraction` of the limit, until the game ends."""
    rng = random.Random(id(connection))
    while True:
        message = await connection.receive()
        if isinstance(message, protocol.GameOver):
            results[ending(message.reason)] += 1
            return
        if isinstance(message, protocol.YourTurn):
            await think(connection, fraction * limit)
            assert message.legal
            await connection.send(
                protocol.Move(match=message.match, move=rng.choice(message.legal))
            )
            results["moves"] += 1


async def think(connection: ClientConnection, seconds: float) -> None:
    """Take `seconds` over a move while answering the server's pings, as our runner does."""
    with trio.move_on_after(seconds):
        await connection.answer_pings()


# -- 1. timeout lateness ----------------------------------------------------------------------


async def timeout_lateness(port: int, count: int, limit: float = 0.2) -> list[float]:
    lateness: list[float] = []

    async def one(index: int) -> None:
        white, black = await seated_pair(port, {"move": limit, "lag": 0}, f"late{index}")
        while not isinstance(await white.receive(), protocol.YourTurn):
            pass
        asked = trio.current_time()
        while not isinstance(await white.receive(), protocol.GameOver):
            pass
        lateness.append(trio.current_time() - asked - limit)
        await white.aclose()
        await black.aclose()

    for start in range(0, count, 50):
        async with trio.open_nursery() as nursery:
            for index in range(start, min(count, start + 50)):
                nursery.start_soon(one, index)
    return lateness


# -- 2. false forfeits under load --------------------------------------------------------------


async def forfeits_under_load(port: int, matches: int, seconds: float) -> Counter[str]:
    results: Counter[str] = Counter()
    with trio.move_on_after(seconds + matches / 100):
        async with trio.open_nursery() as nursery:
            for index in range(matches):
                white, black = await seated_pair(port, {"move": 1.0}, f"load{index}")
                nursery.start_soon(play_at, white, 0.9, 1.0, results)
                nursery.start_soon(play_at, black, 0.9, 1.0, results)
            await trio.sleep(seconds)
            nursery.cancel_scope.cancel()
    return results


# -- 3. the lag allowance ----------------------------------------------------------------------


async def delaying_proxy(
    target_port: int, delay: float, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
) -> None:
    """Forward TCP to the server, each chunk held back `delay` seconds, in order."""

    async def pipe(source: trio.SocketStream, sink: trio.SocketStream) -> None:
        send, receive = trio.open_memory_channel[tuple[float, bytes]](float("inf"))

        async def read() -> None:
            async with send:
                while data := await source.receive_some(65536):
                    send.send_nowait((trio.current_time() + delay, data))

        async def write() -> None:
            async for due, data in receive:
                await trio.sleep_until(due)
                await sink.send_all(data)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            nursery.start_soon(write)

    async def handle(client: trio.SocketStream) -> None:
        server = await trio.open_tcp_stream(HOST, target_port)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pipe, client, server)
                nursery.start_soon(pipe, server, client)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    listeners = await trio.open_tcp_listeners(0, host=HOST)
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(handle, listeners)


async def lagged_game(port: int, moves: int, lag_on: bool) -> tuple[Counter[str], list[float]]:
    """White behind a 100 ms-each-way proxy at 95% of 1 s; black direct and instant."""
    results: Counter[str] = Counter()
    compensations: list[float] = []
    async with trio.open_nursery() as nursery:
        proxy_port = await nursery.start(delaying_proxy, port, 0.1)
        time = {"move": 1.0, "lag": 1 if lag_on else 0}
        white = await ClientConnection.open(HOST, proxy_port, "lagged")
        black = await ClientConnection.open(HOST, port, "direct")
        await think(white, 4.5)  # the server's first pings measure the round trip
        seek = protocol.Seek(game="kings-court", time=time)
        await white.send(seek)
        await white.receive()
        await black.send(seek)

        async def white_plays() -> None:
            rng = random.Random(1)
            while results["moves"] + results[TIME_LOSS] < moves:
                message = await white.receive()
                if isinstance(message, protocol.GameOver):
                    results[ending(message.reason)] += 1
                    results["games"] += 1
                    await white.send(seek)
                elif isinstance(message, protocol.YourTurn):
                    await think(white, 0.95)
                    assert message.legal
                    await white.send(
                        protocol.Move(match=message.match, move=rng.choice(message.legal))
                    )
                elif isinstance(message, protocol.MoveAccepted):
                    results["moves"] += 1
                    compensations.append(message.compensation)
            nursery.cancel_scope.cancel()

        async def black_plays() -> None:
            rng = random.Random(2)
            while True:
                message = await black.receive()
                if isinstance(message, protocol.GameOver):
                    await black.send(seek)
                elif isinstance(message, protocol.YourTurn):
                    assert message.legal
                    await black.send(
                        protocol.Move(match=message.match, move=rng.choice(message.legal))
                    )

        nursery.start_soon(white_plays)
        nursery.start_soon(black_plays)
    return results, compensations


def milliseconds(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"median {statistics.median(ordered) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms,"
        f" max {ordered[-1] * 1e3:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeouts", type=int, default=200)
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arbiter-timing-") as scratch:
        process, port = start_arbiter(Path(scratch) / "timing.db")
        try:
            late = trio.run(timeout_lateness, port, args.timeouts)
            print(f"1. timeout declared after the deadline ({len(late)} timeouts):")
            print(f"   {milliseconds(late)}")
            load = trio.run(forfeits_under_load, port, args.matches, args.seconds)
            print(
                f"2. {args.matches} matches at 90% of a 1 s limit for {args.seconds:g} s:"
                f" {load['moves']} moves, {load[TIME_LOSS]} false forfeits"
            )
            for lag_on in (True, False):
                results, comp = trio.run(lagged_game, port, args.moves, lag_on)
                label = "on " if lag_on else "off"
                flagged = results[TIME_LOSS]
                detail = f", compensation {milliseconds(comp)}" if comp else ""
                print(
                    f"3. lag allowance {label}: 200 ms round trip, 95% of 1 s:"
                    f" {results['moves']} moves, flagged {flagged} times{detail}"
                )
        finally:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
