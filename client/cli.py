"""`arbiter`: the command line for players, bots and referees."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import trio

from agents import AgentError, agents_for, all_agent_names, make_agent
from client.connection import ConnectionClosed, ServerError
from client.runner import GameRecord, run_bot
from games import GAME_NAMES, GameError, get_game


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except (GameError, AgentError) as error:
        parser.exit(2, f"arbiter: {error}\n")
    except (OSError, ConnectionClosed, ServerError) as error:
        parser.exit(1, f"arbiter: {error}\n")
    except KeyboardInterrupt:
        return 130
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arbiter", description="Play games on an Arbiter server.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    bot = commands.add_parser("bot", help="connect an agent to a server and play games")
    bot.add_argument("--server", required=True, type=host_port, help="HOST:PORT")
    bot.add_argument("--game", required=True, choices=GAME_NAMES)
    bot.add_argument("--agent", required=True, choices=all_agent_names())
    bot.add_argument("--name", help="player name (default: the agent's name)")
    bot.add_argument("--games", type=positive_int, default=1, help="games to play in a row")
    bot.add_argument("--seed", type=int, help="seed for the agent's random choices")
    bot.add_argument("--move-time", type=float, default=10.0, help="seconds per move to seek")
    bot.set_defaults(run=run_bot_command)

    ref = commands.add_parser("referee", help="play one game between two agents, locally over TCP")
    ref.add_argument("game", choices=GAME_NAMES)
    ref.add_argument("agents", nargs=2, metavar="AGENT", choices=all_agent_names())
    ref.add_argument("--seed", type=int, help="seed for the start (if random) and the agents")
    ref.add_argument("--move-time", type=float, default=10.0, help="seconds per move")
    ref.add_argument("--json", action="store_true", help="print one JSON object instead")
    ref.set_defaults(run=run_referee_command)

    listing = commands.add_parser("agents", help="list the agents each game can be played by")
    listing.add_argument("game", nargs="?", choices=GAME_NAMES, help="one game only")
    listing.set_defaults(run=run_agents_command)

    demo = commands.add_parser("demo", help="watch two agents play King's Court over TCP")
    demo.add_argument("--seed", type=int, default=1)
    demo.set_defaults(run=lambda args: _demo(args.seed))
    return parser


def host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, like 127.0.0.1:7777, not {text!r}")
    return host, int(port)


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return int(text)


def run_agents_command(args: argparse.Namespace) -> int:
    for name in [args.game] if args.game else GAME_NAMES:
        print(f"{name}:")
        for info in agents_for(name):
            print(f"  {info.name:<20} {info.help}")
    return 0


def run_bot_command(args: argparse.Namespace) -> int:
    host, port = args.server
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
            time_control={"move": args.move_time},
            on_result=report,
        )
    )
    return 0


def run_referee_command(args: argparse.Namespace) -> int:
    from client.referee import referee

    game = get_game(args.game)

    def show(ply: int, seat: str, move: str) -> None:
        if not args.json:
            print(f"{ply:4d}. {seat} {move}", flush=True)

    record = trio.run(
        lambda: referee(
            args.game, tuple(args.agents), seed=args.seed, move_time=args.move_time, on_move=show
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
    from client.demo import run_demo

    return run_demo(seed)


if __name__ == "__main__":
    sys.exit(main())
