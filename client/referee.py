"""`arbiter referee`: one game between two agents through a real server on 127.0.0.1.

The server runs in this process on a free port with a throwaway SQLite file, and both agents
connect to it as ordinary TCP clients, so a local game is refereed exactly as a remote one:
same protocol, same clocks, same defaults.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from arbiter import protocol
from arbiter.agents import Agent
from arbiter.client.connection import ClientConnection
from arbiter.client.options import TIME_HELP, move_time, time_control
from arbiter.client.player_module import (
    PlayerCrashed,
    agent_or_module,
    is_module_path,
    make_any_agent,
    play_seat,
    player_name,
)
from arbiter.client.runner import GameRecord, MessageHook
from arbiter.client.sandbox.choice import add_sandbox_option, use_sandbox
from arbiter.client.sandbox.toolchain import SandboxUnavailable
from arbiter.games import GAME_NAMES, Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import local_server


def seeded_options(game: Game[Any, Any], seed: int | None) -> dict[str, Any]:
    """The game's seed option set to `seed`, for games with a random start."""
    if seed is None:
        return {}
    return {option.name: seed for option in game.options if option.is_seed}


async def referee(
    game_name: str,
    agent_names: tuple[str, str],
    *,
    seed: int | None = None,
    time_control: TimeControl | str | None = None,
    db_path: Path | None = None,
    on_move: Callable[[int, str, str], None] | None = None,
    sandboxed: bool = True,
) -> GameRecord:
    """Play one game, the first agent in the first seat; returns the record as seat 0 saw it
    (as seat 1 saw it when seat 0's Player module crashed, which the server scores a default).

    An agent name may be a Player module's path (`client.player_module`), whose process runs
    in the sandbox (`client.sandbox`) unless `sandboxed` is False. `time_control` is a
    `TimeControl` or its command-line form (`move=5`, `clock=300+2`); None for the game's
    default. The server keeps no grace period for a dropped seat: in one process there is no
    network to come back over.
    """
    game = get_game(game_name)
    control = time_control or game.default_time_control
    time = (TimeControl.parse(control) if isinstance(control, str) else control).to_wire()
    agents = [
        make_any_agent(name, game, None if seed is None else seed + index, sandboxed=sandboxed)
        for index, name in enumerate(agent_names)
    ]
    names = (player_name(agent_names[0]), player_name(agent_names[1]))
    async with local_server(db_path) as server:
        return await referee_on(
            server, game, names, (agents[0], agents[1]), seed=seed, time=time, on_move=on_move
        )


async def referee_on(
    server: tuple[str, int],
    game: Game[Any, Any],
    names: tuple[str, str],
    agents: tuple[Agent, Agent],
    *,
    seed: int | None = None,
    time: dict[str, Any],
    on_move: Callable[[int, str, str], None] | None = None,
) -> GameRecord:
    """One game on a running server: `agents` connect as `names` (the first in the first seat)
    and play it under the time control `time` (its wire form), with the start `seed` picks.
    Returns the record as `referee` does. A ladder plays all its games on one server."""
    host, port = server
    records: dict[int, GameRecord] = {}
    reporter = _Reporter(on_move)

    async def seat(index: int, hook: MessageHook | None) -> None:
        async with await ClientConnection.open(host, port, names[index]) as conn:
            try:
                records[index] = await play_seat(
                    conn,
                    game,
                    agents[index],
                    options=seeded_options(game, seed),
                    time_control=time,
                    on_message=hook,
                )
            except PlayerCrashed:
                return  # reported on stderr; leaving closes the seat's connection

    async with trio.open_nursery() as players:
        players.start_soon(seat, 0, reporter)
        await reporter.seeking.wait()
        players.start_soon(seat, 1, None)
    return records[min(records)]


class _Reporter:
    """Watches the first seat's messages: when its seek is open, and every move of the game."""

    def __init__(self, on_move: Callable[[int, str, str], None] | None) -> None:
        self.seeking = trio.Event()
        self._on_move = on_move
        self._seat = ""

    def __call__(self, message: protocol.Message) -> None:
        match message:
            case protocol.Seeking():
                self.seeking.set()
            case protocol.MatchStarted(seat=seat):
                self._seat = seat
            case protocol.MoveAccepted(ply=ply, move=move) if self._on_move:
                self._on_move(ply, self._seat, move)
            case protocol.OpponentMoved(ply=ply, seat=seat, move=move) if self._on_move:
                self._on_move(ply, seat, move)


# -- the command line ----------------------------------------------------------------------------


def add_arguments(ref: argparse.ArgumentParser) -> None:
    ref.add_argument("game", choices=GAME_NAMES)
    ref.add_argument(
        "agents", nargs=2, metavar="AGENT", type=agent_or_module, help="agent name or MODULE.py"
    )
    ref.add_argument("--seed", type=int, help="seed for the start (if random) and the agents")
    timing = ref.add_mutually_exclusive_group()
    timing.add_argument("--time", type=time_control, help=TIME_HELP + " (default: the game's)")
    timing.add_argument(
        "--move-time",
        dest="time",
        type=move_time,
        metavar="S",
        help="seconds per move: the same as --time move=S",
    )
    ref.add_argument("--json", action="store_true", help="print one JSON object instead")
    add_sandbox_option(ref)
    ref.set_defaults(run=run_referee_command)


def run_referee_command(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    sandboxed = False
    if any(is_module_path(agent) for agent in args.agents):
        try:
            sandboxed = use_sandbox(args)
        except SandboxUnavailable as error:
            print(f"arbiter: {error}", file=sys.stderr)
            return 2

    def show(ply: int, seat: str, move: str) -> None:
        if not args.json:
            print(f"{ply:4d}. {seat} {move}", flush=True)

    record = trio.run(
        lambda: referee(
            args.game,
            tuple(args.agents),
            seed=args.seed,
            time_control=args.time,
            on_move=show,
            sandboxed=sandboxed,
        )
    )
    if args.json:
        print(
            json.dumps(
                {
                    "game": game.name,
                    "seats": dict(zip(game.seats, args.agents, strict=True)),
                    "outcome": record.result,
                    "winner": record.winner,
                    "reason": record.reason,
                    "moves": record.moves,
                }
            )
        )
    else:
        print(f"result: {record.summary()}")
    return 0
