"""What one server process holds on this machine: connections, matches, moves/s and memory.

    python bench/capacity.py [--connections 4000] [--matches 500] [--seconds 5]
                             [--db postgresql://USER@HOST:PORT/NAME]

One Arbiter server (`arbiter-server` on a SQLite file in a temporary folder, or on `--db`), in
two stages, measured from outside (Linux /proc):

- held: `--connections` connections say hello and stay, answering the server's pings (every 2 s)
  as a class's clients do between games. Printed: how many the server welcomed, its resident
  memory before and after (so memory per connection), and the CPU the server spends keeping them
  (its pings, their pongs);
- playing: then `--matches` King's Court matches at once (two more connections each), moving as
  fast as the server relays (bench/server.py's clients): moves/s, server µs per move, and the
  resident memory per match over the held stage.

Goals, for one class's server with room to spare (docs/scaling.md); the script exits 1 when one
is missed: every connection welcomed, at most `MEMORY_PER_CONNECTION_KB` per connection, the held
connections costing at most `IDLE_CORES` of a core, the matches under way (`UNDER_WAY`), and at
most `MICROSECONDS_PER_MOVE` of the server's CPU per move. Moves/s is printed, and what one core
would relay at the measured cost; on a shared machine it follows the other load.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import trio
import trio.lowlevel
from frames import FrameStream
from launch import ARBITER, cpu_seconds, resident_mb, start_server


def _throughput_bench() -> ModuleType:
    """bench/server.py, whose clients this bench reuses, loaded by its path: imported by its
    name, `server`, it would read as the server room's folder."""
    spec = importlib.util.spec_from_file_location(
        "throughput", Path(__file__).with_name("server.py")
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: its dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


throughput = _throughput_bench()
HOST, Tally = throughput.HOST, throughput.Tally
arbiter_match = throughput.arbiter_match

MEMORY_PER_CONNECTION_KB = 100
"""A held connection's share of the server's memory: its session, buffers and tasks."""
IDLE_CORES = 0.5
"""The CPU that keeping the held connections costs (pings and pongs): under half a core."""
UNDER_WAY = 0.9
"""The window opens once this share of the matches has had a turn (or after `HELLO_SECONDS`);
the goal is that as many matches as were started had turns in the window (a pair between two
games starts a new one). Moves/s itself is printed without a goal: on a shared machine it follows
the other load (the server's µs/move much less)."""
MICROSECONDS_PER_MOVE = 600
"""The server's CPU per move (its commit process included), less what the held connections
cost meanwhile: what the machine's other load changes least. 600 µs is 1,600 moves/s a core."""
SETTLE_SECONDS = 3.0
HELLO_SECONDS = 60.0


async def held_client(port: int, index: int, welcomed: list[int]) -> None:
    """Say hello, then answer the server's pings until cancelled."""
    frames = FrameStream(await trio.open_tcp_stream(HOST, port))
    await frames.send({"type": "hello", "version": 1, "name": f"held{index}"})
    if (await frames.receive())["type"] == "welcome":
        welcomed.append(index)
    while True:
        message = await frames.receive()
        if message["type"] == "ping":
            await frames.send({"type": "pong", "nonce": message["nonce"]})


async def hold(port: int, connections: int) -> None:
    """The held connections, in a process of their own (`--hold PORT`) so that answering their
    pings does not slow the match clients: prints how many were welcomed, then holds them."""
    welcomed: list[int] = []
    async with trio.open_nursery() as nursery:
        for index in range(connections):
            nursery.start_soon(held_client, port, index, welcomed)
            if index % 100 == 99:
                await trio.lowlevel.checkpoint()  # let the accepts keep up
        with trio.move_on_after(HELLO_SECONDS):
            while len(welcomed) < connections:  # noqa: ASYNC110 (a count that thousands raise)
                await trio.sleep(0.1)
        print(len(welcomed), flush=True)


async def play(port: int, pid: int, matches: int, seconds: float) -> tuple[Tally, int]:
    """`matches` King's Court matches, measured for `seconds` once nearly all have moved (under
    load a thousand connections take a while to pair); and how many were under way then."""
    tally = Tally()
    async with trio.open_nursery() as nursery:
        for index in range(matches):
            nursery.start_soon(arbiter_match, port, index, tally)
        with trio.move_on_after(HELLO_SECONDS):
            while len(tally.sent) < UNDER_WAY * matches:  # noqa: ASYNC110 (as above)
                await trio.sleep(0.1)
        moved = set(tally.sent)
        cpu_before = cpu_seconds(pid, children=True)
        clients_before = cpu_seconds(os.getpid())
        tally.measuring = True
        with trio.move_on_after(seconds):
            while True:  # every match that had a turn in the window
                await trio.sleep(0.05)
                moved.update(tally.sent)
        tally.measuring = False
        tally.server_cpu = (cpu_seconds(pid, children=True) - cpu_before) / seconds
        tally.clients_cpu = (cpu_seconds(os.getpid()) - clients_before) / seconds
        nursery.cancel_scope.cancel()
    return tally, len(moved)


def measure(port: int, pid: int, connections: int, matches: int, seconds: float) -> list[str]:
    """The two stages, printed as they are measured; the goals missed."""
    missed = []
    before_mb = resident_mb(pid)
    holder = subprocess.Popen(
        [sys.executable, __file__, "--hold", str(port), "--connections", str(connections)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        welcomed = int(holder.stdout.readline() or 0)
        time.sleep(SETTLE_SECONDS)
        held_mb = resident_mb(pid)
        cpu_before = cpu_seconds(pid, children=True)
        time.sleep(seconds)
        idle_cores = (cpu_seconds(pid, children=True) - cpu_before) / seconds
        per_connection_kb = (held_mb - before_mb) * 1024 / max(1, welcomed)
        print(f"held:    {welcomed:,} of {connections:,} connections welcomed")
        print(
            f"         server memory {before_mb:.0f} -> {held_mb:.0f} MB:"
            f" {per_connection_kb:.0f} KB per connection (goal <= {MEMORY_PER_CONNECTION_KB})"
        )
        print(
            f"         keeping them (pings every 2 s): {idle_cores:.2f} cores"
            f" (goal <= {IDLE_CORES})"
        )
        if welcomed < connections:
            missed.append("not every connection was welcomed")
        if per_connection_kb > MEMORY_PER_CONNECTION_KB:
            missed.append("memory per connection")
        if idle_cores > IDLE_CORES:
            missed.append("CPU to keep the connections")

        tally, under_way = trio.run(play, port, pid, matches, seconds)
        playing_mb = resident_mb(pid)
        rate = tally.turns / seconds
        spent = tally.server_cpu - idle_cores  # beyond the held connections; under 0 if starved
        per_move = spent / rate * 1e6 if rate and spent > 0 else float("inf")
        print(
            f"playing: {matches} matches beside them ({welcomed + 2 * matches:,} connections):"
            f" {under_way} had turns in the window, {rate:,.0f} moves/s;"
            f" server {tally.server_cpu:.2f} cores, match clients {tally.clients_cpu:.2f}"
        )
        print(
            f"         {per_move:.0f} server µs/move beyond keeping the held connections"
            f" (goal <= {MICROSECONDS_PER_MOVE}): {1e6 / per_move:,.0f} moves/s per core"
            + ("" if spent > 0 else " (the server had no more CPU than the held stage used)")
        )
        print(
            f"         server memory {playing_mb:.0f} MB:"
            f" {(playing_mb - held_mb) * 1024 / matches:.0f} KB per match (its two connections"
            " included)"
        )
        if under_way < matches:
            missed.append("matches under way")
        if per_move > MICROSECONDS_PER_MOVE:
            missed.append("server µs/move")
    finally:
        holder.kill()
        holder.wait()
    return missed


def raise_file_limit() -> None:
    """This process and the server it starts need a descriptor per connection."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=4000, help="connections held")
    parser.add_argument("--matches", type=int, default=500, help="matches played beside them")
    parser.add_argument("--seconds", type=float, default=5.0, help="each measuring window")
    parser.add_argument("--db", help="a scratch PostgreSQL database (default: a SQLite file)")
    parser.add_argument("--hold", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_file_limit()
    if args.hold is not None:
        trio.run(hold, args.hold, args.connections)
        return
    needed = args.connections + 4 * args.matches + 100
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < needed:
        sys.exit(f"the file limit is under {needed}: raise it (ulimit -n) or hold fewer")
    with tempfile.TemporaryDirectory(prefix="arbiter-capacity-") as scratch:
        db = args.db or str(Path(scratch) / "capacity.db")
        process, port = start_server([*ARBITER, "--db", db, "--log-level", "warning"])
        try:
            store = "PostgreSQL" if args.db else "SQLite"
            load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
            print(
                f"one server (pid {process.pid}) on {store}; {os.cpu_count()} cores,"
                f" load average {load} (other work on the machine shows here)"
            )
            missed = measure(port, process.pid, args.connections, args.matches, args.seconds)
        finally:
            process.kill()
            process.wait()
    if missed:
        sys.exit(f"goal missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
