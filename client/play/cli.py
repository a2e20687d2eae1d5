"""`arbiter play` and `arbiter watch`: their arguments, and the mode each command line picks."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from arbiter.client.options import (
    TIME_HELP,
    add_server_option,
    player_name_arg,
    server_tls,
    time_control,
)
from arbiter.client.player_module import agent_or_module
from arbiter.games import GAME_NAMES, Game, get_game

HUMAN = "human"
LOCAL_TIME = Game.person_time_control
"""A person's default at this terminal, as on a server (`move=10`, the games' default for
programs, is too short to read a board)."""
WATCH_TIME = "move=10"
WATCH_DELAY = 0.5
"""Seconds each move of a local agents' game stays on screen: most agents move faster than
anyone can follow."""
WATCH_USAGE = (
    "arbiter watch MATCH --server HOST:PORT\n"
    "       arbiter watch --vs AGENT_A AGENT_B GAME [--time CONTROL] [--seed N] [--delay S]"
)


def add_play_arguments(play: argparse.ArgumentParser) -> None:
    play.add_argument("game", choices=GAME_NAMES)
    against = play.add_mutually_exclusive_group(required=True)
    add_server_option(play, group=against, help="seek an opponent on this server")
    against.add_argument(
        "--vs",
        metavar="AGENT",
        type=opponent,
        help="an agent (or MODULE.py) to play here, or 'human' for two people at one keyboard",
    )
    play.add_argument(
        "--time",
        type=time_control,
        help=f"{TIME_HELP} (default: {LOCAL_TIME}, also on a server)",
    )
    play.add_argument("--seat", help="your seat against an agent (default: the first to move)")
    play.add_argument("--seed", type=int, help="seed for a random start and for the agent")
    play.add_argument("--name", help="the name you play under (default: your login)")
    play.add_argument(
        "--opponent",
        type=player_name_arg,
        metavar="NAME",
        help="with --server: play only against this player (a challenge)",
    )
    play.set_defaults(run=run_play, parser=play)


def add_watch_arguments(watch: argparse.ArgumentParser) -> None:
    watch.usage = WATCH_USAGE
    watch.add_argument("target", metavar="MATCH|GAME", help="a match id with --server, a game")
    source = watch.add_mutually_exclusive_group(required=True)
    add_server_option(watch, group=source, help="the match's server")
    source.add_argument(
        "--vs", nargs=2, metavar=("AGENT_A", "AGENT_B"), type=agent_or_module, help="two agents"
    )
    watch.add_argument("--time", type=time_control, default=WATCH_TIME, help=TIME_HELP)
    watch.add_argument("--seed", type=int, help="seed for a random start and for the agents")
    watch.add_argument(
        "--delay",
        type=float,
        default=WATCH_DELAY,
        help=f"seconds each move of two local agents stays on screen (default {WATCH_DELAY})",
    )
    watch.set_defaults(run=run_watch, parser=watch)


def opponent(text: str) -> str:
    return HUMAN if text == HUMAN else agent_or_module(text)


def default_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        return "player"
    return name if name.isprintable() and 0 < len(name) <= 64 else "player"


def run_play(args: argparse.Namespace) -> int:
    from arbiter.client.play.modes import Setup, play_agent, play_hot_seat, play_on_server
    from arbiter.client.play.terminal import open_display  # Rich and the server load only to play

    game = get_game(args.game)
    name = args.name or default_name()
    if args.seat is not None and args.vs in (None, HUMAN):
        args.parser.error("--seat chooses your seat against an agent (--vs AGENT)")
    if args.opponent is not None and not args.server:
        args.parser.error("--opponent challenges a player on a server: use it with --server")
    display = open_display()
    if args.server:
        setup = Setup(game, args.seed, args.time, args.opponent)
        return _run(play_on_server, setup, display, *args.server, name, server_tls(args))
    setup = Setup(game, args.seed, args.time or time_control(LOCAL_TIME))
    if args.vs == HUMAN:
        return _run(play_hot_seat, setup, display, (name, name))
    seat = 0 if args.seat is None else game.seat_index(args.seat)
    crashes: list[str] = []
    status = _run(play_agent, setup, display, args.vs, name, seat, crashes)
    return _reported(status, crashes)


def run_watch(args: argparse.Namespace) -> int:
    from arbiter.client.play.modes import Setup, watch_agents, watch_on_server
    from arbiter.client.play.terminal import open_display

    display = open_display()
    if args.server:
        if not args.target.isdigit():
            args.parser.error(f"with --server, watch takes a match id, not {args.target!r}")
        return _run(watch_on_server, display, *args.server, int(args.target), server_tls(args))
    if args.target not in GAME_NAMES:
        args.parser.error(f"no game {args.target!r} (games: {', '.join(GAME_NAMES)})")
    setup = Setup(get_game(args.target), args.seed, args.time)
    crashes: list[str] = []
    status = _run(watch_agents, setup, display, tuple(args.vs), args.delay, crashes)
    return _reported(status, crashes)


def _run(function: Callable[..., Awaitable[int]], *args: Any) -> int:
    """`trio.run`, with an error from inside the nurseries raised as itself: the command line
    names a refused connection or a Ctrl-C plainly, as it does for the other commands."""
    try:
        return trio.run(function, *args)
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        interrupt = next((e for e in leaves if isinstance(e, KeyboardInterrupt)), None)
        if interrupt is not None or len(leaves) == 1:
            raise (interrupt or leaves[0]) from None
        raise


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _reported(status: int, crashes: list[str]) -> int:
    """Crashed Player modules' reports, printed once the screen is given back."""
    for report in crashes:
        print(report, file=sys.stderr)
    return 1 if crashes else status
