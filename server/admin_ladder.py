"""`arbiter-server admin ladder`: a ladder started, stopped and listed, in the store, beside the
running server (docs/ladder.md, "Starting and stopping a ladder").

The store is where a server learns which ladders to play (`storage.ladders`): a running server
picks a start or a stop up within seconds (`tournaments.ladder_keeper`), and a restarted one
resumes every ladder left running. Everything is checked before the store changes: the game and
its terms as a seek's are, the section against the class's roster, and whether the ladder runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from arbiter.server.admin_terms import game_terms, known_game
from arbiter.server.storage import ladders
from arbiter.server.storage.ladders import (
    DEFAULT_CONTROL,
    DEFAULT_WAIT,
    LadderRefused,
    LadderScope,
    LadderSettings,
)
from arbiter.server.storage.sql_connection import Connection

SECTION_HELP = "the ladder of one section of a class, CLASS/SECTION (default: the game's own)"


def add_ladder_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """`ladder start`, `ladder stop` and `ladder list`, under `arbiter-server admin`."""
    group = commands.add_parser("ladder", help="start and stop the ladders the server plays")
    verbs = group.add_subparsers(required=True, metavar="COMMAND")
    start = verbs.add_parser("start", help="have the server play a ladder (until stopped)")
    start.add_argument("game", metavar="GAME")
    start.add_argument("--section", metavar="CLASS/SECTION", help=SECTION_HELP)
    start.add_argument(
        "--time", help=f"the games' time control (default {DEFAULT_CONTROL.describe()})"
    )
    start.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option"
    )
    start.add_argument("--per-hour", type=int, metavar="N", help="games an hour per entrant")
    start.add_argument("--concurrency", type=int, default=1, metavar="K", help="games at once")
    start.add_argument(
        "--wait",
        type=float,
        default=DEFAULT_WAIT,
        metavar="SECONDS",
        help="how long a game waits for a seat before the absent side loses by default"
        f" (default {DEFAULT_WAIT:g})",
    )
    start.set_defaults(run=start_ladder)
    stop = verbs.add_parser("stop", help="stop a ladder (its ratings are kept)")
    stop.add_argument("game", metavar="GAME")
    stop.add_argument("--section", metavar="CLASS/SECTION", help=SECTION_HELP)
    stop.set_defaults(run=stop_ladder)
    listing = verbs.add_parser("list", help="every ladder started, and whether it runs")
    listing.set_defaults(run=list_ladders)


def start_ladder(db: Connection, args: argparse.Namespace) -> None:
    terms = game_terms(args.game, args.option, args.time, DEFAULT_CONTROL)
    scope = LadderScope.of(terms.game.name, args.section)
    if args.per_hour is not None and args.per_hour < 1:
        raise LadderRefused(f"--per-hour must be at least 1, not {args.per_hour}")
    if args.concurrency < 1:
        raise LadderRefused(f"--concurrency must be at least 1, not {args.concurrency}")
    if not 0 < args.wait <= 3600:
        raise LadderRefused(f"--wait must be above 0 and at most 3600 seconds, not {args.wait:g}")
    settings = LadderSettings(
        scope.game,
        terms.control,
        terms.options,
        args.per_hour,
        args.concurrency,
        args.wait,
        scope.class_name,
        scope.section,
    )
    ladders.start(db, settings)
    print(f"the ladder of {scope.title} is running: a running server starts it within seconds")


def stop_ladder(db: Connection, args: argparse.Namespace) -> None:
    scope = LadderScope.of(known_game(args.game), args.section)
    ladders.stop(db, scope)
    print(f"the ladder of {scope.title} is stopped: its games in play end first")


def list_ladders(db: Connection, args: argparse.Namespace) -> None:
    print("\t".join(("ladder", "state", "time", "per_hour", "concurrency", "wait")))
    for settings, running in ladders.listing(db):
        row = (
            settings.scope.key,
            "running" if running else "stopped",
            settings.control.describe(),
            "-" if settings.per_hour is None else str(settings.per_hour),
            str(settings.concurrency),
            f"{settings.wait:g}",
        )
        print("\t".join(row))
