"""1,000 WebSocket spectators on one live match: fan-out latency and the server's CPU per move,
with and without them, in one run.

    python bench/web.py [--spectators 1000] [--processes 4] [--quiet-moves 200] [--moves 40]

Starts `arbiter-server --http 0` (with `launch.BENCH_LIMITS`: every spectator comes from
127.0.0.1), then, from this process, two players over TCP who answer every `your_turn` at once
with a random legal move (Watch Your Back!, whose random games last 150 moves and more):

1. without spectators: `--quiet-moves` moves (over as many games as it takes), the server's CPU
   time (user + system, /proc, its commit process included) per move: the baseline;
2. `--spectators` WebSocket spectators (trio-websocket, spread over `--processes` child
   processes so the clients are not the bottleneck) say hello and `watch` a fresh match; the
   server's CPU per second while they only sit there (its pings) is printed;
3. with them: `--moves` moves, each sent only once every spectator has the previous one. A
   move's fan-out latency runs from the mover's receipt of `move_accepted` to the last
   spectator's receipt of its `opponent_moved` (one clock: CLOCK_MONOTONIC is shared by the
   processes of a machine); p50 and p99 over the moves, and the CPU per move again.

The server's pings to the spectators (every 2 s each) cost CPU whether moves are played or not:
their rate is measured while the spectators sit idle (`--idle` seconds) and taken off the watched
moves' CPU before it is divided among the spectators.

The goals (2 shared cores, often loaded): p99 fan-out latency under `--latency-goal` seconds
(default 1.5), and the CPU the spectators add per move under `--cpu-goal` µs per spectator
(default 200: most of it is the kernel's loopback TCP send, one per spectator and move); the
script exits 1 when either is missed.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio
from launch import ARBITER, cpu_seconds, percentile, start_server
from trio_websocket import open_websocket_url

from arbiter import protocol
from arbiter.client.connection import ClientConnection

GAME = "watch-your-back"
TIME = {"move": 60}
Callback = Callable[[int, float], Awaitable[None]]
"""What the driver does after each accepted move (its ply, when it was accepted)."""


# -- the spectators, in child processes --------------------------------------------------------


async def spectate(url: str, match: int, count: int, prefix: str) -> None:
    """`count` spectators of `match`; prints `ready` once all watch, then `ply N T` once all have
    move N (T: the last one's receipt), and `done` when the match is over for all."""
    socket_url = url.replace("http://", "ws://") + "/socket"
    watching = trio.Semaphore(0)
    arrived: dict[int, list[float]] = {}
    ended = trio.Semaphore(0)

    async def one(index: int) -> None:
        async with open_websocket_url(socket_url) as websocket:
            hello = {"type": "hello", "version": 1, "name": f"{prefix}-{index}"}
            await websocket.send_message(json.dumps(hello))
            await websocket.send_message(json.dumps({"type": "watch", "match": match}))
            while True:
                text = await websocket.get_message()
                now = time.monotonic()
                if '"opponent_moved"' in text:
                    ply = json.loads(text)["ply"]
                    times = arrived.setdefault(ply, [])
                    times.append(now)
                    if len(times) == count:
                        print(f"ply {ply} {max(times)!r}", flush=True)
                elif '"watching"' in text:
                    watching.release()
                elif '"game_over"' in text:
                    ended.release()
                    return

    async with trio.open_nursery() as nursery:
        for index in range(count):
            nursery.start_soon(one, index)
        for _ in range(count):
            await watching.acquire()
        print("ready", flush=True)
        for _ in range(count):
            await ended.acquire()
    print("done", flush=True)


# -- the players and the driver ----------------------------------------------------------------


@dataclass
class Phase:
    moves: int = 0
    cpu: float = 0.0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)


