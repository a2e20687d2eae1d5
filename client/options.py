"""The argparse types and help texts the `arbiter` subcommands share.

Every subcommand module registers its own parsers and takes what it needs from here, so
`client.cli` only assembles them and nothing imports back from it. A value is checked once, at
parse time, so a typo is named before any connection is made.
"""

from __future__ import annotations

import argparse
import ssl

from arbiter.client.connection import client_tls
from arbiter.protocol import DEFAULT_PORT, TimeControl, TimeControlError

TIME_HELP = "time control: move=5, clock=300+2 or clock=60+0,move=10 (add lag=off for LAN play)"


def host_port(text: str) -> tuple[str, int]:
    """`HOST:PORT`, the port from 1 to 65535, or `HOST` alone for the server's default port
    (`DEFAULT_PORT`, 7777). A number alone is refused: it is a port without its host (as a
    host, the resolver would read `7777` as the address 0.0.30.97)."""
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = text, str(DEFAULT_PORT)
    if not host or host.isdigit() or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(
            f"expected HOST or HOST:PORT, like 127.0.0.1:7777, not {text!r}"
        )
    return host, int(port)


def time_control(text: str) -> TimeControl:
    """A time control as typed (`move=5`, `clock=300+2`, `clock=60+0,move=10,lag=off`): the one
    parser of the command line's form, `TimeControl.parse`, with its sentence as argparse's."""
    try:
        return TimeControl.parse(text)
    except TimeControlError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def move_time(text: str) -> TimeControl:
    """`--move-time S` as the time control it stands for, `move=S`."""
    return time_control(f"move={text}")


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return int(text)


def player_name_arg(text: str) -> str:
    """A player's name as `hello` and `seek.opponent` take it: 1 to 64 printable characters."""
    if not 0 < len(text) <= 64 or not text.isprintable():
        raise argparse.ArgumentTypeError(
            f"expected a player's name of 1 to 64 printable characters, not {text!r}"
        )
    return text


def add_server_option(
    parser: argparse.ArgumentParser,
    *,
    required: bool = False,
    help: str = f"HOST[:PORT] (port {DEFAULT_PORT} if left out)",
    group: argparse._MutuallyExclusiveGroup | None = None,
) -> None:
    """`--server HOST[:PORT]` (in `group` if given) with the TLS options that go with it: `--tls`
    (the system's trusted authorities) and `--tls-ca FILE` (a private CA's certificate, implies
    `--tls`)."""
    (group or parser).add_argument(
        "--server", required=required, metavar="HOST[:PORT]", type=host_port, help=help
    )
    parser.add_argument("--tls", action="store_true", help="connect to the server over TLS")
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        type=tls_ca,
        help="trust the server's certificate if this CA (PEM) signed it; implies --tls",
    )


def tls_ca(path: str) -> ssl.SSLContext:
    """`--tls-ca FILE` as the TLS settings it stands for, so a missing or bad file is named
    before any connection is tried."""
    try:
        return client_tls(path)
    except (OSError, ssl.SSLError) as error:
        raise argparse.ArgumentTypeError(
            f"cannot use {path!r} as a CA certificate: {error}"
        ) from None


def server_tls(args: argparse.Namespace) -> ssl.SSLContext | None:
    """The TLS settings `--tls` and `--tls-ca` ask for; None for plain TCP."""
    context: ssl.SSLContext | None = args.tls_ca
    if context is None and args.tls:
        context = client_tls()
    return context
