"""The Node.js example client (examples/node-client/) plays a whole game against our `random`
through our server: the protocol document is enough for a program that shares no code with us."""

from __future__ import annotations

import subprocess
from pathlib import Path

import trio

from arbiter.agents import make_agent
from arbiter.client.runner import GameRecord, run_bot
from tests.conftest import RunningServer
from tests.e2e.helpers import replay
from tests.node_client import need_node


async def test_the_node_client_plays_a_full_game_against_random(
    server: RunningServer, node_client: Path
) -> None:
    address = f"{server.host}:{server.port}"
    command = [need_node(), str(node_client / "client.js"), address, "amazons", "node-random", "5"]
    records: list[GameRecord] = []
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def node() -> None:
        done.append(await trio.run_process(command, capture_stdout=True, capture_stderr=True))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(node)
            await trio.sleep(0.5)  # let node seek first (either seat would do)
            records += await run_bot(
                server.host,
                server.port,
                "amazons",
                lambda game, _: make_agent("random", game, 9),
                name="random",
                time_control={"move": 5.0},
            )
    out = done[0].stdout.decode()
    (record,) = records
    assert sorted(record.players) == ["node-random", "random"]
    assert "(protocol 2)" in out
    assert f"game over after {len(record.moves)} moves: win, {record.winner} wins" in out
    assert "[rule]" in out, "the termination kind of version 2"
    assert replay("amazons", {}, record.moves).outcome() is not None, "ended by the rules"
