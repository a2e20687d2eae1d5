"""The sandbox's costs: its start-up, and the time its channel adds to each move.

    python bench/sandbox.py [--runs 10] [--moves 300]

- start-up: from starting a sandbox (bubblewrap, the relay) running `true` to its end, the
  median of `--runs`, against `true` started plainly; goal 300 ms;
- per move: an agent that says hello first (as a client does: a link dials the server when its
  agent first speaks), then echoes whatever it is sent (a 100-byte frame, the size of a
  `your_turn` for a small board) answers `--moves` times through the relay and the link, and
  the same agent unsandboxed answers as often over plain TCP; the difference of their p50 round
  trips is what the sandbox adds to a move; goal 2 ms.

Exits 1 when a figure misses its goal. Loopback only, bounded by its counts.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import trio

from arbiter.client.sandbox.launch import relay_command
from arbiter.client.sandbox.limits import Limits
from arbiter.client.sandbox.link import link
from arbiter.client.sandbox.process import sandboxed

STARTUP_GOAL_MS = 300.0
ADDED_GOAL_MS = 2.0
FRAME = b"\x00\x00\x00\x60" + b"m" * 96
HELLO = b"hello"
ECHO = """
import os, socket
host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
with socket.create_connection((host, int(port))) as connection:
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection.sendall(b"hello")
    while data := connection.recv(65536):
        connection.sendall(data)
"""


async def startup_ms(runs: int) -> tuple[float, float]:
    """Median milliseconds of a sandbox running `true`, and of `true` alone."""
    sandboxed_times, plain_times = [], []
    for _ in range(runs):
        began = time.perf_counter()
        async with sandboxed(relay_command(7777, ["/bin/true"]), Limits()) as sandbox:
            await sandbox.ended()
        sandboxed_times.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await trio.run_process(["/bin/true"])
        plain_times.append((time.perf_counter() - began) * 1000)
    return statistics.median(sandboxed_times), statistics.median(plain_times)


async def _round_trips(stream: trio.abc.Stream, moves: int) -> list[float]:
    times = []
    for _ in range(moves):
        began = time.perf_counter()
        await stream.send_all(FRAME)
        got = b""
        while len(got) < len(FRAME):
            got += await stream.receive_some(65536)
        times.append((time.perf_counter() - began) * 1000)
    return times


async def echoed(moves: int, code: Path, sandbox: bool) -> list[float]:
    """Round trips in milliseconds to the echo agent, sandboxed or not."""
    times: list[float] = []
    done = trio.Event()

    async def serve(stream: trio.SocketStream) -> None:
        stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        greeting = b""
        while len(greeting) < len(HELLO):
            greeting += await stream.receive_some(len(HELLO) - len(greeting))
        times.extend(await _round_trips(stream, moves))
        await stream.aclose()
        done.set()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(trio.serve_tcp, serve, 0)
        port = listeners[0].socket.getsockname()[1]
        agent = [sys.executable, str(code / "echo.py")]
        if sandbox:
            async with sandboxed(relay_command(port, agent), Limits(), code=[code]) as box:
                await link(
                    box.channel, box.channel, partial(trio.open_tcp_stream, "127.0.0.1", port)
                )
        else:
            environment = {**os.environ, "ARBITER_SERVER": f"127.0.0.1:{port}"}
            await trio.run_process(agent, env=environment)
        await done.wait()
        nursery.cancel_scope.cancel()
    return times


def echo_folder(folder: str) -> Path:
    """`folder` holding the echo agent, readable by a sandbox's own user."""
    code = Path(folder)
    code.chmod(0o755)
    (code / "echo.py").write_text(ECHO)
    (code / "echo.py").chmod(0o644)
    return code


async def main(runs: int, moves: int) -> int:
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-sandbox-") as folder:
        code = echo_folder(folder)
        started, plain = await startup_ms(runs)
        inside = statistics.median(await echoed(moves, code, sandbox=True))
        outside = statistics.median(await echoed(moves, code, sandbox=False))
    added = inside - outside
    print(f"cores: {os.cpu_count()}")
    print(f"start-up           {started:8.1f} ms  ({started / plain:.1f}x `true` alone)")
    print(f"p50 move, sandbox  {inside:8.3f} ms")
    print(f"p50 move, plain    {outside:8.3f} ms")
    print(f"added per move     {added:8.3f} ms  ({inside / outside:.2f}x)")
    misses = []
    if started > STARTUP_GOAL_MS:
        misses.append(f"start-up {started:.1f} ms is over the goal of {STARTUP_GOAL_MS:g} ms")
    if added > ADDED_GOAL_MS:
        misses.append(f"{added:.3f} ms added per move is over the goal of {ADDED_GOAL_MS:g} ms")
    for miss in misses:
        print(f"missed: {miss}", file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--moves", type=int, default=300)
    options = parser.parse_args()
    sys.exit(trio.run(main, options.runs, options.moves))
