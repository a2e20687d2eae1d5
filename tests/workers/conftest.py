"""The workers' tests share one server with workers of its own."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import ROOT, SERVER
from tests.workers.hosting import scratch_folder, wait_for_log


@contextlib.contextmanager
def server_with_workers(
    tmp_path: Path, *flags: str, db: Path | str | None = None
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`arbiter-server --workers 2 FLAGS...` once both workers are ready, and its port; stopped
    after as Ctrl-C stops it (its workers end their sandboxes and remove their folders), then
    whatever is left of its process group killed. Its store is `db`, by default
    `tmp_path/arbiter.db`; its log `tmp_path/server.log`."""
    db, log = db or tmp_path / "arbiter.db", tmp_path / "server.log"
    with scratch_folder() as scratch:
        with open(log, "w") as stderr:
            server = subprocess.Popen(
                [*SERVER, "--port", "0", "--db", str(db), "--workers", "2", *flags],
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                cwd=ROOT,
                start_new_session=True,
                env={**os.environ, "TMPDIR": str(scratch)},
            )
        yield from _running(server, log)


def _running(
    server: subprocess.Popen[str], log: Path
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split(":")[-1])
        wait_for_log(log, "worker_ready", count=2)
        yield server, port
    finally:
        with contextlib.suppress(ProcessLookupError):
            server.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.communicate(timeout=15)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.communicate()


@pytest.fixture
def with_workers(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A server with two workers of one slot each (`server_with_workers`)."""
    with server_with_workers(tmp_path) as running:
        yield running
