"""Hosted agents' costs and throughput: the sandbox, dispatch through workers, and CPU clocks.

    python bench/hosted.py [--runs 10] [--moves 300] [--games 8] [--load-games 2]
                           [--no-capture-limit N]

- the sandbox (`bench/sandbox.py`'s figures): start-up, goal 300 ms; time added per move against
  the same agent unsandboxed, goal 2 ms at p50;
- hosted games per minute with a worker of 1, 2 and 4 slots against one server, `--games`
  challenges of `hosted:AGENT` per slot (each challenger an in-process client that answers at
  once): with an agent that answers at once (goal: 4 slots play at least 3x the games of one, so
  dispatch is not the bottleneck) and with a CPU-bound one (it scales until the cores run out:
  the cores are printed);
- CPU-time clocks under load: 4 busy processes run while an agent spends 80% of its CPU
  allowance on every move, for `--load-games` games; goal: no time loss, and the moves a wall
  clock would have flagged (over the allowance in wall time) are counted beside it.

The agents are one small Python program speaking the protocol, offered to the worker with
`--program`. Every game is King's Court with its own rules unless `--no-capture-limit` makes
them short (a quick run that only shows the bench works; its figures are not the goals').
Exits 1 when a figure misses its goal. Loopback only, bounded by its counts.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shlex
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import trio
from sandbox import ADDED_GOAL_MS, STARTUP_GOAL_MS, echo_folder, echoed, startup_ms

from arbiter.agents import make_agent
from arbiter.client.connection import ServerError
from arbiter.client.runner import play_one, run_bot
from arbiter.games import Game
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_database

ROOT = Path(__file__).resolve().parents[1]
SERVER = [sys.executable, "-m", "arbiter.server"]
CLI = [sys.executable, "-m", "arbiter.client.cli"]
GAME = "kings-court"
FAST_MOVE = 5.0
BUSY_BURN = 0.05
"""CPU seconds the CPU-bound agent spends on each move."""
LOAD_MOVE = 0.2
LOAD_SHARE = 0.8
LOAD_PROCESSES = 4
SCALING_GOAL = 3.0
SLOT_RETRY = 0.02
STOP_SECONDS = 10.0
"""How long a server or worker the bench started has to end on SIGTERM before it is killed."""
AGENT = r"""
import json, os, random, socket, struct, sys, time
import msgpack

burn, seconds, options = float(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3])
host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
connection = socket.create_connection((host, int(port)))
connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def send(message):
    body = msgpack.packb(message)
    connection.sendall(struct.pack(">I", len(body)) + body)


def frames():
    pending = b""
    while True:
        while len(pending) >= 4 and len(pending) >= 4 + struct.unpack(">I", pending[:4])[0]:
            size = struct.unpack(">I", pending[:4])[0]
            yield msgpack.unpackb(pending[4 : 4 + size])
            pending = pending[4 + size :]
        data = connection.recv(65536)
        if not data:
            return
        pending += data


name, token = os.environ["ARBITER_NAME"], os.environ["ARBITER_TOKEN"]
send({"type": "hello", "version": 2, "name": name, "token": token})
for message in frames():
    kind = message.get("type")
    if kind == "welcome":
        seek = {"type": "seek", "game": os.environ["ARBITER_GAME"], "time": {"move": seconds}}
        seek["options"] = options
        seek["hints"] = True
        seek["opponent"] = os.environ["ARBITER_OPPONENT"]
        send(seek)
    elif kind == "your_turn":
        began = time.process_time()
        while time.process_time() - began < burn:
            pass
        move = random.choice(message["legal"])
        send({"type": "move", "match": message["match"], "move": move})
    elif kind == "ping":
        send({"type": "pong", "nonce": message["nonce"]})
    elif kind == "game_over":
        sys.exit(0)
    elif kind == "error":
        sys.exit(f"refused: {message.get('message')}")
