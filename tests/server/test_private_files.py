"""The server's file, its SQLite companions (-wal, -shm) and its lock are owner-only when the
server creates them: the file holds token hashes."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arbiter.client.connection import ClientConnection
from arbiter.server.app import local_server
from tests.processes import ROOT, SERVER


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def no_umask() -> Iterator[None]:
    """Umask 0, so the modes seen are those the server asked for, not the umask's doing
    (SQLite alone would make the file 0644 here, and 0666 minus whatever umask)."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


async def test_the_file_and_its_companions_are_owner_only(tmp_path: Path, no_umask: None) -> None:
    db = tmp_path / "arbiter.db"
    async with local_server(db) as (host, port):
        async with await ClientConnection.open(host, port, "alice"):
            pass
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}.lock")]
        assert {path.name: mode(path) for path in files} == {path.name: 0o600 for path in files}


def test_an_existing_file_keeps_its_mode(tmp_path: Path, no_umask: None) -> None:
    db = tmp_path / "shared.db"
    admin = [*SERVER, "admin", "--db", str(db)]
    subprocess.run([*admin, "add", "alice"], check=True, cwd=ROOT, capture_output=True)
    assert mode(db) == 0o600
    db.chmod(0o640)  # the owner chose to share it with a group
    subprocess.run([*admin, "list"], check=True, cwd=ROOT, capture_output=True)
    assert mode(db) == 0o640
