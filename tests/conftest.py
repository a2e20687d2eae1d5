"""Fixtures shared by the suite: a real server on 127.0.0.1 with a real SQLite file."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
import trio

from arbiter.server.app import Admission, bound_port, serve

HOST = "127.0.0.1"


@dataclass(frozen=True)
class RunningServer:
    host: str
    port: int
    db: Path


@pytest.fixture
async def server(
    nursery: trio.Nursery, tmp_path: Path, request: pytest.FixtureRequest
) -> RunningServer:
    """A server on a free port, stopped (with its nursery) when the test ends.

    `@pytest.mark.grace(seconds)` sets how long a disconnected seat is kept (default 10 s);
    `@pytest.mark.admission(field=value, ...)` the server's limits on connections and requests
    (`server.admission`); `@pytest.mark.limits(Limits(...))` what clients may make it hold
    (default `Limits()`).
    """
    marker = request.node.get_closest_marker("grace")
    grace = marker.args[0] if marker else 10.0
    admitting = request.node.get_closest_marker("admission")
    admission = Admission(**admitting.kwargs) if admitting else Admission()
    holding = request.node.get_closest_marker("limits")
    db = tmp_path / "arbiter.db"
    start = partial(
        serve,
        HOST,
        0,
        db,
        grace=grace,
        admission=admission,
        limits=holding.args[0] if holding else None,
    )
    listeners = await nursery.start(start)
    return RunningServer(HOST, bound_port(listeners), db)
