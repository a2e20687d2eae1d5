"""The C example client (examples/c-client/, libc only, msgpack by hand) built with gcc plays a
whole game against our `random` through our server: a compiled program in a language that
shares no code with us needs only the protocol document."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import trio

from arbiter.agents import make_agent
from arbiter.client.runner import GameRecord, run_bot
from tests.conftest import RunningServer
from tests.e2e.helpers import replay

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "c-client" / "client.c"


def built_client(scratch: Path) -> Path:
    """The client compiled by gcc into `scratch` (a missing gcc skips, and fails under CI)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        if os.environ.get("CI") == "true":
            pytest.fail("gcc is needed to build examples/c-client")
        pytest.skip("gcc is needed to build examples/c-client")
    program = scratch / "client"
    built = subprocess.run(
        [gcc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(program), str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    return program


@pytest.mark.parametrize("game", ["watch-your-back", "shobu"])
async def test_the_c_client_plays_a_full_game_against_random(
    server: RunningServer, tmp_path: Path, game: str
) -> None:
    program = built_client(tmp_path)
    command = [str(program), f"{server.host}:{server.port}", game, "c-random", "5"]
    records: list[GameRecord] = []
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def client() -> None:
        done.append(await trio.run_process(command, capture_stdout=True, capture_stderr=True))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client)
            await trio.sleep(0.5)  # let it seek first (either seat would do)
            records += await run_bot(
                server.host,
                server.port,
                game,
                lambda rules, _: make_agent("random", rules, 9),
                name="random",
                time_control={"move": 5.0},
            )
    out = done[0].stdout.decode()
    (record,) = records
    assert sorted(record.players) == ["c-random", "random"]
    assert "(protocol 2)" in out
    assert f"game over after {len(record.moves)} moves: {record.result} ({record.reason})" in out
    assert done[0].returncode == 0, done[0].stderr.decode()
    ended = replay(game, {}, record.moves).outcome()
    assert ended is not None, "ended by the rules, both sides' moves legal"
    assert ended.reason == record.reason
