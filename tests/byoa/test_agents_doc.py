"""docs/agents.md's two 30-line agents are real: extracted from the page, they play whole games."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import trio

from arbiter.agents import lifecycle, make_agent
from arbiter.client.referee import referee
from arbiter.client.runner import GameRecord, run_bot
from arbiter.games import get_game
from tests.conftest import RunningServer
from tests.e2e.helpers import replay
from tests.e2e.test_cli import ROOT

PAGE = (ROOT / "docs" / "agents.md").read_text()


def _example(first_line: str, folder: Path) -> Path:
    """The page's Python block whose docstring starts with `first_line`, saved under its name."""
    for block in re.findall(r"```python\n(.*?)```", PAGE, re.DOTALL):
        if block.startswith(f'"""{first_line}'):
            path = folder / first_line.removesuffix(":")
            path.write_text(block)
            return path
    raise AssertionError(f"docs/agents.md has no example {first_line}")


async def test_the_player_module_example_plays_watch_your_back(tmp_path: Path) -> None:
    module = _example("stabber.py:", tmp_path)
    with trio.fail_after(60):
        record = await referee("watch-your-back", (str(module), "random"), seed=1)
    assert record.players == ["stabber", "random"]
    assert replay("watch-your-back", {}, record.moves).outcome() is not None


async def test_the_agent_object_example_plays_kings_court(
    server: RunningServer, tmp_path: Path
) -> None:
    script = _example("one_ahead.py:", tmp_path)
    records: list[GameRecord] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            address = f"{server.host}:{server.port}"
            command = [sys.executable, str(script), address, "kings-court"]
            nursery.start_soon(functools.partial(trio.run_process, command, cwd=ROOT))
            await trio.sleep(0.5)
            records += await run_bot(
                server.host,
                server.port,
                "kings-court",
                lambda game, _: make_agent("random", game, 5),
                name="random",
            )
    (record,) = records
    assert sorted(record.players) == ["one-ahead", "random"]
    assert replay("kings-court", {}, record.moves).outcome() is not None


def test_the_lifecycle_example_is_an_agent_whose_methods_the_runner_finds() -> None:
    (block,) = [
        block
        for block in re.findall(r"```python\n(.*?)```", PAGE, re.DOTALL)
        if block.startswith("from arbiter.agents import AgentBase")
    ]
    namespace: dict[str, object] = {}
    exec(block, namespace)
    agent = namespace["Remembering"]()  # type: ignore[operator]
    hooks = lifecycle(agent)
    hooks.load()
    hooks.observe("a message")
    state = get_game("kings-court").new_game()
    assert agent.choose(state, 1.0) in state.legal_moves()
    hooks.finish()
    hooks.close()
