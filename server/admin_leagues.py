"""`arbiter-server admin league`: a game's leagues, gated by boss bots, set and listed
(docs/ladder.md, "Leagues").

A set is checked whole before the store is touched (`tournaments.leagues.checked`; a refusal,
`LeagueRefused` or the launcher's `LocalAgentsError`, is the admin command's sentence): the bosses'
strengths come from the agents' side, asked of the `arbiter` program as a server's launcher asks
it which agents it offers, since the server imports no agent. A refused set changes nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

import trio

from arbiter.server.admin_terms import known_game
from arbiter.server.storage import leagues
from arbiter.server.storage.leagues import NO_CLASS
from arbiter.server.storage.sql_connection import Connection
from arbiter.server.tournaments.leagues import (
    DEFAULT_CONFIDENCE,
    checked,
    parse_league,
)
from arbiter.server.tournaments.local_agents import AgentProgram


def add_league_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """`league set` and `league list`, under `arbiter-server admin`."""
    league = commands.add_parser("league", help="a game's leagues, each gated by a boss bot")
    verbs = league.add_subparsers(required=True, metavar="COMMAND")
    setting = verbs.add_parser(
        "set", help="define a game's leagues, lowest first (replacing those it had)"
    )
    setting.add_argument("game", metavar="GAME")
    setting.add_argument(
        "--league",
        dest="leagues",
        action="append",
        required=True,
        metavar="NAME=BOSS:BAND",
        help="a league, its boss (a built-in agent) and its grade band, lowest first"
        " (repeatable; e.g. --league Bronze=random:D --league Silver=greedy:C)",
    )
    setting.add_argument(
        "--class", dest="class_name", help="the class these leagues are for (default: everyone)"
    )
    setting.add_argument(
        "--confidence",
        type=float,
        default=DEFAULT_CONFIDENCE,
        help="how sure the ratings must be that an entrant beats a boss to pass it"
        f" (between 0.5 and 1; default {DEFAULT_CONFIDENCE})",
    )
    setting.set_defaults(run=set_leagues)
    listing = verbs.add_parser("list", help="a game's leagues, by class")
    listing.add_argument("game", metavar="GAME")
    listing.set_defaults(run=list_leagues)


def set_leagues(db: Connection, args: argparse.Namespace) -> None:
    game = known_game(args.game)
    wanted = [parse_league(text) for text in args.leagues]
    strengths = trio.run(AgentProgram.arbiter().strengths, game)
    league_set = checked(game, args.class_name or NO_CLASS, wanted, args.confidence, strengths)
    leagues.store(db, league_set)
    whose = f"the class {args.class_name}" if args.class_name else "everyone"
    names = " < ".join(league.name for league in league_set.leagues)
    print(f"the leagues of {game} for {whose}: {names}")


def list_leagues(db: Connection, args: argparse.Namespace) -> None:
    print("\t".join(("class", "league", "boss", "band", "confidence")))
    for one in leagues.load(db, known_game(args.game)).sets.values():
        for league in one.leagues:
            row = (one.class_name or "-", league.name, league.boss, league.band, one.confidence)
            print("\t".join(str(field) for field in row))
