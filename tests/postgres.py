"""A throwaway PostgreSQL cluster for the tests: `Cluster.start()` runs `initdb` and `pg_ctl` in
a temporary folder, as a user other than root (initdb refuses root), on a free port of 127.0.0.1
with its unix sockets in that folder; `database()` gives each test a fresh, empty database; and
`stop()` removes it all.

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
import tempfile
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import psycopg

USER = "arbiter"
"""The cluster's superuser, the one the tests connect as (trust authentication: a
throwaway cluster reachable only from this machine)."""
RUN_AS = "nobody"
SPEED = "-c fsync=off -c full_page_writes=off"
"""No flush to disk: the tests kill Arbiter's processes, never PostgreSQL's or the machine, and
a commit PostgreSQL has acknowledged survives its client without one. (The bench runs on a
cluster with the default settings.)"""
"""The system user the cluster's processes run as when the tests run as root."""


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

    @classmethod
    def start(cls) -> Cluster:
        """initdb and start a cluster; `RuntimeError` with the server's log if it fails."""
        initdb, pg_ctl = find_program("initdb"), find_program("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise FileNotFoundError("no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin")
        folder = Path(tempfile.mkdtemp(prefix="arbiter-pg-"))
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
        return cluster

    def _run(self, *command: str) -> None:
        as_user = ["runuser", "-u", RUN_AS, "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [*as_user, *command], cwd=self.folder, check=True, capture_output=True, text=True
        )

    def url(self, name: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"

    def database(self) -> str:
        """A new, empty database's URL."""
        name = f"test_{next(self._numbers)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Stop the cluster at once (nothing in it is kept) and remove its folder."""
        try:
            self._run(self.pg_ctl, "-D", "data", "-m", "immediate", "-w", "stop")
        finally:
            self.remove()

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
