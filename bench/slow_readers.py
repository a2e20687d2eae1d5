"""The server's memory when clients ask for much and read nothing.

    python bench/slow_readers.py [--clients 100] [--requests 300] [--baseline DIR]

Starts a server (this checkout's, or with --baseline another checkout's, as bench/server.py
runs one), then opens `--clients` connections that each say hello and send `--requests`
`list_games` (about 3 KB of answer each) without ever reading. Prints the server's resident
memory before and 3 seconds after, and how many of those connections the server closed. The
goal: the server grows by less than `GROWTH_GOAL_MB`, its output budget for all clients
(`Limits.output_budget`, 64 MiB) and half as much again for the rest; exits 1 otherwise (a
`--baseline` server from before the budget is expected to miss it).
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

from launch import ARBITER, checkout_server, resident_mb, start_server

from arbiter.protocol import PROTOCOL_VERSION, encode_frame

GROWTH_GOAL_MB = 96.0


def measure(args: argparse.Namespace, scratch: Path) -> tuple[float, float]:
    """The server's resident MB before and after the clients; prints what it saw."""
    # ours runs with the bench limits a baseline gets (`checkout_server`): the default limits
    # would refuse most of 100 clients from one address sending 300 requests at once
    if args.baseline is None:
        command, env = ARBITER, None
    else:
        command, env = checkout_server(args.baseline, scratch)
    db = ["--db", str(scratch / "arbiter.db")]
    server, port = start_server([*command, *db], env, args.baseline)
    try:
        time.sleep(0.5)
        before = resident_mb(server.pid)
        clients = []
        for number in range(args.clients):
            client = socket.socket()
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.connect(("127.0.0.1", port))
            hello = {"type": "hello", "version": PROTOCOL_VERSION, "name": f"slow{number}"}
            client.sendall(encode_frame(hello))
            client.sendall(encode_frame({"type": "list_games"}) * args.requests)
            clients.append(client)
        time.sleep(3)
        after = resident_mb(server.pid)
        closed = 0
        for client in clients:
            client.setblocking(False)
            try:
                while client.recv(1 << 20):
                    pass
                closed += 1  # b"": the server closed it
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        print(
            f"{args.clients} clients x {args.requests} unread list_games: server RSS"
            f" {before:.0f} -> {after:.0f} MB; connections closed by the server: {closed}"
        )
    finally:
        server.terminate()
        server.wait()
    return before, after


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--baseline", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arbiter-slow-") as folder:
        before, after = measure(args, Path(folder))
    if after - before >= GROWTH_GOAL_MB:
        print(
            f"FAILED: the server grew {after - before:.0f} MB,"
            f" the goal is under {GROWTH_GOAL_MB:.0f} MB"
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
