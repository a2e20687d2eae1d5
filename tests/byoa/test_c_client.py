"""The C example client (examples/c-client/, libc only, msgpack by hand) built with gcc plays a
whole game against our `random` through our server: a compiled program in a language that
shares no code with us needs only the protocol document."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.byoa.external import against_random
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
    record, done = await against_random(server, command, game)
    out = done.stdout.decode()
    assert sorted(record.players) == ["c-random", "random"]
    assert "(protocol 2)" in out
    assert f"game over after {len(record.moves)} moves: {record.result} ({record.reason})" in out
    assert done.returncode == 0, done.stderr.decode()
    ended = replay(game, {}, record.moves).outcome()
    assert ended is not None, "ended by the rules, both sides' moves legal"
    assert ended.reason == record.reason
