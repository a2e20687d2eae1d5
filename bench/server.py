"""Moves relayed per second and server-added latency, against two floors measured in the same run.

    python bench/server.py [--seconds 5] [--matches 1,100,500] [--rounds 1] [--baseline DIR]
                           [--db postgresql://USER@HOST:PORT/NAME]

For each concurrency N, three servers run in a child process each, one after the other:

- the echo floor: a bare trio server that decodes each msgpack frame and echoes it back;
- the relay floor: a bare trio + msgpack server that speaks Arbiter's side of a game with none
  of Arbiter's work: it pairs seeks and replays recorded King's Court games (real states and
  hint lists, built before the run), answering each move with `move_accepted` to the mover and
  `opponent_moved` + `your_turn` to the other, unchecked and unstored. It is the most any server
  speaking this protocol could do with these clients;
- Arbiter itself (`python -m arbiter.server`, SQLite in a temporary directory);
- with `--db postgresql://...`, Arbiter again on that PostgreSQL database (a scratch one: each
  run adds its matches), right after the SQLite run. Its row's srv cpu is Arbiter's processes
  alone; a line under it gives the CPU PostgreSQL's own processes (every `postgres` process on
  the machine) spent per move meanwhile.

This process drives all three with the same lean clients (framing layer only, no message
objects, so the clients stay cheaper than the server): N "matches" of two connections each,
one frame in flight per match, as in a game. Against the echo server a turn is: A sends a
move-sized frame and waits for its echo, then B does. Against the relay and Arbiter a turn is a
King's Court move: the mover sends a move from its hints, and the opponent receives
`your_turn`. Latency is measured in this process on one clock: from the mover's send to the
opponent's `your_turn` (for the echo, from send to echo).

Columns: turns/s (moves, or round trips for the echo), latency, the CPU cores each side kept
busy (srv, cli: which one is the bottleneck; srv includes Arbiter's commit process), the
server's CPU time per turn (µs/turn, meaningful even when other work shares the machine), the
median wait from a seek to its `match_started` (start ms), and the ratio to the echo floor;
a line under each level gives Arbiter's ratio to the relay floor. The floors vary ~15% from run
to run: `--rounds N` repeats each level and prints the median ratios.

At 1 and 100 matches Arbiter's median ratio to the relay floor has a goal (`RELAY_GOALS`): the
script exits 1 when one is missed. At 1 match it also times a move's wait for its commit through
the server's own storage, alone, and prints the ceiling that wait puts on any server announcing no
move before it is stored: the relay's turn over that turn plus the wait.

`--baseline DIR` adds a fourth server: the Arbiter of another checkout (an older commit:
`git worktree add /tmp/before REV`), run after ours in each round. The goal is then that ours
relays at least 95% of the baseline's moves/s at every level (median over the rounds); the
script exits 1 when it does not.

Last, the sans-I/O part of a move timed in this process, without sockets, tasks or storage:
checking and applying the move, the end-of-game check, the next player's hints, and building and
encoding the three frames. No server design spends less than this per move, so it shows how much
of the server's µs/move is the work itself and how much is I/O around it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from frames import FrameStream
from launch import ARBITER, checkout_server, cpu_seconds, percentile, start_server

from arbiter import protocol
from arbiter.games import get_game
from arbiter.protocol import encode_frame
from arbiter.server.play import messages
from arbiter.server.play.messages import Positions
from arbiter.server.storage.sqlite_store import SQLiteStorage

HOST = "127.0.0.1"
MOVE_FRAME = {"type": "move", "match": 1, "move": "B4C4"}


@dataclass
class Tally:
    """Turns completed and their latencies, counted only inside the measuring window."""

    measuring: bool = False
    turns: int = 0
    latencies: list[float] = field(default_factory=list)
    pairings: list[float] = field(default_factory=list)
    """From a seek to its `match_started`: how long a new game waits to begin."""
    sent: dict[int, float] = field(default_factory=dict)
    """When the last move of each match was sent (any pair may be seated together)."""
    server_cpu: float = 0.0
    clients_cpu: float = 0.0
    """Cores busy in the measuring window: shows which side is the bottleneck."""
    database_cpu: float = 0.0
    """Cores PostgreSQL's processes kept busy, for Arbiter on PostgreSQL."""

    def record(self, latency: float) -> None:
        if self.measuring:
            self.turns += 1
            self.latencies.append(latency)


