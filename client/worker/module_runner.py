"""`python -m arbiter.client.worker.module_runner FORM FILE`: a Python submission's seat, played by
Arbiter's own runner inside the sandbox.

A Player module (`player`) is played as `arbiter referee` plays one; an agent object module
(`module`) is loaded without running its `__main__` block, and its class with a `choose` method is
made as the runner makes any agent, `Class(game, seed)`. The seat comes from the environment a
hosted agent is given (`ARBITER_SERVER`, `ARBITER_NAME`, `ARBITER_TOKEN`, `ARBITER_GAME`,
`ARBITER_TIME`, and `ARBITER_TOURNAMENT` or `ARBITER_OPPONENT`): a tournament's games, or one
game against the opponent it challenges.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import trio

from arbiter.agents import Agent
from arbiter.client.player_module import make_any_agent
from arbiter.client.runner import run_bot
from arbiter.client.tournament import play_tournament
from arbiter.games import Game
from arbiter.protocol import TimeControl

FORMS = ("module", "player")


class NoAgentClass(Exception):
    """An agent object module without a class that has `choose`."""


def agent_class(path: Path) -> Callable[..., Agent]:
    """The class of `path` (an agent object module) that defines `choose`: the first one defined
    in the module itself, so an imported helper class is not taken for it."""
    spec = importlib.util.spec_from_file_location("agent_module", path)
    if spec is None or spec.loader is None:
        raise NoAgentClass(f"{path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    for value in vars(module).values():
        if (
            inspect.isclass(value)
            and value.__module__ == module.__name__
            and callable(getattr(value, "choose", None))
        ):
            return cast("Callable[..., Agent]", value)
    raise NoAgentClass(f"{path} defines no class with a choose(state, budget) method")


def agent_maker(form: str, path: Path) -> Callable[[Game[Any, Any], int], Agent]:
    """How the runner makes the seat's agent for each game."""
    if form == "player":
        return lambda game, number: make_any_agent(str(path), game)
    made = agent_class(path)
    return lambda game, number: made(game, number)


async def play_seat(form: str, path: Path, environment: dict[str, str]) -> None:
    host, _, port = environment["ARBITER_SERVER"].rpartition(":")
    name, token = environment["ARBITER_NAME"], environment["ARBITER_TOKEN"]
    make = agent_maker(form, path)
    tournament = environment.get("ARBITER_TOURNAMENT")
    if tournament:
        await play_tournament(
            host, int(port), tournament, name=name, token=token, make_agent=make, reconnect=0
        )
        return
    control = TimeControl.parse(environment["ARBITER_TIME"])
    await run_bot(
        host,
        int(port),
        environment["ARBITER_GAME"],
        make,
        name=name,
        token=token,
        opponent=environment.get("ARBITER_OPPONENT"),
        time_control=control.to_wire(),
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in FORMS:
        print(f"usage: module_runner {{{','.join(FORMS)}}} FILE", file=sys.stderr)
        return 2
    trio.run(play_seat, argv[0], Path(argv[1]), dict(os.environ))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
