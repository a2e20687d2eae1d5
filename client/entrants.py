"""Tournament entrants as the command line names them: built-in agents, Player modules, programs.

`arbiter tournament local` takes any mix of:

- a built-in agent's name: `greedy`;
- a Player module file: `my_agent.py` (docs/agents.md), run by `arbiter tournament play`;
- any program that speaks the protocol, as a command line: `cmd=node client.js`, or
  `cmd=node client.js,name=mine` to choose its seat name (cutechess-cli's `-engine cmd=`).

Each runs in its own process, started by the tournament's server (`LocalEntrants` is the
launcher it is given): the server tells the process where to connect and as whom in its
environment (`server.app.environment`: ARBITER_SERVER, ARBITER_NAME, ARBITER_TOKEN...), which is
all a program needs, whatever its language. Why `,name=` only at the end: a command may hold
commas of its own, and a name never does, so the last `,name=` is unambiguous.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

from arbiter.agents import agents_for
from arbiter.client.player_module import is_module_path
from arbiter.client.sandbox.launch import launch_command
from arbiter.server.app import AgentProgram, UnknownEntrant

PROGRAM = "cmd="
NAME_OPTION = re.compile(r",name=([^,]*)$")
SEAT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""What `name=` may be: an account name's letters (the server prefixes it with `local-`, and
cuts a long one to fit)."""
ENTRANT_HELP = (
    "a built-in agent (greedy), a Player module file (my_agent.py), or a program speaking the"
    " protocol: cmd=COMMAND or cmd=COMMAND,name=NAME"
)


@dataclass(frozen=True, slots=True)
class Program:
    """A `cmd=` entrant: the command that runs it, and the name it plays under."""

    command: list[str]
    name: str


def parse_program(spec: str) -> Program | None:
    """The program `cmd=COMMAND[,name=NAME]` stands for, None for any other entrant;
    `UnknownEntrant` with a sentence for a command that cannot be run."""
    if not spec.startswith(PROGRAM):
        return None
    text, name = spec[len(PROGRAM) :], None
    named = NAME_OPTION.search(text)
    if named is not None:
        text, name = text[: named.start()], named.group(1)
    try:
        command = shlex.split(text)
    except ValueError as error:
        raise UnknownEntrant(f"cannot read the command in {spec!r}: {error}") from None
    if not command:
        raise UnknownEntrant(f"{spec!r} names no command: write cmd=COMMAND, e.g. cmd=./my-bot")
    if shutil.which(command[0]) is None:
        raise UnknownEntrant(f"cannot find the program {command[0]!r} that {spec!r} runs")
    if name is None:
        name = seat_name(_named_file(command))
    elif not SEAT_NAME.fullmatch(name):
        raise UnknownEntrant(
            f"{name!r} cannot be a seat name: use letters, digits, '_', '.' or '-'"
        )
    return Program(command, name)


def _named_file(command: Sequence[str]) -> str:
    """What names a program: its script (the last word that is not an option, as `client.js`
    in `node client.js`), else the program itself."""
    words = [word for word in command if not word.startswith("-")]
    return Path(words[-1] if words else command[0]).stem


def seat_name(text: str) -> str:
    """`text` as a seat name: other characters become `-`."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-_.")
    return cleaned or "program"


def normalized(spec: str) -> str:
    """The entrant as a tournament stores it: a module by its absolute path (its processes run,
    and a rerun resumes, from wherever), anything else as written."""
    if parse_program(spec) is None and is_module_path(spec):
        return str(Path(spec).resolve())
    return spec


def _absolute(word: str) -> str:
    """A command's word, as an absolute path if it names a file here (so it still names it
    inside a sandbox, which starts elsewhere)."""
    path = Path(word)
    return str(path.resolve()) if path.is_file() else word


class LocalEntrants(AgentProgram):
    """The launcher of `arbiter tournament local`: the built-in agents of this process's
    registry, Player module files and programs (make one with `LocalEntrants.arbiter()`).

    Player modules and programs run sandboxed (`client.sandbox`) unless `sandboxed` is False:
    a module sees its own folder read-only, a program the folders of the files its command
    names (`node bots/mine.js` sees `bots/`); the built-in agents are Arbiter's own code and
    run as they are.
    """

    def __init__(self, program: Sequence[str], *, sandboxed: bool = True) -> None:
        super().__init__(program)
        self.sandboxed = sandboxed

    @classmethod
    def arbiter(cls, *, sandboxed: bool = True) -> LocalEntrants:
        return cls(AgentProgram.arbiter().program, sandboxed=sandboxed)

    async def names(self, game: str) -> Sequence[str]:
        return [info.name for info in agents_for(game)]

    async def entrant(self, game: str, agent: str) -> str:
        program = parse_program(agent)
        if program is not None:
            return program.name
        if is_module_path(agent):
            if not await trio.Path(agent).is_file():
                raise UnknownEntrant(f"no Player module file {agent!r}")
            return seat_name(Path(agent).stem)
        try:
            return await super().entrant(game, agent)
        except UnknownEntrant as error:
            raise UnknownEntrant(
                f"{error}; nor is it a Player module file (NAME.py) or a program (cmd=COMMAND)"
            ) from None

    def command(
        self, tournament: str, server: tuple[str, int], name: str, agent: str, seed: int
    ) -> list[str]:
        program = parse_program(agent)
        if program is not None:
            if not self.sandboxed:
                return program.command
            command = [_absolute(word) for word in program.command]
            code = [Path(word).parent for word in command if Path(word).is_file()]
        elif is_module_path(agent):
            command = super().command(tournament, server, name, agent, seed)
            code = [Path(agent).resolve().parent]
        else:
            return super().command(tournament, server, name, agent, seed)
        return launch_command(command, code) if self.sandboxed else command