# -- the floor ---------------------------------------------------------------------------------


async def echo_server() -> None:
    async def echo(stream: trio.SocketStream) -> None:
        frames = FrameStream(stream)
        try:
            while True:
                await frames.send(await frames.receive())
        except (EOFError, trio.BrokenResourceError):
            pass

    listeners = await trio.open_tcp_listeners(0, host=HOST)
    print(f"listening on {HOST}:{listeners[0].socket.getsockname()[1]}", flush=True)
    await trio.serve_listeners(echo, listeners)


async def echo_match(port: int, tally: Tally) -> None:
    pair = [FrameStream(await trio.open_tcp_stream(HOST, port)) for _ in range(2)]
    turn = 0
    while True:
        frames = pair[turn % 2]
        sent = trio.current_time()
        await frames.send(MOVE_FRAME)
        await frames.receive()
        tally.record(trio.current_time() - sent)
        turn += 1


# -- the relay floor: Arbiter's conversation without Arbiter's work ----------------------------


@dataclass
class RecordedGame:
    """A seeded random King's Court game as Arbiter would send it, every frame built beforehand:
    the relay floor replays it whatever its clients answer, so its frames have the real sizes."""

    started: list[dict[str, Any]]
    """`match_started` for each seat."""
    turns: list[dict[str, Any]]
    """`your_turn` for each ply: the state and the hints."""
    over: dict[str, Any]


def random_game(seed: int) -> list[tuple[Any, Any, Any]]:
    """A seeded random King's Court game: each position, the move played there, and the
    position it led to."""
    rng = random.Random(seed)
    state = get_game("kings-court").new_game()
    played = []
    while state.outcome() is None:
        move = rng.choice(state.legal_moves())
        played.append((state, move, state := state.play(move)))
    return played


def record_games(count: int = 20) -> list[RecordedGame]:
    game = get_game("kings-court")
    recorded = []
    for seed in range(count):
        played = random_game(seed)
        first_state, final = played[0][0].to_data(), played[-1][2]
        outcome = final.outcome()
        assert outcome is not None
        turns = [
            protocol.YourTurn(
                match=1,
                ply=state.ply,
                state=state.to_data(),
                legal=game.format_moves(state.legal_moves()),
                time_left=60.0,
            ).to_wire()
            for state, _, _ in played
        ]
        moves = [game.format_move(move) for _, move, _ in played]
        started = [
            protocol.MatchStarted(
                match=1,
                game=game.name,
                seat=seat,
                seats=list(game.seats),
                players=["bot-a", "bot-b"],
                options={},
                time={"move": 60.0},
                hints=True,
                state=first_state,
            ).to_wire()
            for seat in game.seats
        ]
        over = protocol.GameOver(
            match=1,
            result=outcome.result.value,
            winner=None if outcome.winner is None else game.seats[outcome.winner],
            reason=outcome.reason,
            state=final.to_data(),
            moves=moves,
        ).to_wire()
        recorded.append(RecordedGame(started, turns, over))
    return recorded


@dataclass
class RelayedMatch:
    id: int
    pair: tuple[FrameStream, FrameStream]
    game: RecordedGame
    ply: int = 0


