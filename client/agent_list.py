"""`arbiter agents`: the agents each game can be played by, for people or for programs."""

from __future__ import annotations

import argparse
import json

from arbiter.agents import agents_for
from arbiter.agents.strength import strengths
from arbiter.games import GAME_NAMES


def add_arguments(listing: argparse.ArgumentParser) -> None:
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
