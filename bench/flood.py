"""What one flooding connection does to everyone else's games: median turn time with and without.

    python bench/flood.py [--matches 20] [--seconds 4] [--baseline DIR]

N matches of instant random movers (as bench/server.py's) run for a few seconds, then again
beside one client that sends `ping`s as fast as it can (reading the answers, and reconnecting
whenever the server hangs up on it, as an attacker would). Printed per server: turns/s, the median
turn time of the honest players, and the flooder's pings sent and answered per second. Ours runs
with its default request rate limit; `--baseline DIR` (a checkout from before the limit) runs too.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio
from frames import FrameStream
from launch import checkout_server, start_server

from arbiter.protocol import encode_frame

HOST = "127.0.0.1"
OURS = [sys.executable, "-m", "arbiter.server", "--port", "0"]
OURS += ["--max-per-address", "1000000", "--ping-timeout", "3600"]
"""Our server with its default request rate; the bench's players connect from one address and
answer no pings, which are not what is measured here."""
BATCH = encode_frame({"type": "ping", "nonce": 1}) * 100


class Tally:
    def __init__(self) -> None:
        self.measuring = False
        self.turns = 0
        self.latencies: list[float] = []


async def player(port: int, name: str, seed: int, tally: Tally) -> None:
    """King's Court games forever, instant random moves; a turn is timed from our move to our
    next `your_turn` (the opponent's move in between)."""
    rng = random.Random(seed)
    frames = FrameStream(await trio.open_tcp_stream(HOST, port))
    await frames.send({"type": "hello", "version": 1, "name": name})
    await frames.receive()
    sent: dict[int, float] = {}
    while True:
        await frames.send({"type": "seek", "game": "kings-court", "time": {"move": 60}})
        while (message := await frames.receive())["type"] != "game_over":
            if message["type"] == "your_turn" and message["legal"]:
                match = message["match"]
                if match in sent and tally.measuring:
                    tally.turns += 1
                    tally.latencies.append(trio.current_time() - sent[match])
                sent[match] = trio.current_time()
                move = rng.choice(message["legal"])
                await frames.send({"type": "move", "match": match, "move": move})
        sent.clear()


async def flooder(counts: dict[str, int]) -> None:
    """Ping without pause; count what is sent and answered; reconnect when cut off."""
    while True:
        try:
            frames = FrameStream(await trio.open_tcp_stream(HOST, counts["port"]))
            await frames.send({"type": "hello", "version": 1, "name": f"flood{counts['cut']}"})
            await frames.receive()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_count_pongs, frames, counts, nursery.cancel_scope)
                while True:
                    await frames.stream.send_all(BATCH)
                    counts["sent"] += 100
        except* (trio.BrokenResourceError, trio.ClosedResourceError, EOFError, OSError):
            pass
        counts["cut"] += 1


async def _count_pongs(
    frames: FrameStream, counts: dict[str, int], scope: trio.CancelScope
) -> None:
    try:
        while True:
            if (await frames.receive())["type"] == "pong":
                counts["answered"] += 1
    except (trio.BrokenResourceError, EOFError):
        scope.cancel()


async def flood_for(port: int, seconds: float) -> None:
    """The flooder alone (run in a process of its own, so it takes no CPU from the players):
    prints what it sent and had answered in its last `seconds` after a half-second start."""
    counts = {"port": port, "sent": 0, "answered": 0, "cut": 0}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(flooder, counts)
        await trio.sleep(0.5)
        counts["sent"] = counts["answered"] = counts["cut"] = 0
        await trio.sleep(seconds)
        print(json.dumps(counts), flush=True)
        nursery.cancel_scope.cancel()


async def measure(port: int, matches: int, seconds: float, flood: bool) -> tuple[Tally, dict]:
    tally = Tally()
    counts = {}
    async with trio.open_nursery() as nursery:
        for index in range(2 * matches):
            nursery.start_soon(player, port, f"bot{index}", index, tally)
        await trio.sleep(1.0)
        flooding = None
        if flood:
            command = [sys.executable, __file__, "--flood", str(port), "--seconds", str(seconds)]
            # Popen returns once the process is started, before anything is measured; its
            # output is read in a thread.
            flooding = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)  # noqa: ASYNC220
            await trio.sleep(0.5)
        tally.measuring = True
        await trio.sleep(seconds)
        tally.measuring = False
        if flooding is not None:
            counts = json.loads((await trio.to_thread.run_sync(flooding.communicate))[0])
        nursery.cancel_scope.cancel()
    return tally, counts


def run(
    command: list[str], env: dict[str, str] | None, cwd: Path | None, args: argparse.Namespace
) -> None:
    for flood in (False, True):
        process, port = start_server(command, env, cwd)
        try:
            tally, counts = trio.run(measure, port, args.matches, args.seconds, flood)
        finally:
            process.kill()
            process.wait()
        median = statistics.median(tally.latencies) * 1000 if tally.latencies else float("nan")
        line = f"  {'flood' if flood else 'quiet':>5}: {tally.turns / args.seconds:8.0f} turns/s,"
        line += f" median turn {median:7.2f} ms"
        if flood:
            line += f"; flooder sent {counts['sent'] / args.seconds:,.0f} pings/s,"
            line += (
                f" {counts['answered'] / args.seconds:,.0f} answered/s, cut off {counts['cut']}x"
            )
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--baseline", type=Path, help="a checkout from before the rate limit")
    parser.add_argument("--flood", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood is not None:
        trio.run(flood_for, args.flood, args.seconds)
        return
    with tempfile.TemporaryDirectory() as scratch:
        print("arbiter (default rate limit)")
        run([*OURS, "--db", f"{scratch}/ours-{time.monotonic_ns()}.db"], None, None, args)
        if args.baseline is not None:
            print("baseline")
            command, env = checkout_server(args.baseline, Path(scratch))
            command += ["--db", f"{scratch}/base-{time.monotonic_ns()}.db"]
            run(command, env, args.baseline, args)


if __name__ == "__main__":
    main()
