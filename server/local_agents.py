"""Built-in agents a server may run as tournament entrants, offered by whoever starts it.

The server knows no agent: it is a referee, and `agents/` and `client/` are another room's
business. Whoever starts the server hands it a `LocalAgents`: which agents it offers for a game,
and the command that runs one as an ordinary client of this server (`arbiter tournament play`,
which connects back over TCP with a token the server passes in its environment).

Why this shape. The alternatives were (a) the server imports the agents' registry, which ties
the referee to every agent's code and makes `server` depend on `agents`; and (b) the server
accepts any name and lets the launched process fail, which turns a typo in a tournament request
into games defaulted one by one, long after the director could have been told. Asking the
launcher keeps the refusal at `tournament_create` with the list of names, and the launcher may
answer from memory (the `arbiter` client does: `client.tournament` starts a server with its own
registry) or by asking the program it launches (`AgentProgram`, what `arbiter-server` uses).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Protocol

import trio


class LocalAgentsError(Exception):
    """The launcher cannot say which agents it offers (its program is missing or broken)."""


class LocalAgents(Protocol):
    """What the server needs to run built-in agents in a tournament."""

    async def names(self, game: str) -> Sequence[str]:
        """The agents offered for `game` (`LocalAgentsError` if that cannot be found out)."""
        ...

    def command(
        self, tournament: str, server: tuple[str, int], name: str, agent: str, seed: int
    ) -> list[str]:
        """The command that plays `name`'s games of `tournament` with `agent` on `server`."""
        ...


class AgentProgram:
    """The agents of a program that speaks the `arbiter` command line: `PROGRAM agents GAME
    --json` lists them, `PROGRAM tournament play ...` plays one. Each game's list is asked for
    once and kept."""

    def __init__(self, program: Sequence[str]) -> None:
        self.program = list(program)
        self._names: dict[str, list[str]] = {}

    @classmethod
    def arbiter(cls) -> AgentProgram:
        """The `arbiter` client installed beside this interpreter, run as an external program
        (by module, so it works from a source checkout as well as from an installed script)."""
        return cls([sys.executable, "-m", "arbiter.client.cli"])

    async def names(self, game: str) -> Sequence[str]:
        if game not in self._names:
            self._names[game] = await self._ask(game)
        return self._names[game]

    async def _ask(self, game: str) -> list[str]:
        try:
            done = await trio.run_process(
                [*self.program, "agents", game, "--json"],
                stdin=subprocess.DEVNULL,
                capture_stdout=True,
                capture_stderr=True,
                check=False,
            )
        except OSError as error:
            raise LocalAgentsError(f"cannot run {self.program[0]!r}: {error}") from None
        try:
            listed = json.loads(done.stdout)[game] if done.returncode == 0 else None
        except (ValueError, KeyError, TypeError):
            listed = None
        if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
            raise LocalAgentsError(
                f"{' '.join(self.program)} agents {game} --json did not list agents"
                f" (exit status {done.returncode})"
            )
        return listed

    def command(
        self, tournament: str, server: tuple[str, int], name: str, agent: str, seed: int
    ) -> list[str]:
        host, port = server
        return [
            *self.program,
            *("tournament", "play", tournament),
            *("--server", f"{host}:{port}", "--name", name, "--agent", agent),
            *("--seed", str(seed), "--reconnect", "0"),
        ]
