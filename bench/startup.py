"""Start-up: how long Arbiter's commands take to be ready, against Python's own in the same run.

    python bench/startup.py [--runs 10] [--baseline DIR]

Each figure is the median of `--runs` fresh processes, in milliseconds of wall time:

- floors: the bare interpreter (`python -c pass`), and the interpreter importing the two
  libraries every Arbiter process needs (`import trio, msgpack`);
- `arbiter --help` and `arbiter agents`: the command line, parsing and listing;
- `arbiter-server` until it prints `listening on`;
- the first game: from starting the server to the first `your_turn` of the first match, two
  clients connecting, saying hello and seeking as soon as it listens. This includes the first
  write to SQLite, made by the commit process (`server/storage/commit_writer.py`).

Ratios are to the `import trio, msgpack` floor: what Arbiter adds to what any trio + msgpack
program pays. The script exits non-zero when `arbiter --help` takes more than `HELP_GOAL` times
the floor: the command line imports only what the command it runs uses, so its help must cost
little more than the interpreter.

`--baseline DIR` also times `arbiter --help` and `arbiter agents` of another checkout (`git
worktree add /tmp/before REV`; compile its rooms' bytecode too), in the same run.

Where Arbiter's modules have no bytecode cache (`__pycache__`, missing when
PYTHONDONTWRITEBYTECODE was set since they last changed), every process compiles them from
source, which inflates each Arbiter figure; the script says so when that is the case.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from launch import checkout_env, start_arbiter

import arbiter.protocol._messages as protocol_messages
from arbiter.protocol import NEED_DATA, FrameDecoder, encode_frame

PYTHON = sys.executable
ARBITER = [PYTHON, "-c", "import sys; from arbiter.client.cli import main; sys.exit(main())"]
"""The `arbiter` console script, run as its entry point runs it."""
HELP_GOAL = 1.3
"""`arbiter --help` at most this many times `import trio, msgpack`, measured in the same run."""


def run_to_end(command: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def server_listening(scratch: Path) -> float:
    started = time.perf_counter()
    with _server(scratch) as (_, _port):
        return time.perf_counter() - started


def first_game(scratch: Path) -> float:
    started = time.perf_counter()
    with _server(scratch) as (_, port):
        players = [_Client(port, f"p{seat}") for seat in range(2)]
        for player in players:
            player.send({"type": "seek", "game": "kings-court", "time": {"move": 60}})
        try:
            while True:  # the seat to move hears `your_turn`: either may be first
                readable, _, _ = select.select([p.sock for p in players], [], [], 10)
                if not readable:
                    raise TimeoutError("no your_turn within 10 s")
                for player in players:
                    if player.sock in readable:
                        player.feed()
                    while isinstance(frame := player.decoder.next_frame(), dict):
                        if frame["type"] == "your_turn":
                            return time.perf_counter() - started
        finally:
            for player in players:
                player.sock.close()


@contextlib.contextmanager
def _server(scratch: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`arbiter-server` on a free port with a fresh file, killed on the way out."""
    process, port = start_arbiter(scratch / f"startup-{time.perf_counter_ns()}.db")
    try:
        yield process, port
    finally:
        process.kill()
        process.wait()


class _Client:
    """A blocking client that has said hello: enough protocol to seek and see a game start."""

    def __init__(self, port: int, name: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.decoder = FrameDecoder()
        self.send({"type": "hello", "version": 1, "name": name})
        assert self.receive()["type"] == "welcome"

    def send(self, payload: dict[str, Any]) -> None:
        self.sock.sendall(encode_frame(payload))

    def feed(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("the server closed the connection")
        self.decoder.feed(data)

    def receive(self) -> dict[str, Any]:
        while (frame := self.decoder.next_frame()) is NEED_DATA:
            self.feed()
        assert isinstance(frame, dict)
        return frame


def median_ms(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs)) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh processes per figure")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout whose command line to time beside ours"
    )
    args = parser.parse_args()
    os.chdir(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory(prefix="arbiter-startup-") as scratch:
        figures: dict[str, Callable[[], float]] = {
            "python -c pass": lambda: run_to_end([PYTHON, "-c", "pass"]),
            "import trio, msgpack": lambda: run_to_end([PYTHON, "-c", "import trio, msgpack"]),
            "arbiter --help": lambda: run_to_end([*ARBITER, "--help"]),
            "arbiter agents": lambda: run_to_end([*ARBITER, "agents"]),
            "server listening": lambda: server_listening(Path(scratch)),
            "first your_turn": lambda: first_game(Path(scratch)),
        }
        if args.baseline is not None:
            before = checkout_env(args.baseline, Path(scratch))
            figures["baseline --help"] = lambda: run_to_end([*ARBITER, "--help"], before)
            figures["baseline agents"] = lambda: run_to_end([*ARBITER, "agents"], before)
        if not Path(importlib.util.cache_from_source(protocol_messages.__file__)).exists():
            print("note: no bytecode cache for Arbiter's modules: each process compiles them")
        print(f"{'':<22} {'median ms':>10}  vs import trio, msgpack")
        medians: dict[str, float] = {}
        for name, measure in figures.items():
            medians[name] = ms = median_ms(args.runs, measure)
            floor = medians.get("import trio, msgpack")
            ratio = f"{ms / floor:.2f}x" if floor else ""
            print(f"{name:<22} {ms:>10.0f}  {ratio}")
    help_ratio = medians["arbiter --help"] / medians["import trio, msgpack"]
    if help_ratio > HELP_GOAL:
        print(f"missed: arbiter --help took {help_ratio:.2f}x the floor, the goal is {HELP_GOAL}x")
        return 1
    print(f"met: arbiter --help took {help_ratio:.2f}x the floor (goal: at most {HELP_GOAL}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
