"""`python -m arbiter.client.sandbox.launch [--code DIR]... -- COMMAND...`: run an entrant's
command in a sandbox, joined to the server its environment names.

A launcher (`client.entrants.LocalEntrants`) wraps each entrant's command in this one, so the
server starts it as it would start the entrant, with ARBITER_SERVER and the seat's name and
token in its environment. Inside, the relay listens on 127.0.0.1 at the server's own port (a
fresh network namespace has every port free), so a command that names the server on its
command line, as `arbiter tournament play --server 127.0.0.1:PORT` does, reaches the relay
unchanged. What the entrant prints is copied to stderr as it comes (up to the output limit),
then a line says how it ended if that was not normal; the exit status is 0 only for a normal
end. SIGTERM (what the server sends when it stops the entrant) ends the sandbox and removes its
folders before the process exits.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from pathlib import Path

import trio

from arbiter.client.sandbox.ending import Ending
from arbiter.client.sandbox.limits import Limits
from arbiter.client.sandbox.link import link
from arbiter.client.sandbox.process import sandboxed
from arbiter.client.sandbox.terminated import until_terminated
from arbiter.client.sandbox.toolchain import SandboxUnavailable

RELAY = Path(__file__).with_name("relay.py")
ENVIRONMENT_PREFIX = "ARBITER_"
"""The variables passed into the sandbox: the seat's (server, name, token, game, tournament)."""
FIRST_FREE_PORT = 1024
"""Below it a port needs a privilege the sandbox does not have."""
INSIDE_PORT = 7777
"""The relay's port when the server's cannot be used inside."""
TERMINATED = 128 + 15
"""The exit status after a SIGTERM, as a shell reports a process the signal ended."""


def launch_command(command: list[str], code: list[Path]) -> list[str]:
    """`command` wrapped in this module's: run sandboxed with the `code` folders read-only."""
    folders = [word for folder in code for word in ("--code", str(folder))]
    return [sys.executable, "-m", "arbiter.client.sandbox.launch", *folders, "--", *command]


def relay_command(port: int, command: list[str]) -> list[str]:
    """The sandbox's first process: the relay on `port`, running `command`."""
    return [sys.executable, "-I", "-S", str(RELAY), str(port), "--", *command]


def inside_port(port: int) -> int:
    """The relay's port for a server at `port`: the same, where the sandbox may listen on it."""
    return port if port >= FIRST_FREE_PORT else INSIDE_PORT


async def run_linked(
    command: list[str], server: tuple[str, int], limits: Limits, code: list[Path]
) -> Ending:
    """Run `command` sandboxed with its connection linked to `server`, what it prints copied to
    stderr as it comes; how it ended."""
    host, port = server
    relay_port = inside_port(port)
    told = {
        name: value for name, value in os.environ.items() if name.startswith(ENVIRONMENT_PREFIX)
    }
    told["ARBITER_SERVER"] = f"127.0.0.1:{relay_port}"
    async with sandboxed(
        relay_command(relay_port, command),
        limits,
        code=code,
        environment=told,
        on_output=_to_stderr,
    ) as sandbox:
        await link(sandbox.channel, sandbox.channel, partial(trio.open_tcp_stream, host, port))
        return await sandbox.ended()


def _to_stderr(data: bytes) -> None:
    sys.stderr.buffer.write(data)
    sys.stderr.buffer.flush()


def _server_from_environment() -> tuple[str, int]:
    address = os.environ.get("ARBITER_SERVER", "")
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit():
        raise SystemExit(f"arbiter sandbox: ARBITER_SERVER must be HOST:PORT, not {address!r}")
    return host, int(port)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arbiter.client.sandbox.launch",
        description="Run an entrant's command in a sandbox, linked to $ARBITER_SERVER.",
    )
    parser.add_argument("--code", type=Path, action="append", default=[], metavar="DIR")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("name the command to run after --")
    try:
        server = _server_from_environment()
        ended = trio.run(until_terminated, lambda: run_linked(command, server, Limits(), args.code))
    except SandboxUnavailable as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 2
    if ended is None:
        return TERMINATED
    if not ended.normal:
        print(f"arbiter sandbox: {' '.join(command)}: {ended.sentence}", file=sys.stderr)
    return 0 if ended.normal else 1


if __name__ == "__main__":
    sys.exit(main())
