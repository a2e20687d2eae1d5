"""`arbiter demo` (what `make demo` runs): a real server, SQLite, two agents over TCP.

The board is drawn after every move from the moves the first seat hears over the wire, and at
the end the game is read back from the SQLite file, to show what the server kept.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import trio

from arbiter.client.referee import referee
from arbiter.games import get_game
from arbiter.server.app import open_records, read_records

GAME = "kings-court"
AGENTS = ("greedy", "random")


def add_arguments(demo: argparse.ArgumentParser) -> None:
    demo.add_argument("--seed", type=int, default=1)
    demo.set_defaults(run=lambda args: run_demo(args.seed))


def run_demo(seed: int = 1) -> int:
    game = get_game(GAME)
    state = game.new_game()
    print(
        f"Arbiter demo: {game.title}, {AGENTS[0]} ({game.seats[0]}) vs {AGENTS[1]} "
        f"({game.seats[1]}), over TCP on 127.0.0.1 with SQLite\n"
    )
    print(state.render())

    def show(ply: int, seat: str, move: str) -> None:
        nonlocal state
        _, state = game.apply_text(state, move)
        print(f"\nmove {ply}: {seat} plays {move}")
        print(state.render())

    with tempfile.TemporaryDirectory(prefix="arbiter-demo-") as scratch:
        db_path = Path(scratch) / "demo.db"
        record = trio.run(
            lambda: referee(
                GAME, AGENTS, seed=seed, time_control="move=5", db_path=db_path, on_move=show
            )
        )
        db = open_records(db_path)
        try:
            (stored,) = read_records(db, matches=[record.match], unfinished=True)
        finally:
            db.close()
    print(
        f"\nSQLite record of match {record.match}: {stored.status},"
        f" {len(stored.moves)} moves stored ({stored.reason})"
    )
    print(f"result: {record.summary()}")
    return 0
