"""The Node.js example client (examples/node-client/) plays a whole game against our `random`
through our server: the protocol document is enough for a program that shares no code with us."""

from __future__ import annotations

from pathlib import Path

from tests.byoa.external import against_random
from tests.conftest import RunningServer
from tests.e2e.helpers import replay
from tests.node_client import need_node


async def test_the_node_client_plays_a_full_game_against_random(
    server: RunningServer, node_client: Path
) -> None:
    address = f"{server.host}:{server.port}"
    command = [need_node(), str(node_client / "client.js"), address, "amazons", "node-random", "5"]
    record, done = await against_random(server, command, "amazons")
    out = done.stdout.decode()
    assert sorted(record.players) == ["node-random", "random"]
    assert "(protocol 2)" in out
    assert f"game over after {len(record.moves)} moves: win, {record.winner} wins" in out
    assert "[rule]" in out, "the termination kind of version 2"
    assert replay("amazons", {}, record.moves).outcome() is not None, "ended by the rules"
