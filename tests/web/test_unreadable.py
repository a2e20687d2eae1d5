"""A store that fails under a running server is a sentence on the page, on either engine: a
real `arbiter-server --http 0` process, its SQLite file moved away or its PostgreSQL cluster
stopped while it runs, and chromium showing a player's page."""

from __future__ import annotations

import contextlib
import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from arbiter.server.web.front import UNREADABLE
from tests.postgres import Cluster, throwaway_cluster
from tests.processes import start_server, stop
from tests.web.test_watch import SECONDS


def get(url: str) -> tuple[int, dict[str, str]]:
    """The status and the JSON of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=SECONDS / 1000) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of the test's own, as it is stopped under the server (the session's is
    shared)."""
    with throwaway_cluster() as cluster:
        yield cluster


def sqlite_gone(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, Callable[[], None]]:
    """A SQLite file, and how it goes away: moved under the server."""
    db = tmp_path / "arbiter.db"
    return str(db), lambda: db.rename(tmp_path / "moved.db")


def postgres_gone(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, Callable[[], None]]:
    """A PostgreSQL database, and how it goes away: its cluster stopped under the server."""
    cluster: Cluster = request.getfixturevalue("own_cluster")
    return cluster.database(), cluster.halt


@pytest.mark.parametrize("store", [sqlite_gone, postgres_gone], ids=["sqlite", "postgres"])
def test_a_store_gone_under_the_server_is_a_sentence_on_the_page(
    store: Callable[[Path, pytest.FixtureRequest], tuple[str, Callable[[], None]]],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    page: Page,
) -> None:
    db, gone = store(tmp_path, request)
    server, _ = start_server(db, "--http", "0", log=tmp_path / "server-stderr.txt")
    try:
        assert server.stdout is not None
        web = server.stdout.readline().split()[-1]
        assert get(f"{web}/records/player/ann") == (200, {"player": "ann", "games": []})
        gone()
        status, found = get(f"{web}/records/player/bob")
        assert (status, found) == (503, {"error": UNREADABLE})
        page.goto(f"{web}/player/cat")
        expect(page.locator(".error")).to_have_text(UNREADABLE, timeout=SECONDS)
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(10)
        stop(server)  # killed if SIGTERM did not end it; its stdout closed
    log = (tmp_path / "server-stderr.txt").read_text()
    assert "cannot read the records for a player" in log
