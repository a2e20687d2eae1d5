"""`arbiter-server`: run the referee server until Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
from functools import partial

import trio

from server.app import bound_port, serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="arbiter-server", description="Run the Arbiter game server."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=7777, help="TCP port; 0 picks a free one")
    parser.add_argument("--db", default="arbiter.db", help="SQLite file for the game records")
    parser.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds a disconnected player keeps its seat (its clock running) to reconnect",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    status = 0
    try:
        trio.run(_run, args.host, args.port, args.db, args.grace)
    except* KeyboardInterrupt:
        print("stopped", flush=True)
    except* sqlite3.Error as group:
        print(f"arbiter-server: cannot open database {args.db!r}: {first(group)}", file=sys.stderr)
        status = 1
    except* OSError as group:
        print(
            f"arbiter-server: cannot listen on {args.host}:{args.port}: {first(group)}",
            file=sys.stderr,
        )
        status = 1
    return status


def first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf error of a group: the one worth a sentence."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def _run(host: str, port: int, db: str, grace: float) -> None:
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(serve, host, port, db, grace=grace))
        print(f"listening on {host}:{bound_port(listeners)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