class Players:
    """Two random players over TCP; `play` makes moves until told to stop."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.rng = random.Random(1)
        self.inbox_send, self.inbox = trio.open_memory_channel[tuple[int, protocol.Message]](100)
        self.connections: list[ClientConnection] = []
        self.match: int | None = None

    async def open(self, nursery: trio.Nursery) -> None:
        for index, name in enumerate(("ada", "bob")):
            connection = await ClientConnection.open("127.0.0.1", self.port, name)
            self.connections.append(connection)
            nursery.start_soon(self._read, index, connection)

    async def _read(self, index: int, connection: ClientConnection) -> None:
        while True:
            await self.inbox_send.send((index, await connection.receive()))

    async def start_match(self) -> int:
        seek = protocol.Seek(game=GAME, time=TIME)
        for connection in self.connections:
            await connection.send(seek)
            await trio.sleep(0.05)  # ada's seek first
        while True:
            _, message = await self.inbox.receive()
            if isinstance(message, protocol.MatchStarted):
                self.match = message.match
                return message.match

    async def play(self, moves: int, phase: Phase, after_each: Callback | None = None) -> bool:
        """Play `moves` moves of the current match; False when it ended first."""
        while phase.moves < moves:
            index, message = await self.inbox.receive()
            if isinstance(message, protocol.YourTurn) and message.match == self.match:
                assert message.legal is not None
                move = protocol.Move(match=message.match, move=self.rng.choice(message.legal))
                await self.connections[index].send(move)
            elif isinstance(message, protocol.MoveAccepted):
                accepted = time.monotonic()
                phase.moves += 1
                if after_each is not None:
                    await after_each(message.ply, accepted)
            elif isinstance(message, protocol.GameOver) and message.match == self.match:
                return False
        return True


class Spectators:
    """The child processes and what they report: each move's last receipt, per process."""

    def __init__(self, processes: list[trio.Process]) -> None:
        self.processes = processes
        self.reports: dict[int, list[float]] = {}
        self.ready = trio.Semaphore(0)
        self.changed = trio.Event()

    async def read(self, process: trio.Process) -> None:
        assert process.stdout is not None
        buffer = b""
        async for chunk in process.stdout:
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                words = line.decode().split()
                if words[:1] == ["ready"]:
                    self.ready.release()
                elif words[:1] == ["ply"]:
                    self.reports.setdefault(int(words[1]), []).append(float(words[2]))
                    self.changed.set()

    async def last_receipt(self, ply: int) -> float:
        """When the last spectator of all received move `ply`."""
        while len(self.reports.get(ply, [])) < len(self.processes):
            self.changed = trio.Event()
            await self.changed.wait()
        return max(self.reports[ply])


