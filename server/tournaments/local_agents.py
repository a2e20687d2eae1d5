"""Entrants a server runs itself in a tournament (`local`), offered by whoever starts it.

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

A launcher may offer more than built-in agents: the one `arbiter tournament local` starts also
runs Player module files and any program that speaks the protocol (`client.entrants`), because
whoever typed them is the one whose machine runs them. `arbiter-server`'s runs only the built-in
agents: a tournament request is no way to run a program on a shared server's machine.

Every process the server starts for an entrant learns from its environment (`environment`)
where to connect, under which name and token, and for which game and tournament: so a program
in any language needs no command-line convention of ours to take part.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Protocol

import trio

SERVER_VARIABLE = "ARBITER_SERVER"
NAME_VARIABLE = "ARBITER_NAME"
TOKEN_VARIABLE = "ARBITER_TOKEN"
GAME_VARIABLE = "ARBITER_GAME"
TOURNAMENT_VARIABLE = "ARBITER_TOURNAMENT"


class LocalAgentsError(Exception):
    """The launcher cannot say which agents it offers (its program is missing or broken)."""


class UnknownEntrant(LocalAgentsError):
    """The launcher cannot run this entrant; the sentence says why and what it can run."""


def environment(
    server: tuple[str, int], name: str, token: str, game: str, tournament: str
) -> dict[str, str]:
    """What an entrant's process is told: `ARBITER_SERVER` (HOST:PORT), `ARBITER_NAME`,
    `ARBITER_TOKEN`, `ARBITER_GAME` and `ARBITER_TOURNAMENT`. The token goes in the
    environment, never on a command line, where every user of the machine could read it."""
    host, port = server
    return {
        SERVER_VARIABLE: f"{host}:{port}",
        NAME_VARIABLE: name,
        TOKEN_VARIABLE: token,
        GAME_VARIABLE: game,
        TOURNAMENT_VARIABLE: tournament,
    }


class LocalAgents(Protocol):
    """What the server needs to run entrants of its own in a tournament."""

    async def entrant(self, game: str, agent: str) -> str:
        """The seat name `agent` plays under in `game` (before the server's `local-` prefix and
        any number); `UnknownEntrant` if this launcher cannot run it, `LocalAgentsError` if it
        cannot tell."""
        ...

    def command(
        self, tournament: str, server: tuple[str, int], name: str, agent: str, seed: int
    ) -> list[str]:
        """The command that plays `name`'s games of `tournament` with `agent` on `server` (its
        process also gets `environment`)."""
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

    async def entrant(self, game: str, agent: str) -> str:
        """A built-in agent plays under its own name."""
        known = await self.names(game)
        if agent not in known:
            raise UnknownEntrant(
                f"no built-in agent {agent!r} for {game}"
                f" (agents: {', '.join(sorted(known)) or 'none on this server'})"
            )
        return agent

    async def names(self, game: str) -> Sequence[str]:
        """The built-in agents offered for `game`."""
        if game not in self._names:
            self._names[game] = await self._names_of(game)
        return self._names[game]

    async def strengths(self, game: str) -> dict[str, int]:
        """The agents with a stated strength in `game`, each by its tier (0 the weakest), as
        `PROGRAM agents GAME --json --strength` states them: what a league's bosses are
        ordered by."""
        listed = await self._ask(game, "--strength")
        if not isinstance(listed, dict) or not all(
            isinstance(name, str) and type(tier) is int for name, tier in listed.items()
        ):
            raise LocalAgentsError(
                f"{' '.join(self.program)} agents {game} --json --strength did not list tiers"
            )
        return listed

    async def _names_of(self, game: str) -> list[str]:
        listed = await self._ask(game)
        if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
            raise LocalAgentsError(
                f"{' '.join(self.program)} agents {game} --json did not list agents"
            )
        return listed

    async def _ask(self, game: str, *flags: str) -> object:
        """What `PROGRAM agents GAME --json FLAGS` says of `game` (None if it said nothing)."""
        try:
            done = await trio.run_process(
                [*self.program, "agents", game, "--json", *flags],
                stdin=subprocess.DEVNULL,
                capture_stdout=True,
                capture_stderr=True,
                check=False,
            )
        except OSError as error:
            raise LocalAgentsError(f"cannot run {self.program[0]!r}: {error}") from None
        if done.returncode != 0:
            raise LocalAgentsError(
                f"{' '.join(self.program)} agents {game} --json {' '.join(flags)} failed"
                f" (exit status {done.returncode})"
            )
        try:
            answer: object = json.loads(done.stdout)[game]
        except (ValueError, KeyError, TypeError):
            return None
        return answer

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

    def worker_command(self, server: tuple[str, int], name: str, slots: int) -> list[str]:
        """The command of one of the server's own workers (`arbiter worker`), its token in
        `ARBITER_TOKEN`."""
        host, port = server
        address = f"{host}:{port}"
        return [*self.program, "worker", "--server", address, "--name", name, "--slots", str(slots)]