async def relay_server() -> None:
    """Pairs seeks in arrival order and plays each pair a recorded game, answering every move as
    Arbiter does (`move_accepted` to the mover, `opponent_moved` and `your_turn` to the other in
    one write) with no rules, clock, storage or message checks: what this protocol's frames cost
    a bare trio + msgpack server."""
    games = record_games()
    waiting: list[FrameStream] = []
    matches: dict[int, RelayedMatch] = {}
    ids = itertools.count(1)

    def start(pair: tuple[FrameStream, FrameStream]) -> None:
        match_id = next(ids)
        match = RelayedMatch(match_id, pair, games[match_id % len(games)])
        matches[match.id] = match
        for frames, started in zip(pair, match.game.started, strict=True):
            frames.send_now({**started, "match": match.id})
        pair[0].send_now({**match.game.turns[0], "match": match.id})

    def move(frames: FrameStream, text: str, match: RelayedMatch) -> None:
        match.ply += 1
        said = {"match": match.id, "ply": match.ply, "move": text, "elapsed": 0.001}
        frames.send_now({"type": "move_accepted", **said, "compensation": 0.0, "clocks": None})
        if match.ply == len(match.game.turns):
            del matches[match.id]
            for each in match.pair:
                each.send_now({**match.game.over, "match": match.id})
            return
        moved = {"type": "opponent_moved", **said, "seat": "white", "compensation": 0.0}
        match.pair[match.ply % 2].send_now(
            {**moved, "clocks": None}, {**match.game.turns[match.ply], "match": match.id}
        )

    async def serve(stream: trio.SocketStream) -> None:
        frames = FrameStream(stream)
        try:
            while True:
                message = await frames.receive()
                kind = message["type"]
                if kind == "move":
                    move(frames, message["move"], matches[message["match"]])
                elif kind == "hello":
                    frames.send_now(
                        {"type": "welcome", "version": 1, "session": "s", "server": "relay"}
                    )
                elif kind == "seek":
                    if waiting:
                        start((waiting.pop(), frames))
                    else:
                        waiting.append(frames)
        except (EOFError, trio.BrokenResourceError):
            pass

    listeners = await trio.open_tcp_listeners(0, host=HOST)
    print(f"listening on {HOST}:{listeners[0].socket.getsockname()[1]}", flush=True)
    await trio.serve_listeners(serve, listeners)


# -- Arbiter -----------------------------------------------------------------------------------


def every_move(state: dict[str, Any]) -> list[str]:
    """A King's Court position's moves, for the rare `your_turn` whose hints the server left out
    (a position with tens of thousands of jump routes: see server/play/match.py)."""
    game = get_game("kings-court")
    return game.format_moves(game.state_from_data(state).legal_moves())


async def arbiter_player(port: int, name: str, seed: int, tally: Tally) -> None:
    """Play King's Court games forever with instant random moves from the hints."""
    rng = random.Random(seed)
    sent = tally.sent
    frames = FrameStream(await trio.open_tcp_stream(HOST, port))
    await frames.send({"type": "hello", "version": 1, "name": name})
    await frames.receive()
    while True:
        await frames.send({"type": "seek", "game": "kings-court", "time": {"move": 60}})
        sought = trio.current_time()
        while (message := await frames.receive())["type"] != "game_over":
            if message["type"] == "match_started" and tally.measuring:
                tally.pairings.append(trio.current_time() - sought)
            elif message["type"] == "your_turn":
                match = message["match"]
                if match in sent:
                    tally.record(trio.current_time() - sent.pop(match))
                sent[match] = trio.current_time()
                move = rng.choice(message["legal"] or every_move(message["state"]))
                await frames.send({"type": "move", "match": match, "move": move})
        sent.pop(message["match"], None)


async def arbiter_match(port: int, index: int, tally: Tally) -> None:
    async with trio.open_nursery() as nursery:
        for side in range(2):
            nursery.start_soon(arbiter_player, port, f"bot{index}-{side}", index * 2 + side, tally)


# -- driver ------------------------------------------------------------------------------------


