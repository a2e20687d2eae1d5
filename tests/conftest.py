"""Fixtures shared by the suite: a real server on 127.0.0.1 with a real store, a SQLite file or,
for the tests marked `BOTH_BACKENDS`, a PostgreSQL database of a throwaway cluster too."""

from __future__ import annotations

import functools
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import ParamSpec

import pytest
import trio

from arbiter.agents.search.clock import LATENESS
from arbiter.server.app import Admission, bound_port, serve
from tests.e2e.helpers import Dial
from tests.leftovers import nothing_left, own_temporary_folder
from tests.node_client import node_client  # noqa: F401  (a fixture for every test folder)
from tests.postgres import Cluster, throwaway_cluster

HOST = "127.0.0.1"
SYSTEM_TEMPORARY_FOLDER = Path(tempfile.gettempdir())
"""Where the session's PostgreSQL cluster lives, outside the test process's own temporary folder
(`temporary_folder`): it outlasts the test that starts it, and its own teardown removes it."""
P = ParamSpec("P")

BACKENDS = ("sqlite", "postgres")
TIMED = pytest.mark.usefixtures("untraced")
"""The mark of a test that times CPU-bound code (a search within its budget, its iterations in
that time): it runs without the coverage tracer, whose slowdown is not the code's."""
VOLUME = pytest.mark.usefixtures("untraced")
"""The mark of a test that plays thousands of games to check the rules at volume: it runs
without the coverage tracer, which makes it four times slower, while the rules' own tests
measure their coverage."""
BOTH_BACKENDS = pytest.mark.parametrize("backend", BACKENDS)
"""A module's `pytestmark` (or a test's mark) that runs it on each backend: its `db` (and the
`server` fixture's) is then a SQLite file, then a fresh PostgreSQL database."""


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C heard again where the suite was started with it ignored: a shell without job
    control starts a background command (`make test &`) so, every process inherits it across
    `exec`, and the servers and tournaments the tests stop with SIGINT would run on. Restored
    here, the processes the suite starts (its xdist workers among them) get the default."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked `long` first: xdist hands tests out in this order, one at a time to the
    process that is free (`--maxschedchunk=1` in pyproject.toml), so the long ones are shared
    between the processes, and a long test started last does not run alone while the other
    process idles."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(scope="session", autouse=True)
def temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This test process's own `TMPDIR` (`tests.leftovers`); pytest's `tmp_path` folders stay
    where they are (their base is fixed first)."""
    tmp_path_factory.getbasetemp()
    with own_temporary_folder() as folder:
        yield folder


@pytest.fixture(autouse=True)
def no_leftovers(temporary_folder: Path) -> Iterator[None]:
    """The test fails if it leaves an `arbiter-*` entry in the temporary folder: whatever it
    started is stopped by its end, and cleans up after itself (`tests.leftovers`)."""
    with nothing_left(temporary_folder):
        yield


@pytest.fixture(autouse=True)
def fresh_lateness() -> None:
    """Each test's agents start from the clock's prior, not from what an earlier test's moves
    taught this process (`agents.search.clock.LATENESS` is process-wide, kept a minute)."""
    LATENESS.forget()


@contextmanager
def untraced_calls() -> Iterator[None]:
    """The block's calls run without this thread's trace function (coverage's, under `make
    test`), which is put back after: see `TIMED` and `VOLUME`."""
    tracer = sys.gettrace()
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(tracer)


@pytest.fixture
def untraced() -> Iterator[None]:
    """The test's calls run untraced (`untraced_calls`)."""
    with untraced_calls():
        yield


def volume_body(test: Callable[P, None]) -> Callable[P, None]:
    """`VOLUME` for a Hypothesis test, put under its `@given`: each example's body runs
    untraced (Hypothesis refuses the function-scoped fixture `VOLUME` uses)."""

    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        with untraced_calls():
            test(*args, **kwargs)

    return run


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """One cluster for the session, started by the first test that needs it. Skipped without
    PostgreSQL's programs, except under `CI=true`: there they must be installed (`.ci/run`)."""
    with throwaway_cluster(SYSTEM_TEMPORARY_FOLDER) as cluster:
        yield cluster


@pytest.fixture
def backend() -> str:
    """The store the `db` fixture gives: SQLite unless a test is parametrized (`BOTH_BACKENDS`)."""
    return "sqlite"


@pytest.fixture
def db(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path | str:
    """A store for one test: a file in its `tmp_path`, or a new database's URL."""
    if backend == "postgres":
        cluster: Cluster = request.getfixturevalue("postgres_cluster")
        return cluster.database()
    return tmp_path / "arbiter.db"


@dataclass(frozen=True)
class RunningServer:
    host: str
    port: int
    db: Path | str


@pytest.fixture
async def server(
    nursery: trio.Nursery, db: Path | str, request: pytest.FixtureRequest
) -> RunningServer:
    """A server on a free port, stopped (with its nursery) when the test ends.

    `@pytest.mark.grace(seconds)` sets how long a disconnected seat is kept (default 10 s);
    `@pytest.mark.admission(field=value, ...)` the server's limits on connections and requests
    (`server.connection.admission`); `@pytest.mark.limits(Limits(...))` what clients may make it
    hold (default `Limits()`).
    """
    marker = request.node.get_closest_marker("grace")
    grace = marker.args[0] if marker else 10.0
    admitting = request.node.get_closest_marker("admission")
    admission = Admission(**admitting.kwargs) if admitting else Admission()
    holding = request.node.get_closest_marker("limits")
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


@pytest.fixture
async def dial(server: RunningServer) -> AsyncIterator[Dial]:
    """Connections to the `server` fixture's server, raw or as clients, closed when the test
    ends whatever state it left them in."""
    opened = Dial(server.port)
    try:
        yield opened
    finally:
        await opened.aclose()
