"""A program from outside (another language, its own process) against our `random` agent, over
our server: what the tests of the example clients share."""

from __future__ import annotations

import subprocess

import trio

from arbiter.agents import make_agent
from arbiter.client.runner import GameRecord, run_bot
from tests.conftest import RunningServer


async def against_random(
    server: RunningServer, command: list[str], game: str
) -> tuple[GameRecord, subprocess.CompletedProcess[bytes]]:
    """Run `command` (a client that seeks `game` at 5 s a move) beside our `random` agent, which
    seeks after it; the one game `random` played and how the program ended."""
    records: list[GameRecord] = []
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def program() -> None:
        done.append(await trio.run_process(command, capture_stdout=True, capture_stderr=True))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(program)
            await trio.sleep(0.5)  # let the program seek first (either seat would do)
            records += await run_bot(
                server.host,
                server.port,
                game,
                lambda rules, _: make_agent("random", rules, 9),
                name="random",
                time_control={"move": 5.0},
            )
    (record,) = records
    return record, done[0]