async def measure(port: int, matches: int, seconds: float, kind: str, server_pid: int) -> Tally:
    tally = Tally()
    async with trio.open_nursery() as nursery:
        for index in range(matches):
            if kind == "echo":
                nursery.start_soon(echo_match, port, tally)
            else:
                nursery.start_soon(arbiter_match, port, index, tally)
        await trio.sleep(max(1.0, matches / 200))  # warm-up: connect, pair, first moves
        server_before = cpu_seconds(server_pid, children=True)
        clients_before = cpu_seconds(os.getpid())
        database_before = postgres_cpu_seconds() if kind == "postgres" else 0.0
        tally.measuring = True
        await trio.sleep(seconds)
        tally.measuring = False
        tally.server_cpu = (cpu_seconds(server_pid, children=True) - server_before) / seconds
        tally.clients_cpu = (cpu_seconds(os.getpid()) - clients_before) / seconds
        if kind == "postgres":
            tally.database_cpu = (postgres_cpu_seconds() - database_before) / seconds
        nursery.cancel_scope.cancel()
    return tally


BASELINE_GOAL = 0.95
"""With --baseline: ours must relay at least this share of the baseline's moves/s."""
RELAY_GOALS = {1: 0.5, 100: 0.7}
"""At these concurrencies, Arbiter must relay at least this share of the relay floor's moves/s
(the median over the rounds): what a server that checks, stores and hints each move should
cost against one that only forwards prepared frames."""


