"""`arbiter bot`: an agent or a Player module connected to a server, playing games in a row."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import trio

from arbiter.agents import all_agent_names, make_agent
from arbiter.client.options import (
    TIME_HELP,
    add_server_option,
    player_name_arg,
    positive_int,
    server_tls,
    time_control,
)
from arbiter.client.player_module import player_name, run_player_bot
from arbiter.client.runner import GameRecord, LadderEntry, run_bot, waiting_lines
from arbiter.games import GAME_NAMES


def add_arguments(bot: argparse.ArgumentParser) -> None:
    add_server_option(bot, required=True)
    bot.add_argument("--game", required=True, choices=GAME_NAMES)
    player = bot.add_mutually_exclusive_group(required=True)
    player.add_argument("--agent", choices=all_agent_names())
    player.add_argument("--player", metavar="MODULE.py", help="a Player module file to play")
    bot.add_argument("--name", help="player name (default: the agent's or module's name)")
    bot.add_argument(
        "--token",
        default=os.environ.get("ARBITER_TOKEN") or None,  # set but empty: a guest
        help="a registered player's token, to play its tournament games (default: $ARBITER_TOKEN)",
    )
    bot.add_argument("--games", type=positive_int, default=1, help="games to play in a row")
    bot.add_argument("--seed", type=int, help="seed for the agent's random choices")
    bot.add_argument("--time", type=time_control, help=TIME_HELP + " (default: the game's)")
    bot.add_argument(
        "--opponent",
        type=player_name_arg,
        metavar="NAME",
        help="play only against this player (a challenge)",
    )
    bot.add_argument(
        "--ladder",
        action="store_true",
        help="join the server's ladder of the game (needs --token): the ladder pairs each game"
        " and keeps your rating (docs/ladder.md)",
    )
    bot.add_argument(
        "--section",
        metavar="CLASS/SECTION",
        help="with --ladder: the ladder of your class's section, not the game's own",
    )
    bot.set_defaults(run=run_bot_command)


def run_bot_command(args: argparse.Namespace) -> int:
    host, port = args.server
    ladder = ladder_entry(args)
    if args.player:
        return _run_player_bot(args, ladder)
    name = args.name or args.agent

    def agent_for(game: Any, number: int) -> Any:
        return make_agent(args.agent, game, None if args.seed is None else args.seed + number)

    def report(record: GameRecord) -> None:
        print(f"match {record.match}: {name} as {record.seat}: {record.summary()}", flush=True)

    trio.run(
        lambda: run_bot(
            host,
            port,
            args.game,
            agent_for,
            name=name,
            games=args.games,
            time_control=None if args.time is None else args.time.to_wire(),
            token=args.token,
            opponent=args.opponent,
            on_result=report,
            on_message=waiting_lines(say),
            tls=server_tls(args),
            ladder=ladder,
        )
    )
    return 0


def ladder_entry(args: argparse.Namespace) -> LadderEntry | None:
    """The ladder `--ladder` (and `--section`) name; a usage error (status 2) for a `--section`
    without `--ladder`."""
    if args.section is not None and not args.ladder:
        print(
            "arbiter bot: error: --section names a section's ladder: give --ladder too",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return LadderEntry(args.section) if args.ladder else None


def _run_player_bot(args: argparse.Namespace, ladder: LadderEntry | None) -> int:
    host, port = args.server
    name = args.name or player_name(args.player)

    def report(record: GameRecord) -> None:
        print(f"match {record.match}: {name} as {record.seat}: {record.summary()}", flush=True)

    trio.run(
        lambda: run_player_bot(
            host,
            port,
            args.game,
            Path(args.player),
            name=name,
            games=args.games,
            time_control=None if args.time is None else args.time.to_wire(),
            opponent=args.opponent,
            on_result=report,
            on_message=waiting_lines(say),
            tls=server_tls(args),
            token=args.token,
            ladder=ladder,
        )
    )
    return 0


def say(line: str) -> None:
    """A bot's word to the person who started it, on stderr: stdout holds its results."""
    print(f"arbiter bot: {line}", file=sys.stderr, flush=True)