async def drive(args: argparse.Namespace, port: int, url: str, server_pid: int) -> int:
    players = Players(port)
    async with trio.open_nursery() as nursery:
        await players.open(nursery)
        quiet = Phase()
        before = cpu_seconds(server_pid, children=True)
        while quiet.moves < args.quiet_moves:
            await players.start_match()
            await players.play(args.quiet_moves, quiet)
        quiet.cpu = cpu_seconds(server_pid, children=True) - before
        await drain_to_a_fresh_match(players)

        match = players.match
        assert match is not None
        share = [args.spectators // args.processes] * args.processes
        share[0] += args.spectators - sum(share)
        spawned = []
        for index, count in enumerate(share):
            command = [sys.executable, __file__, "--spectate", url, str(match), str(count)]
            run = functools.partial(
                trio.run_process, [*command, f"web{index}"], stdout=subprocess.PIPE, check=False
            )
            spawned.append(await nursery.start(run))
        spectators = Spectators(spawned)
        for process in spawned:
            nursery.start_soon(spectators.read, process)
        opened = time.monotonic()
        for _ in spawned:
            await spectators.ready.acquire()
        print(f"{args.spectators} spectators watching after {time.monotonic() - opened:.1f} s")
        idle_before = cpu_seconds(server_pid, children=True)
        await trio.sleep(args.idle)
        idle = (cpu_seconds(server_pid, children=True) - idle_before) / args.idle

        watched = Phase()

        async def wait_for_spectators(ply: int, accepted: float) -> None:
            watched.latencies.append(await spectators.last_receipt(ply) - accepted)

        before, began = cpu_seconds(server_pid, children=True), time.monotonic()
        complete = await players.play(args.moves, watched, wait_for_spectators)
        watched.cpu = cpu_seconds(server_pid, children=True) - before
        watched.seconds = time.monotonic() - began
        if not complete:
            print(f"the watched match ended after {watched.moves} moves: ask fewer --moves")
            return 2
        await players.connections[0].send(protocol.Resign(match=match))
        nursery.cancel_scope.cancel()
    return report(args, quiet, watched, idle)


async def drain_to_a_fresh_match(players: Players) -> None:
    """End the quiet phase's match (resign it) and start the one the spectators will watch."""
    if players.match is not None:
        await players.connections[0].send(protocol.Resign(match=players.match))
        while True:
            _, message = await players.inbox.receive()
            if isinstance(message, protocol.GameOver) and message.match == players.match:
                break
    await players.start_match()


def report(args: argparse.Namespace, quiet: Phase, watched: Phase, idle: float) -> int:
    quiet_per_move = quiet.cpu / quiet.moves
    watched_per_move = watched.cpu / watched.moves
    pings = idle * watched.seconds / watched.moves  # the spectators' pings, not the moves'
    per_spectator = (watched_per_move - quiet_per_move - pings) / args.spectators
    p50 = statistics.median(watched.latencies)
    p99 = percentile(watched.latencies, 0.99)
    print(f"{'':32} {'moves':>6} {'cpu ms/move':>12} {'ratio':>7}")
    print(f"{'without spectators':32} {quiet.moves:>6} {1000 * quiet_per_move:>12.2f} {1:>7.2f}x")
    print(
        f"{f'with {args.spectators} spectators':32} {watched.moves:>6}"
        f" {1000 * watched_per_move:>12.2f} {watched_per_move / quiet_per_move:>7.2f}x"
    )
    print(
        f"server cpu while the spectators sit idle (their pings): {1000 * idle:.1f} ms/s,"
        f" {1000 * pings:.1f} ms of each watched move's"
    )
    print(f"fan-out cpu per spectator and move (pings aside): {1e6 * per_spectator:.1f} µs")
    print(
        f"fan-out latency (move_accepted to the last spectator): p50 {1000 * p50:.1f} ms,"
        f" p99 {1000 * p99:.1f} ms, max {1000 * max(watched.latencies):.1f} ms"
    )
    missed = []
    if p99 > args.latency_goal:
        missed.append(f"p99 latency {p99:.3f} s > {args.latency_goal} s")
    if 1e6 * per_spectator > args.cpu_goal:
        missed.append(f"{1e6 * per_spectator:.1f} µs per spectator and move > {args.cpu_goal}")
    print("goal missed: " + "; ".join(missed) if missed else "goals met")
    return 1 if missed else 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--quiet-moves", type=int, default=200)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--idle", type=float, default=3.0, help="seconds of idle spectators")
    parser.add_argument("--latency-goal", type=float, default=1.5)
    parser.add_argument("--cpu-goal", type=float, default=200.0)
    parser.add_argument("--spectate", nargs=4, metavar=("URL", "MATCH", "COUNT", "PREFIX"))
    args = parser.parse_args()
    if args.spectate:
        url, match, count, prefix = args.spectate
        trio.run(spectate, url, int(match), int(count), prefix)
        return
    scratch = Path(tempfile.mkdtemp(prefix="arbiter-web-bench-"))
    database = ["--db", str(scratch / "arbiter.db")]
    server, port = start_server([*ARBITER, *database, "--http", "0", "--log-level", "warning"])
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[-1]
        status = trio.run(drive, args, port, url, server.pid)
    finally:
        server.terminate()
        server.wait(30)
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()
    sys.exit(status)


if __name__ == "__main__":
    main()