def postgres_cpu_seconds() -> float:
    """User + system CPU time so far of every PostgreSQL server process on the machine (Linux
    /proc; they are the postmaster's children, not Arbiter's)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            name, rest = stat.read_text().split(" (", 1)[1].rsplit(")", 1)
        except (OSError, ValueError):
            continue  # a process that ended while we looked
        if name == "postgres":
            fields = rest.split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def commit_waits(path: Path, moves: int = 2000) -> list[float]:
    """Seconds from queueing each move to its commit's callback, one move at a time, through
    the server's own storage (its writer task and commit process) on a new SQLite file: what a
    server that announces no move before it is stored waits per move at 1 match."""

    async def run() -> list[float]:
        storage = SQLiteStorage.connect(path)
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(storage.run_writer)
                match = await storage.create_match(
                    "kings-court",
                    {},
                    {"move": 60},
                    ("forfeit", "forfeit"),
                    ("white", "black"),
                    ("a", "b"),
                )
                waits = []
                for ply in range(1, moves + 1):
                    stored = trio.Event()
                    started = time.perf_counter()
                    storage.record_move(match, ply, ("white", "black")[ply % 2], "A1A2", 0.001)
                    storage.after_commit(stored.set)
                    await stored.wait()
                    waits.append(time.perf_counter() - started)
                nursery.cancel_scope.cancel()
        finally:
            storage.close()
        return waits

    return trio.run(run)


def run_one(
    kind: str,
    matches: int,
    seconds: float,
    scratch: Path,
    baseline: Path | None = None,
    postgres: str | None = None,
) -> Tally:
    env, cwd = None, None
    if kind == "postgres" and postgres is not None:
        command = [*ARBITER, "--db", postgres]
    elif kind in ("echo", "relay"):
        command = [sys.executable, __file__, f"--{kind}-server"]
    elif kind == "baseline" and baseline is not None:
        command, env = checkout_server(baseline, scratch)
        cwd = baseline
        command += ["--db", str(scratch / f"baseline-{matches}-{time.monotonic_ns()}.db")]
    else:
        command = [*ARBITER, "--db", str(scratch / f"bench-{matches}-{time.monotonic_ns()}.db")]
    process, port = start_server(command, env, cwd)
    try:
        return trio.run(measure, port, matches, seconds, kind, process.pid)
    finally:
        process.kill()
        process.wait()


# -- the sans-I/O floor ------------------------------------------------------------------------


def sans_io_costs(positions: int = 3000, repeats: int = 5) -> dict[str, float]:
    """µs per move for each step the server takes on a King's Court move, in this process,
    with the server's own frame builders (`server.play.messages`).

    Positions come from seeded random games; each step runs over all of them in a tight loop,
    `repeats` times, and the fastest pass counts: other work on the machine only slows a pass.
    """
    game = get_game("kings-court")
    turns: list[tuple[Any, str, Any]] = []
    for seed in itertools.count():
        turns += [
            (state, game.format_move(move), after) for state, move, after in random_game(seed)
        ]
        if len(turns) >= positions:
            break
    wire = protocol.Connection(protocol.SERVER)
    wire.receive_data(
        encode_frame({"type": "hello", "version": protocol.PROTOCOL_VERSION, "name": "b"})
    )
    wire.next_message()
    wire.send(protocol.Welcome(version=protocol.PROTOCOL_VERSION, session="s", server="bench"))

    def check_and_apply() -> None:
        for state, text, _ in turns:
            game.apply_text(state, text)

    def end_check() -> None:
        for _, _, after in turns:
            after.outcome()

    def hints() -> None:
        for _, _, after in turns:
            game.format_moves(after.legal_moves())

    def frames() -> None:
        positions = Positions(game)
        for _, text, after in turns:
            legal = game.format_moves(after.legal_moves())
            position = positions.of(after)  # once for the move's frames
            played = (1, after.ply, text, 0.01, 0.0, None, position)
            wire.send(messages.move_accepted(*played))
            wire.send(messages.opponent_moved("white", *played))
            wire.send(messages.your_turn(1, after.ply, position, legal, 9.9, None))

    costs = {}
    for name, step in (
        ("check and apply", check_and_apply),
        ("end-of-game check", end_check),
        ("hints", hints),
        ("hints + 3 frames", frames),
    ):
        costs[name] = min(_timed(step) for _ in range(repeats)) / len(turns) * 1e6
    return costs


def _timed(step: Callable[[], None]) -> float:
    started = time.perf_counter()
    step()
    return time.perf_counter() - started


def measure_round(
    matches: int, seconds: float, scratch: Path, baseline: Path | None, postgres: str | None
) -> tuple[float, float, float]:
    """The echo floor, the relay floor, Arbiter, Arbiter on PostgreSQL if a database is given,
    then the baseline's Arbiter if one is given, at one concurrency: print their rows and return
    Arbiter's ratio to each floor and to the baseline (nan without one)."""
    floor = run_one("echo", matches, seconds, scratch)
    relay = run_one("relay", matches, seconds, scratch)
    ours = run_one("arbiter", matches, seconds, scratch)
    rows = [("echo", floor), ("relay", relay), ("arbiter", ours)]
    if postgres is not None:
        rows.append(("postgres", run_one("postgres", matches, seconds, scratch, None, postgres)))
    if baseline is not None:
        rows.append(("baseline", run_one("baseline", matches, seconds, scratch, baseline)))
    for name, tally in rows:
        rate = tally.turns / seconds
        ratio = tally.turns / floor.turns if floor.turns else float("nan")
        print(
            f"{matches:>7} {name:>8} {rate:>9.0f} "
            f"{percentile(tally.latencies, 0.5) * 1e3:>8.2f} "
            f"{percentile(tally.latencies, 0.99) * 1e3:>8.2f}"
            f" {tally.server_cpu:>8.2f} {tally.clients_cpu:>8.2f}"
            f" {tally.server_cpu / rate * 1e6 if rate else float('nan'):>8.0f}"
            + ("" if name == "echo" else f" {percentile(tally.pairings, 0.5) * 1e3:>8.1f}")
            + ("" if name == "echo" else f"  {ratio:.2f}x")
        )
    added = statistics.median(ours.latencies) - statistics.median(floor.latencies)
    of_relay = ours.turns / relay.turns if relay.turns else float("nan")
    print(
        f"        Arbiter: {of_relay:.2f}x the relay floor;"
        f" median latency added over the echo floor {added * 1e3:.2f} ms"
    )
    if matches == 1 and relay.turns:
        wait = statistics.median(commit_waits(scratch / f"commit-{time.monotonic_ns()}.db"))
        turn = seconds / relay.turns
        print(
            f"        a move stored before it is announced waits {wait * 1e6:.0f} µs for its commit"
            f" (alone, median): the relay's turn plus that caps such a server at"
            f" {turn / (turn + wait):.2f}x the relay floor"
        )
    if postgres is not None:
        on_postgres = rows[3][1]
        rate = on_postgres.turns / seconds
        print(
            f"        Arbiter on PostgreSQL: {on_postgres.turns / ours.turns:.2f}x its moves/s"
            f" on SQLite; PostgreSQL's processes {on_postgres.database_cpu:.2f} cores,"
            f" {on_postgres.database_cpu / rate * 1e6 if rate else float('nan'):.0f} µs/move"
        )
    of_baseline = float("nan")
    if baseline is not None:
        before = rows[-1][1]
        of_baseline = ours.turns / before.turns if before.turns else float("nan")
        print(f"        Arbiter: {of_baseline:.3f}x the baseline's moves/s")
    return ours.turns / floor.turns if floor.turns else float("nan"), of_relay, of_baseline


