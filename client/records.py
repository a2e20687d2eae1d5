"""`arbiter replay MATCH` and `arbiter export`: the game records a server keeps, for people and
for programs.

Both read the server's SQLite file, read-only (safe beside a running server), through the
functions `server.app` offers for it (the file's layout is the server's business): it holds
what no client saw whole, the time each move took and the lag allowance it was granted. `export`
writes JSON Lines, one game per line, in the schema docs/records.md describes (`SCHEMA`);
`replay` rebuilds every position through the game's own rules and steps through them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TextIO, TypeVar

from arbiter.client.verdict import verdict
from arbiter.games import get_game
from arbiter.server.app import (
    DB_HELP,
    FullRecord,
    RecordsFile,
    StoreError,
    default_db,
    missing_records,
    open_records,
    read_records,
)

T = TypeVar("T")

SCHEMA = "arbiter-record/1"
"""The `schema` field of every exported line; it changes when a field changes meaning."""


# -- export ----------------------------------------------------------------------------------------


def record_to_json(record: FullRecord) -> dict[str, Any]:
    """One game as an exported line holds it (docs/records.md)."""
    return {
        "schema": SCHEMA,
        "match": record.id,
        "game": record.game,
        "options": record.options,
        "time_control": record.time_control,
        "illegal": record.illegal,
        "status": record.status,
        "started_at": _iso(record.started_at),
        "ended_at": None if record.ended_at is None else _iso(record.ended_at),
        "seats": record.seats,
        "players": record.players,
        "result": record.result,
        "winner": record.winner,
        "reason": record.reason,
        "termination": record.termination,
        "scores": record.scores,
        "defaults": record.defaults,
        "clocks": record.clocks,
        "tournament": record.tournament,
        "moves": [
            {
                "ply": move.ply,
                "seat": move.seat,
                "move": move.move,
                "elapsed": move.elapsed,
                "compensation": move.compensation,
                "clock": move.clock,
                "cpu": move.cpu,
            }
            for move in record.moves
        ],
    }


def _iso(stamp: float) -> str:
    """UTC, to the millisecond, with a Z: what every JSON reader parses."""
    moment = datetime.fromtimestamp(stamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def export(
    db: RecordsFile,
    out: TextIO,
    *,
    tournament: str | None = None,
    matches: list[int] | None = None,
    unfinished: bool = False,
) -> int:
    """Write one JSON line per stored game; returns how many."""
    count = 0
    for record in read_records(db, matches=matches, tournament=tournament, unfinished=unfinished):
        out.write(json.dumps(record_to_json(record), ensure_ascii=False) + "\n")
        count += 1
    return count


# -- replay ----------------------------------------------------------------------------------------


def frames(record: FullRecord) -> list[str]:
    """The picture before the first move and after each one, each under a line that says which
    move it was, how long it took and what was left on the clock."""
    game = get_game(record.game)
    state = game.initial_state(record.options)
    players = dict(zip(record.seats, record.players, strict=True))
    shown = [f"{_title(record)}\nstart\n{state.render()}"]
    for move in record.moves:
        _, state = game.apply_text(state, move.move)
        shown.append(f"{_title(record)}\n{_move_line(move, players)}\n{state.render()}")
    shown[-1] += f"\n{_ending(record)}"
    return shown


def _title(record: FullRecord) -> str:
    seats = ", ".join(
        f"{seat} {name}" for seat, name in zip(record.seats, record.players, strict=True)
    )
    where = ""
    if record.tournament is not None:
        where = f" ({record.tournament['name']}, round {record.tournament['round']})"
    return f"match {record.id}: {record.game}, {seats}{where}"


def _move_line(move: Any, players: dict[str, str]) -> str:
    parts = [f"{move.elapsed:.2f} s"]
    if move.cpu is not None:
        parts.append(f"{move.cpu:.2f} CPU s")
    if move.compensation >= 0.005:  # shown to the hundredth: a smaller one would read 0.00
        parts.append(f"lag allowance {move.compensation:.2f} s")
    if move.clock is not None:
        parts.append(f"clock {move.clock:.1f} s")
    return f"{move.ply}. {move.seat} ({players[move.seat]}) {move.move}   [{', '.join(parts)}]"


def _ending(record: FullRecord) -> str:
    if record.status == "aborted":
        return f"ended by: {record.termination}\nno result ({record.reason})"
    if record.status != "finished":
        return "unfinished"
    if record.termination is not None:  # None in a game stored before terminations were
        return f"ended by: {record.termination}\n{_result(record)}"
    return _result(record)


def _result(record: FullRecord) -> str:
    """A finished record's result (which a finished record always has)."""
    assert record.result is not None, record.id
    assert record.reason is not None, record.id
    return f"result: {verdict(record.result, record.winner, record.reason)}"


