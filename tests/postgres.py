"""A throwaway PostgreSQL cluster for the tests: `Cluster.start()` runs `initdb` and `pg_ctl` in
a temporary folder, as a user other than root (initdb refuses root), on a free port of 127.0.0.1
with its unix sockets in that folder; `database()` gives each test a fresh, empty database; and
`stop()` removes it all. A pytest that is killed never runs `stop()`, so each cluster has a
watchdog process that removes it once the process that started it is gone (`WATCHDOG`).

The server programs are found on PATH or where Debian's `postgresql` package puts them
(`/usr/lib/postgresql/VERSION/bin`). Without them the PostgreSQL tests are skipped, except
under `CI=true`, where a missing PostgreSQL is a failure (`.ci/run` installs it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import psycopg
import pytest

USER = "arbiter"
"""The cluster's superuser, the one the tests connect as (trust authentication: a
throwaway cluster reachable only from this machine)."""
RUN_AS = "nobody"
"""The system user the cluster's processes run as when the tests run as root."""
SPEED = "-c fsync=off -c full_page_writes=off"
"""No flush to disk: the tests kill Arbiter's processes, never PostgreSQL's or the machine, and
a commit PostgreSQL has acknowledged survives its client without one. (The bench runs on a
cluster with the default settings.)"""
WATCHDOG = """\
import os, shutil, subprocess, sys, time
parent, folder, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
while os.getppid() == parent:
    time.sleep(0.2)
subprocess.run(stop, cwd=folder, capture_output=True)
shutil.rmtree(folder, ignore_errors=True)
"""
"""The watchdog's program: once its parent (the process that started the cluster) is gone,
however it ended, stop the cluster and remove its folder. It runs in a session of its own, so
a Ctrl-C or a kill of pytest's process group leaves it to do that."""


def find_program(name: str) -> str | None:
    """`initdb`/`pg_ctl` on PATH, else the newest of Debian's versioned folders."""
    found = shutil.which(name)
    if found is not None:
        return found
    debian = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda path: int(path.parts[-3]) if path.parts[-3].isdigit() else 0,
    )
    return str(debian[-1]) if debian else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Cluster:
    """A running cluster; `url(name)` names one of its databases."""

    folder: Path
    port: int
    pg_ctl: str
    _numbers: count[int] = field(default_factory=count)
    _watchdog: subprocess.Popen[bytes] | None = None

    @classmethod
    def start(cls, parent: Path | None = None) -> Cluster:
        """initdb and start a cluster in a new folder of `parent` (default: the temporary
        folder); `RuntimeError` with the server's log if it fails."""
        initdb, pg_ctl = find_program("initdb"), find_program("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise FileNotFoundError("no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin")
        folder = Path(tempfile.mkdtemp(prefix="arbiter-pg-", dir=parent))
        cluster = cls(folder, _free_port(), pg_ctl)
        if os.geteuid() == 0:
            os.chown(folder, pwd.getpwnam(RUN_AS).pw_uid, -1)
        try:
            cluster._run(initdb, "-D", "data", "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync")
            options = f"-p {cluster.port} -k {folder} -c listen_addresses=127.0.0.1 {SPEED}"
            cluster._run(pg_ctl, "-D", "data", "-o", options, "-l", "log", "-w", "start")
        except subprocess.CalledProcessError as error:
            log = folder / "log"
            shown = log.read_text() if log.exists() else ""
            cluster.remove()
            raise RuntimeError(f"PostgreSQL did not start: {error.stderr}{shown}") from error
        stop = cluster._as_user(*cluster._stop())
        cluster._watchdog = subprocess.Popen(
            [sys.executable, "-c", WATCHDOG, str(os.getpid()), str(folder), *stop],
            start_new_session=True,
        )
        return cluster

    def _as_user(self, *command: str) -> list[str]:
        return ["runuser", "-u", RUN_AS, "--", *command] if os.geteuid() == 0 else [*command]

    def _run(self, *command: str) -> None:
        subprocess.run(
            self._as_user(*command), cwd=self.folder, check=True, capture_output=True, text=True
        )

    def _stop(self) -> list[str]:
        """The command that stops the cluster at once (nothing in it is kept)."""
        return [self.pg_ctl, "-D", "data", "-m", "immediate", "-w", "stop"]

    def url(self, name: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"

    def database(self) -> str:
        """A new, empty database's URL."""
        name = f"test_{next(self._numbers)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def halt(self) -> None:
        """Stop the cluster's server at once, keeping its folder: a database gone under a
        running Arbiter. `stop()` removes it after."""
        self._run(*self._stop())

    def stop(self) -> None:
        """Stop the cluster at once (nothing in it is kept; halted already is fine), remove its
        folder, and end its watchdog."""
        try:
            if (self.folder / "data" / "postmaster.pid").exists():
                self._run(*self._stop())
        finally:
            self.remove()

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._watchdog is not None:
            self._watchdog.kill()
            self._watchdog.wait()


@contextmanager
def throwaway_cluster(parent: Path | None = None) -> Iterator[Cluster]:
    """A cluster for a fixture (in a folder of `parent`, as `Cluster.start`), stopped and removed
    after it. Skipped without PostgreSQL's programs, except under `CI=true`: there they must be
    installed (`.ci/run`)."""
    try:
        cluster = Cluster.start(parent)
    except FileNotFoundError as missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PostgreSQL is not installed: {missing}")
        pytest.skip(f"PostgreSQL is not installed: {missing}")
    try:
        yield cluster
    finally:
        cluster.stop()
