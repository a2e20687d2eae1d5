"""The argparse types and help texts the `arbiter` subcommands share.

Every subcommand module registers its own parsers and takes what it needs from here, so
`client.cli` only assembles them and nothing imports back from it. A value is checked once, at
parse time, so a typo is named before any connection is made.
"""

from __future__ import annotations

import argparse

from arbiter.protocol import TimeControl, TimeControlError

TIME_HELP = "time control: move=5, clock=300+2 or clock=60+0,move=10 (add lag=off for LAN play)"


def host_port(text: str) -> tuple[str, int]:
    """`HOST:PORT`, the port from 1 to 65535."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, like 127.0.0.1:7777, not {text!r}")
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
