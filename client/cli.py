"""`arbiter`: the command line for players, bots and referees."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import trio

from arbiter.agents import AgentError, agents_for, all_agent_names, make_agent
from arbiter.agents.strength import strengths
from arbiter.client import check, ladder, lobby_view, match, play, records, submit, tournament
from arbiter.client.connection import ConnectionClosed, ServerError, TLSFailed
from arbiter.client.options import (
    TIME_HELP,
    add_server_option,
    move_time,
    player_name_arg,
    positive_int,
    server_tls,
    time_control,
)
from arbiter.client.player_module import (
    PlayerCrashed,
    agent_or_module,
    is_module_path,
    player_name,
    run_player_bot,
)
from arbiter.client.runner import GameRecord, LadderEntry, run_bot, waiting_lines
from arbiter.client.sandbox.choice import add_sandbox_option, use_sandbox
from arbiter.client.sandbox.toolchain import SandboxUnavailable
from arbiter.client.worker import worker
from arbiter.games import GAME_NAMES, GameError, get_game
from arbiter.protocol.submission import SubmissionError
from arbiter.server.app import DatabaseInUse


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        try:
            result: int = args.run(args)
        except BaseExceptionGroup as group:  # trio's nurseries wrap what their tasks raised
            raise sole_error(group) from None
    except (GameError, AgentError, SubmissionError) as error:
        parser.exit(2, f"arbiter: {error}\n")
    except (OSError, ConnectionClosed, ServerError, TLSFailed, DatabaseInUse) as error:
        parser.exit(1, f"arbiter: {error}\n")
    except PlayerCrashed:
        return 1  # the crash and its traceback are on stderr already
    except KeyboardInterrupt:
        return 130
    return result


def sole_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error inside nested groups of one, to be reported as itself; else the group."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arbiter", description="Play games on an Arbiter server.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    bot = commands.add_parser("bot", help="connect an agent to a server and play games")
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

    ref = commands.add_parser("referee", help="play one game between two agents, locally over TCP")
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

    listing = commands.add_parser("agents", help="list the agents each game can be played by")
    listing.add_argument("game", nargs="?", choices=GAME_NAMES, help="one game only")
    listing.add_argument(
        "--json", action="store_true", help="one JSON object, game -> agent names (for programs)"
    )
    listing.add_argument(
        "--strength",
        action="store_true",
        help="with --json: game -> {agent: tier}, weakest 0, as docs/agents.md measured",
    )
    listing.set_defaults(run=run_agents_command)

    check.add_parser(commands)
    lobby_view.add_parser(commands)
    worker.add_parser(commands)
    play.add_parsers(commands)
    tournament.add_parsers(commands)
    ladder.add_parsers(commands)
    match.add_parser(commands)
    records.add_parsers(commands)
    submit.add_parsers(commands)

    demo = commands.add_parser("demo", help="watch two agents play King's Court over TCP")
    demo.add_argument("--seed", type=int, default=1)
    demo.set_defaults(run=lambda args: _demo(args.seed))
    return parser


def run_agents_command(args: argparse.Namespace) -> int:
    games = [args.game] if args.game else GAME_NAMES
    if args.json and args.strength:  # what a server's leagues ask of their bosses
        print(json.dumps({game: strengths(game) for game in games}))
        return 0
    if args.json:  # what a server's `AgentProgram` asks (server.tournaments.local_agents)
        print(json.dumps({game: [info.name for info in agents_for(game)] for game in games}))
        return 0
    for name in games:
        print(f"{name}:")
        for info in agents_for(name):
            print(f"  {info.name:<20} {info.help}")
    return 0


def run_bot_command(args: argparse.Namespace) -> int:
    host, port = args.server
    if args.player:
        return _run_player_bot(args)
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
            ladder=ladder_entry(args),
        )
    )
    return 0


def ladder_entry(args: argparse.Namespace) -> LadderEntry | None:
    """The ladder `--ladder` (and `--section`) name; SystemExit with a sentence for a
    `--section` without `--ladder`."""
    if args.section is not None and not args.ladder:
        build_parser().error("--section names a section's ladder: give --ladder too")
    return LadderEntry(args.section) if args.ladder else None


def _run_player_bot(args: argparse.Namespace) -> int:
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
            ladder=ladder_entry(args),
        )
    )
    return 0


def say(line: str) -> None:
    """A bot's word to the person who started it, on stderr: stdout holds its results."""
    print(f"arbiter bot: {line}", file=sys.stderr, flush=True)


def run_referee_command(args: argparse.Namespace) -> int:
    from arbiter.client.referee import referee

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


def _demo(seed: int) -> int:
    from arbiter.client.demo import run_demo

    return run_demo(seed)


if __name__ == "__main__":
    sys.exit(main())