"""


@contextlib.contextmanager
def process(command: list[str], log: Path, **environment: str) -> Iterator[subprocess.Popen[str]]:
    """`command` in a process group of its own, its stderr to `log`; stopped with its group
    (SIGTERM, as a server stops a worker: it ends its sandboxes and removes their folders and
    its own), then killed with whatever of it is left."""
    with open(log, "a") as stderr:
        started = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=ROOT,
            env={**os.environ, **environment},
            start_new_session=True,
        )
    try:
        yield started
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(started.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            started.communicate(timeout=STOP_SECONDS)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(started.pid, signal.SIGKILL)
        started.communicate()


def wait_for(log: Path, text: str, count: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while log.read_text().count(text) < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: no {text!r} in {seconds:g} s; see {log}")
        time.sleep(0.05)


def at_once(game: Game[Any, Any], number: int) -> Any:
    return make_agent("random", game, seed=number)


async def challenges(
    port: int, slots: int, games: int, agent: str, move: float, options: dict[str, int]
) -> float:
    """Seconds for `slots` challengers to play `games` games each against `hosted:AGENT`, with
    the game's `options` (the hosted agent seeks the same)."""

    async def challenger(number: int) -> None:
        played = 0
        while played < games:
            try:
                await run_bot(
                    "127.0.0.1",
                    port,
                    GAME,
                    at_once,
                    name=f"challenger-{agent}-{slots}-{number}",
                    opponent=f"hosted:{agent}",
                    time_control={"move": move},
                    play=functools.partial(play_one, options=options),
                )
                played += 1
            except ServerError as error:
                if "free slot" not in str(error):
                    raise
                await trio.sleep(SLOT_RETRY)  # the last game's seat is still being released

    began = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for number in range(slots):
            nursery.start_soon(challenger, number)
    return time.perf_counter() - began


