"""`arbiter lobby`: what is going on at a server (open seeks, live matches, tournaments), as
tables for people or JSON for programs, once or followed live.

Following asks the server to push a fresh listing whenever something changes (`lobby` with
`follow`), so this client never polls: it prints what arrives. At a terminal the tables are
redrawn in place (Rich's `Live`); elsewhere each listing is printed in turn, and `--json` prints
one JSON object per line.
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
from collections.abc import Callable
from typing import Any, TextIO

import trio
from rich import box
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.options import add_server_option, player_name_arg, server_tls
from arbiter.client.play.clocks import format_seconds
from arbiter.games import describe_options
from arbiter.protocol import TimeControl

DEFAULT_NAME = "lobby"


def add_arguments(lobby: argparse.ArgumentParser) -> None:
    """`arbiter lobby`'s arguments, for the command line (`client.cli`)."""
    add_server_option(lobby, required=True)
    lobby.add_argument("--follow", action="store_true", help="keep the listing live until Ctrl-C")
    lobby.add_argument(
        "--json", action="store_true", help="print each listing as one JSON object (a line)"
    )
    lobby.add_argument(
        "--name",
        type=player_name_arg,
        default=DEFAULT_NAME,
        help=f"name to connect as ({DEFAULT_NAME})",
    )
    lobby.set_defaults(run=run_lobby)


def run_lobby(args: argparse.Namespace) -> int:
    host, port = args.server
    if args.json:
        show = json_printer(sys.stdout)
        return trio.run(show_lobby, host, port, args.name, args.follow, show, server_tls(args))
    console = Console()
    if args.follow and console.is_terminal:
        with Live(console=console, auto_refresh=False) as live:
            show = live_printer(live)
            return trio.run(show_lobby, host, port, args.name, True, show, server_tls(args))
    show = table_printer(console)
    return trio.run(show_lobby, host, port, args.name, args.follow, show, server_tls(args))


async def show_lobby(
    host: str,
    port: int,
    name: str,
    follow: bool,
    show: Callable[[protocol.LobbyListing], None],
    tls: ssl.SSLContext | None = None,
) -> int:
    """Ask for the listing and `show` it; with `follow`, show each fresh one until cancelled."""
    async with await ClientConnection.open(host, port, name, tls=tls) as connection:
        await connection.send(protocol.Lobby(follow=follow))
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.LobbyListing):
                show(message)
                if not follow:
                    return 0


def json_printer(out: TextIO) -> Callable[[protocol.LobbyListing], None]:
    def show(listing: protocol.LobbyListing) -> None:
        wire = listing.to_wire()
        del wire["type"]
        print(json.dumps(wire), file=out, flush=True)

    return show


def table_printer(console: Console) -> Callable[[protocol.LobbyListing], None]:
    return lambda listing: console.print(tables(listing))


def live_printer(live: Live) -> Callable[[protocol.LobbyListing], None]:
    return lambda listing: live.update(tables(listing), refresh=True)


def tables(listing: protocol.LobbyListing) -> Group:
    return Group(
        seeks_table(listing),
        *unpaired_lines(listing),
        matches_table(listing),
        tournaments_table(listing),
    )


def _title(what: str, shown: int, left_out: int) -> str:
    return f"{what}: {shown}" + (f" ({left_out} more not shown)" if left_out else "")


def seeks_table(listing: protocol.LobbyListing) -> Table:
    table = Table(
        title=_title("open seeks", len(listing.seeks), listing.seeks_left_out),
        box=box.SIMPLE_HEAVY,
    )
    for header in ("seek", "player", "game", "options", "time", "opponent"):
        wraps = header == "options"  # the one column that may take two lines: names may not
        table.add_column(
            header,
            justify="right" if header == "seek" else "left",
            no_wrap=not wraps,
            overflow="fold",
        )
    for seek in listing.seeks:
        table.add_row(
            str(seek["seek"]),
            seek["player"],
            seek["game"],
            describe_options(seek["options"]),
            time_text(seek["time"]),
            seek["opponent"] or "anyone",
        )
    return table


def unpaired_lines(listing: protocol.LobbyListing) -> list[Text]:
    """Why each seek is still open, a line each under the table: a sentence in a column of its
    own would wrap into a word a line at 80 columns."""
    return [
        Text(f"  seek {seek['seek']} is unpaired: {seek['unpaired']}")
        for seek in listing.seeks
        if seek["unpaired"]
    ]


def matches_table(listing: protocol.LobbyListing) -> Table:
    table = Table(
        title=_title("live matches", len(listing.matches), listing.matches_left_out),
        box=box.SIMPLE_HEAVY,
    )
    for header in ("match", "game", "players", "ply", "to move", "clocks", "time"):
        table.add_column(header, justify="right" if header in ("match", "ply") else "left")
    for match in listing.matches:
        table.add_row(
            str(match["match"]),
            match["game"],
            " - ".join(match["players"]),
            str(match["ply"]),
            _to_move(match),
            "" if match["clocks"] is None else " - ".join(map(format_seconds, match["clocks"])),
            time_text(match["time"]),
        )
    return table


def _to_move(match: dict[str, Any]) -> str:
    """`white (0:04.2 left)`: the seat to move and its time left for the move."""
    if match["to_move"] is None:
        return ""
    return f"{match['to_move']} ({format_seconds(match['time_left'])} left)"


def tournaments_table(listing: protocol.LobbyListing) -> Table:
    table = Table(
        title=_title("tournaments", len(listing.tournaments), listing.tournaments_left_out),
        box=box.SIMPLE_HEAVY,
    )
    for header in ("name", "game", "status", "games played"):
        table.add_column(header)
    for tournament in listing.tournaments:
        table.add_row(
            tournament["name"],
            tournament["game"],
            tournament["status"],
            f"{tournament['played']}/{tournament['games']}",
        )
    return table


def time_text(wire: dict[str, float]) -> str:
    """A time control as typed (`move=10`), or the map itself if it is not one we read."""
    try:
        return TimeControl.from_wire(wire).describe()
    except ValueError:
        return json.dumps(wire)