def print_sans_io_costs() -> None:
    costs = sans_io_costs()
    print("\nsans-I/O work per move, in this process (µs, the fastest of 5 passes):")
    for name, micros in costs.items():
        print(f"  {name:<20} {micros:7.1f}")
    total = costs["check and apply"] + costs["end-of-game check"] + costs["hints + 3 frames"]
    print(f"  {'total':<20} {total:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window per run")
    parser.add_argument("--matches", default="1,100,500", help="concurrency levels")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="floors/Arbiter rounds per level: the floors themselves vary ~15%% between runs",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout whose Arbiter to measure beside this one (goal: >= 0.95x)",
    )
    parser.add_argument(
        "--db",
        metavar="postgresql://USER@HOST:PORT/NAME",
        help="also run Arbiter on this (scratch) PostgreSQL database, beside SQLite",
    )
    parser.add_argument(
        "--sans-io", action="store_true", help="only time the sans-I/O part of a move"
    )
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--relay-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server or args.relay_server:
        trio.run(echo_server if args.echo_server else relay_server)
        return
    if args.sans_io:
        print_sans_io_costs()
        return
    print(
        f"{'matches':>7} {'server':>8} {'turns/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'srv cpu':>8} {'cli cpu':>8} {'µs/turn':>8} {'start ms':>8}  ratio"
    )
    missed = []
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as scratch:
        for matches in (int(n) for n in args.matches.split(",")):
            rounds = [
                measure_round(matches, args.seconds, Path(scratch), args.baseline, args.db)
                for _ in range(args.rounds)
            ]
            names = ("echo floor", "relay floor", "baseline")[: 3 if args.baseline else 2]
            for name, ratios in zip(names, zip(*rounds, strict=True), strict=False):
                if args.rounds > 1:
                    print(
                        f"        {matches} matches, {args.rounds} rounds: Arbiter / {name}"
                        f" median {statistics.median(ratios):.3f}x (from"
                        f" {min(ratios):.3f}x to {max(ratios):.3f}x)"
                    )
                median = statistics.median(ratios)
                if name == "baseline" and median < BASELINE_GOAL:
                    missed.append(
                        f"{matches} matches: {median:.3f}x the baseline's (goal {BASELINE_GOAL}x)"
                    )
                goal = RELAY_GOALS.get(matches)
                if name == "relay floor" and goal is not None and median < goal:
                    missed.append(
                        f"{matches} matches: {median:.3f}x the relay floor's (goal {goal}x)"
                    )
    print_sans_io_costs()
    if missed:
        print(f"\ngoal missed, in moves/s: {'; '.join(missed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
