"""`arbiter`: the command line for players, bots and referees.

The command line imports only what the command it runs uses: every command is named here with
its one-line help, which is all `arbiter --help` shows, and the module that defines its
arguments and runs it is imported only when that command is the one given. So `arbiter --help`
loads neither trio nor the server, and `arbiter agents` loads the agents and the games alone.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable


class Command:
    """One `arbiter` command: its help line, and where the function that adds its arguments
    (and the `run` default that carries it out) lives, as `module:function`. A plain class:
    `dataclasses` would import `inspect`, more than the whole command line needs for `--help`."""

    def __init__(self, help: str, arguments: str) -> None:
        self.help = help
        self.arguments = arguments

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        module, _, function = self.arguments.partition(":")
        add: Callable[[argparse.ArgumentParser], None] = getattr(
            importlib.import_module(module), function
        )
        add(parser)


_CLIENT = "arbiter.client"
COMMANDS = {
    "bot": Command("connect an agent to a server and play games", f"{_CLIENT}.bot:add_arguments"),
    "referee": Command(
        "play one game between two agents, locally over TCP", f"{_CLIENT}.referee:add_arguments"
    ),
    "agents": Command(
        "list the agents each game can be played by", f"{_CLIENT}.agent_list:add_arguments"
    ),
    "check": Command(
        "a conformance run for a client: Player module, agent, or HOST:PORT to listen on",
        f"{_CLIENT}.check:add_arguments",
    ),
    "lobby": Command(
        "list a server's open seeks, live matches and tournaments",
        f"{_CLIENT}.lobby_view:add_arguments",
    ),
    "worker": Command(
        "run agents for a server (a worker account's token)",
        f"{_CLIENT}.worker.worker:add_arguments",
    ),
    "play": Command(
        "play a game at this terminal: on a server, against an agent, or hot seat",
        f"{_CLIENT}.play.cli:add_play_arguments",
    ),
    "watch": Command(
        "watch a match on a server, or two agents play here",
        f"{_CLIENT}.play.cli:add_watch_arguments",
    ),
    "tournament": Command(
        "create, run, follow and play tournaments", f"{_CLIENT}.tournament:add_arguments"
    ),
    "ladder": Command(
        "ladders: entrants paired by rating, rated as they play", f"{_CLIENT}.ladder:add_arguments"
    ),
    "match": Command(
        "two agents in colour-swapped pairs, until an SPRT decides or N games",
        f"{_CLIENT}.match:add_arguments",
    ),
    "replay": Command(
        "step through a recorded game in the terminal", f"{_CLIENT}.records:add_replay_arguments"
    ),
    "export": Command(
        "write game records as JSON Lines", f"{_CLIENT}.records:add_export_arguments"
    ),
    "submit": Command(
        "upload an agent for the server to run", f"{_CLIENT}.submit:add_submit_arguments"
    ),
    "submissions": Command(
        "list the agents you uploaded", f"{_CLIENT}.submit:add_submissions_arguments"
    ),
    "retire": Command(
        "retire a version of an agent you uploaded", f"{_CLIENT}.submit:add_retire_arguments"
    ),
    "logs": Command(
        "what your hosted agents printed in a match", f"{_CLIENT}.submit:add_logs_arguments"
    ),
    "demo": Command("watch two agents play King's Court over TCP", f"{_CLIENT}.demo:add_arguments"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        try:
            result: int = args.run(args)
        except BaseExceptionGroup as group:  # trio's nurseries wrap what their tasks raised
            raise sole_error(group) from None
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        told = exit_told(error)
        if told is None:
            raise
        parser.exit(*told)
    return result


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for `argv`: every command listed, and the arguments added of the one command
    `argv` names, its first word (`arbiter` has no options of its own but `--help`). Another
    command's arguments would import that command's modules for nothing."""
    command = argv[0] if argv and not argv[0].startswith("-") else None
    parser = argparse.ArgumentParser(prog="arbiter", description="Play games on an Arbiter server.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for name, listed in COMMANDS.items():
        subparser = commands.add_parser(name, help=listed.help)
        if name == command:
            listed.add_arguments(subparser)
    return parser


def exit_told(error: Exception) -> tuple[int, str] | None:
    """How `arbiter` ends on an error its command let through, as an exit status and the line
    to print: 2 for what the user asked wrong (a game, an agent, a submission), 1 for what
    failed on the way (files, the network, a server, a database in use) and for a Player module
    that crashed (no line: it printed its traceback); None for a bug, which keeps its own. The
    error classes are imported here, once there is an error to tell, so a command never
    imports the rooms behind errors it cannot raise."""
    from arbiter.agents import AgentError
    from arbiter.client.connection import ConnectionClosed, ServerError, TLSFailed
    from arbiter.client.player_module import PlayerCrashed
    from arbiter.games import GameError
    from arbiter.protocol.submission import SubmissionError
    from arbiter.server.app import DatabaseInUse

    if isinstance(error, GameError | AgentError | SubmissionError):
        return 2, f"arbiter: {error}\n"
    if isinstance(error, OSError | ConnectionClosed | ServerError | TLSFailed | DatabaseInUse):
        return 1, f"arbiter: {error}\n"
    if isinstance(error, PlayerCrashed):
        return 1, ""
    return None


def sole_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error inside nested groups of one, to be reported as itself; else the group."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


if __name__ == "__main__":
    sys.exit(main())