def step(shown: list[str], keys: Iterator[str], out: TextIO) -> None:
    """Show one frame at a time: Enter or `n` next, `b` back, a number jumps to that move,
    `q` quits."""
    index = 0
    while True:
        out.write(shown[index] + "\n")
        out.write(f"[{index}/{len(shown) - 1}] Enter next, b back, NUMBER jump, q quit > ")
        out.flush()
        key = next(keys, "q").strip().lower()
        if key == "q":
            return
        if key == "b":
            index = max(0, index - 1)
        elif key.isdigit():
            index = min(len(shown) - 1, int(key))
        elif index == len(shown) - 1:
            return
        else:
            index += 1


def play_through(shown: list[str], out: TextIO, delay: float) -> None:
    for frame in shown:
        out.write(frame + "\n\n")
        out.flush()
        time.sleep(delay)


# -- the command line ------------------------------------------------------------------------------


def add_replay_arguments(replay: argparse.ArgumentParser) -> None:
    replay.add_argument("match", type=int, metavar="MATCH")
    replay.add_argument("--db", default=default_db(), help=DB_HELP)
    replay.add_argument("--delay", type=float, help="play it through, this many seconds a move")
    replay.add_argument("--all", action="store_true", help="print every position, no stepping")
    replay.set_defaults(run=_run_replay)


def add_export_arguments(dump: argparse.ArgumentParser) -> None:
    dump.add_argument("--db", default=default_db(), help=DB_HELP)
    dump.add_argument("--tournament", help="only this tournament's games")
    dump.add_argument("--match", type=int, action="append", help="only this match (repeatable)")
    dump.add_argument("--unfinished", action="store_true", help="include games still in play")
    dump.add_argument("-o", "--output", help="file to write (default: standard output)")
    dump.set_defaults(run=_run_export)


def _read(path: str, read: Callable[[RecordsFile], T]) -> T | None:
    """`read(db)` on the file opened read-only, or None after saying why it could not be read
    (no such file, not SQLite, not an Arbiter server's file)."""
    try:
        db = open_records(path)
        try:
            return read(db)
        finally:
            db.close()
    except StoreError as error:
        print(
            f"arbiter: cannot read {path!r} as an Arbiter server's records: {error}",
            file=sys.stderr,
        )
        return None


def _run_replay(args: argparse.Namespace) -> int:
    found = _read(args.db, lambda db: list(read_records(db, matches=[args.match], unfinished=True)))
    if found is None:
        return 1
    if not found:
        print(f"arbiter: no match {args.match} in {args.db}", file=sys.stderr)
        return 1
    shown = frames(found[0])
    if args.delay is not None:
        play_through(shown, sys.stdout, args.delay)
    elif args.all or not sys.stdin.isatty():
        sys.stdout.write("\n\n".join(shown) + "\n")
    else:
        step(shown, iter(sys.stdin.readline, ""), sys.stdout)
    return 0


def _run_export(args: argparse.Namespace) -> int:
    missing = _read(args.db, lambda db: missing_records(db, **_filters(args)))
    if missing:
        print(f"arbiter: {missing} in {args.db!r}: nothing exported", file=sys.stderr)
    if missing is None or missing:
        return 1

    def write(db: RecordsFile) -> int:
        if args.output is None:
            return export(db, sys.stdout, **_filters(args))
        with open(args.output, "w", encoding="utf-8") as out:
            return export(db, out, **_filters(args))

    count = _read(args.db, write)
    if count is None:
        return 1
    print(f"exported {count} games", file=sys.stderr)
    return 0


def _filters(args: argparse.Namespace) -> dict[str, Any]:
    return {"tournament": args.tournament, "matches": args.match, "unfinished": args.unfinished}
