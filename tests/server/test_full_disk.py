"""A store that refuses writes under a live match: its disk full (a small tmpfs the test mounts,
holding the SQLite file, or the PostgreSQL database's tablespace). The match ends for both
players with a `game_over` that says the server could not store it, showing the moves that were
stored; a new match is refused with the reason; once there is room again the ending is
recorded, and no match is left in play."""

from __future__ import annotations

import errno
import os
import pwd
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import psycopg
import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ServerError
from arbiter.server.storage.engine import open_database
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.e2e.helpers import Dial
from tests.postgres import RUN_AS, Cluster
from tests.server.live_match import answer, next_turn, pair, play, rows, stored_moves

pytestmark = BOTH_BACKENDS

DISK_SIZE = "48m"
"""The tmpfs: room for a SQLite file, or for a PostgreSQL database's tablespace."""


@pytest.fixture
def disk(backend: str) -> Iterator[Path]:
    """A small tmpfs, unmounted and removed after the test; the PostgreSQL cluster's user owns
    it for that store. Skipped where it cannot be mounted (not root), except under `CI=true`."""
    folder = Path(tempfile.mkdtemp(prefix="arbiter-disk-"))
    owner = pwd.getpwnam(RUN_AS).pw_uid if backend == "postgres" else os.geteuid()
    command = ["mount", "-t", "tmpfs", "-o", f"size={DISK_SIZE},mode=0700,uid={owner}"]
    try:
        subprocess.run([*command, "tmpfs", str(folder)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as error:
        folder.rmdir()
        why = getattr(error, "stderr", b"").decode().strip() or str(error)
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a tmpfs cannot be mounted: {why}")
        pytest.skip(f"a tmpfs cannot be mounted here: {why}")
    try:
        yield folder
    finally:
        _unmount(folder)


def _unmount(folder: Path) -> None:
    for _ in range(50):  # a process that just let go of its files may still hold the mount
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    else:
        subprocess.run(["umount", "--lazy", str(folder)], check=True)
    folder.rmdir()


@pytest.fixture
def db(backend: str, disk: Path, request: pytest.FixtureRequest) -> Iterator[Path | str]:
    """The store on the tmpfs: a SQLite file, or a PostgreSQL database whose tablespace it is
    (the cluster's WAL stays on its own disk). PostgreSQL needs room only for a new page, so the
    moves' pages are filled to a tenth: a full disk is met within a few moves."""
    if backend == "sqlite":
        yield disk / "arbiter.db"
        return
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    name = disk.name.replace("-", "_")
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as admin:
        admin.execute(f"CREATE TABLESPACE {name} LOCATION '{disk}'")
        try:
            admin.execute(f"CREATE DATABASE {name} TABLESPACE {name}")
            try:
                with closing(open_database(cluster.url(name))) as store:
                    store.execute("ALTER TABLE moves SET (fillfactor = 10)")
                    store.execute("ALTER INDEX moves_pkey SET (fillfactor = 10)")
                yield cluster.url(name)
            finally:
                admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        finally:
            admin.execute(f"DROP TABLESPACE {name}")


def _fill(folder: Path) -> Path:
    """A file that takes every byte left on the disk."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 1 << 12, 1):
            chunk = bytes(size)
            try:
                while True:
                    os.write(fd, chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
    finally:
        os.close(fd)
    return filler


async def test_a_full_disk_ends_the_match_for_both_and_is_recorded_once_freed(
    server: RunningServer, dial: Dial, disk: Path, backend: str
) -> None:
    seated = await pair(dial, {"move": 5.0})
    played: list[str] = []
    await play(seated, played, 2)
    turn = await next_turn(seated[0])  # the two moves are stored
    filler = _fill(disk)
    try:
        while isinstance(turn, protocol.YourTurn):  # until a move cannot be stored (the game
            await answer(seated[len(played) % 2], turn, played)  # lasts 201 plies)
            turn = await next_turn(seated[len(played) % 2])
        overs = [turn, await next_turn(seated[1 - len(played) % 2])]
        for over in overs:
            assert isinstance(over, protocol.GameOver), over
            assert (over.result, over.winner) == ("both_forfeit", None)
            assert "could not store" in over.reason
            assert len(over.moves) >= 2
            assert over.moves == played[: len(over.moves)]
        if backend == "sqlite":  # (a page of PostgreSQL's matches table may have room left)
            for client in seated:
                await client.send(protocol.Seek(game="kings-court", time={"move": 5.0}))
            with pytest.raises(ServerError, match="could not store it"), trio.fail_after(10):
                await next_turn(seated[0])
    finally:
        filler.unlink()
    with trio.fail_after(30):
        # The server's process writes the ending: the database is all there is to watch.
        while rows(server.db, "SELECT id FROM matches WHERE status = 'playing'"):  # noqa: ASYNC110
            await trio.sleep(0.2)
    assert rows(server.db, "SELECT status, result, winner, termination FROM matches") == [
        ("finished", "both_forfeit", None, "server-error")
    ]
    assert stored_moves(server.db) == overs[0].moves