def machine_ticks() -> tuple[int, int]:
    """The whole machine's busy and total CPU ticks so far (/proc/stat): every process of the
    run counts, the server's, the worker's, the agents' and this bench's challengers."""
    with open("/proc/stat") as stat:
        ticks = [int(field) for field in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return sum(ticks) - idle, sum(ticks)


def cores_busy(before: tuple[int, int], after: tuple[int, int]) -> float:
    """How many of the machine's cores were busy between two `machine_ticks`, on average."""
    busy, total = after[0] - before[0], after[1] - before[1]
    return (os.cpu_count() or 1) * busy / max(total, 1)


def worker_token(db: Path, name: str) -> str:
    connection = open_database(db)
    try:
        return accounts.create(connection, name, "worker")
    finally:
        connection.close()


def load_figures(db: Path, first_match: int) -> tuple[int, int, int]:
    """Since `first_match`: the hosted seats' time losses, their moves, and the moves over the
    allowance in wall time (those a wall clock would have flagged)."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        losses = connection.execute(
            "SELECT count(*) FROM matches WHERE id >= ? AND termination = 'time'", (first_match,)
        ).fetchone()[0]
        moves, flagged = connection.execute(
            "SELECT count(*), coalesce(sum(elapsed > ?), 0) FROM moves"
            " WHERE match_id >= ? AND cpu IS NOT NULL",
            (LOAD_MOVE, first_match),
        ).fetchone()
    return losses, moves, flagged


def last_match(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return int(connection.execute("SELECT coalesce(max(id), 0) FROM matches").fetchone()[0])


async def main(
    runs: int, moves: int, games: int, load_games: int, no_capture_limit: int | None
) -> int:
    misses = []
    options = {} if no_capture_limit is None else {"no_capture_limit": no_capture_limit}
    told = shlex.quote(json.dumps(options))
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-hosted-") as folder:
        code = echo_folder(folder)
        agent = code / "agent.py"
        agent.write_text(AGENT)
        agent.chmod(0o644)
        started, plain = await startup_ms(runs)
        inside = statistics.median(await echoed(moves, code, sandbox=True))
        outside = statistics.median(await echoed(moves, code, sandbox=False))
        added = inside - outside
        print(f"cores: {os.cpu_count()}")
        print(f"sandbox start-up      {started:8.1f} ms  ({started / plain:.1f}x `true` alone)")
        print(f"added per move (p50)  {added:8.3f} ms")
        if started > STARTUP_GOAL_MS:
            misses.append(f"start-up {started:.1f} ms is over the goal of {STARTUP_GOAL_MS:g} ms")
        if added > ADDED_GOAL_MS:
            misses.append(f"{added:.3f} ms added per move is over the goal of {ADDED_GOAL_MS:g}")

        db, log = Path(folder) / "arbiter.db", Path(folder) / "server.log"
        programs = [
            *("--program", f"fast={sys.executable} {agent} 0 {FAST_MOVE} {told}"),
            *("--program", f"busy={sys.executable} {agent} {BUSY_BURN} {FAST_MOVE} {told}"),
            *(
                "--program",
                f"eighty={sys.executable} {agent} {LOAD_SHARE * LOAD_MOVE} {LOAD_MOVE} {told}",
            ),
        ]
        with process([*SERVER, "--port", "0", "--db", str(db)], log) as server:
            assert server.stdout is not None
            port = int(server.stdout.readline().split(":")[-1])
            ready = 0
            rates: dict[tuple[str, int], float] = {}
            for kind in ("fast", "busy"):
                for slots in (1, 2, 4):
                    name = f"w-{kind}-{slots}"
                    worker = [*CLI, "worker", "--server", f"127.0.0.1:{port}", "--name", name]
                    token = worker_token(db, name)
                    with process(
                        [*worker, "--slots", str(slots), *programs], log, ARBITER_TOKEN=token
                    ):
                        ready += 1
                        wait_for(log, "worker_ready", ready)
                        ticks = machine_ticks()
                        seconds = await challenges(port, slots, games, kind, FAST_MOVE, options)
                        busy = cores_busy(ticks, machine_ticks())
                    rate = slots * games / seconds * 60
                    rates[kind, slots] = rate
                    print(
                        f"{kind:5} agents, {slots} slot(s)  {rate:8.1f} games/min"
                        f"  ({busy:.2f} of {os.cpu_count()} cores busy)"
                    )
            scaling = rates["fast", 4] / rates["fast", 1]
            print(f"4 slots / 1 slot (fast)  {scaling:6.2f}x")
            if scaling < SCALING_GOAL:
                misses.append(
                    f"4 slots play {scaling:.2f}x one slot's games, under {SCALING_GOAL:g}x"
                )

            first = last_match(db) + 1
            busy = [sys.executable, "-c", "while True: pass"]
            with contextlib.ExitStack() as load:
                for number in range(LOAD_PROCESSES):
                    load.enter_context(process(busy, Path(folder) / f"load-{number}.log"))
                name = "w-load"
                worker = [*CLI, "worker", "--server", f"127.0.0.1:{port}", "--name", name]
                token = worker_token(db, name)
                with process([*worker, "--slots", "1", *programs], log, ARBITER_TOKEN=token):
                    ready += 1
                    wait_for(log, "worker_ready", ready)
                    await challenges(port, 1, load_games, "eighty", LOAD_MOVE, options)
            losses, hosted_moves, flagged = load_figures(db, first)
            print(
                f"under load {LOAD_PROCESSES}: {losses} time losses in {load_games} games;"
                f" a wall clock would have flagged {flagged} of {hosted_moves} moves"
            )
            if losses:
                misses.append(f"{losses} time losses under load for an agent at 80% of its CPU")
    for miss in misses:
        print(f"missed: {miss}", file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--games", type=int, default=8, help="challenges per slot")
    parser.add_argument("--load-games", type=int, default=2)
    parser.add_argument(
        "--no-capture-limit",
        type=int,
        help="King's Court games made short, for a quick run (default: the game's own rules)",
    )
    args = parser.parse_args()
    sys.exit(
        trio.run(main, args.runs, args.moves, args.games, args.load_games, args.no_capture_limit)
    )
