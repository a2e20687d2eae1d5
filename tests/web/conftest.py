"""A real server with its web front (`arbiter-server --http 0`) and Debian's chromium driven by
Playwright (no browser is downloaded). Without /usr/bin/chromium the browser tests skip, except
under `CI=true`, where `.ci/run` installs it and a missing one is a failure."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.processes import start_server, stop

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@dataclass(frozen=True)
class WebServer:
    port: int
    """The protocol's TCP port."""
    url: str
    """The web front, `http://127.0.0.1:PORT`."""
    log: Path
    db: Path


@pytest.fixture
def web_server(tmp_path: Path) -> Iterator[WebServer]:
    log = tmp_path / "server-stderr.txt"
    server, address = start_server(tmp_path / "arbiter.db", "--http", "0", log=log)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("web pages on http://127.0.0.1:"), line
        port = int(address.split(":")[1])
        yield WebServer(port, line.split()[-1], log, tmp_path / "arbiter.db")
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(10)
        stop(server)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and there is no {CHROMIUM} (apt-get install chromium)")
        pytest.skip(f"no {CHROMIUM}: apt-get install chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page; an uncaught script error in it fails the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield opened
    finally:
        context.close()
    assert not errors, errors
