"""Fixtures shared by the suite: a real server on 127.0.0.1 with a real SQLite file."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
import trio

from server.app import bound_port, serve

HOST = "127.0.0.1"


@dataclass(frozen=True)
class RunningServer:
    host: str
    port: int
    db: Path


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path) -> RunningServer:
    """A server on a free port, stopped (with its nursery) when the test ends."""
    db = tmp_path / "arbiter.db"
    listeners = await nursery.start(partial(serve, HOST, 0, db))
    return RunningServer(HOST, bound_port(listeners), db)
