"""Fixtures for the bring-your-own-agent tests: Player module files and a quick-default server."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
import trio

from arbiter.server.app import bound_port, serve
from tests.conftest import HOST, RunningServer

PLAYERS = Path(__file__).parent / "players"
TEMPLATES = Path(__file__).resolve().parents[2] / "agents" / "templates"


@pytest.fixture
async def quick_server(nursery: trio.Nursery, tmp_path: Path) -> RunningServer:
    """A server that defaults a dropped seat at once (no reconnect grace, on a server that has
    one), so a crashed module's loss shows without waiting out the grace period."""
    db = tmp_path / "arbiter.db"
    quick = {"grace": 0.0} if "grace" in inspect.signature(serve).parameters else {}
    listeners = await nursery.start(partial(serve, HOST, 0, db, **quick))
    return RunningServer(HOST, bound_port(listeners), db)


@pytest.fixture
def write_module(tmp_path: Path) -> Callable[[str], Path]:
    """`write_module(source)`: a Player module file holding `source`, for one-off behaviours."""
    count = 0

    def write(source: str) -> Path:
        nonlocal count
        count += 1
        path = tmp_path / f"module_{count}.py"
        path.write_text(textwrap.dedent(source).strip() + "\n")
        return path

    return write
