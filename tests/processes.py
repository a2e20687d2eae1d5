"""Processes the tests start or look for: the commands as a user runs them, a server on a free
port, and the server's commit processes (`python -m arbiter.server.commit_writer FD DB`) by their
DB."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "arbiter.client.cli"]
SERVER = [sys.executable, "-m", "arbiter.server"]
ROOT = Path(__file__).resolve().parents[1]


def start_server(
    db: Path, *options: str, log: Path | None = None
) -> tuple[subprocess.Popen[str], str]:
    """`arbiter-server` on a free port of 127.0.0.1 with `db` (and `options`), and its HOST:PORT
    once it listens; the caller stops it. Its log (stderr) goes to the file `log` if given."""
    with open(log, "w") if log else contextlib.nullcontext() as stderr:
        server = subprocess.Popen(
            [*SERVER, "--host", "127.0.0.1", "--port", "0", "--db", str(db), *options],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=ROOT,
        )
    assert server.stdout is not None
    line = server.stdout.readline()
    assert line.startswith("listening on 127.0.0.1:"), line
    return server, line.split()[2]


def start_bots(address: str, *options: str, named: bool = False) -> list[subprocess.Popen[str]]:
    """`arbiter bot` with greedy and with random (`named` after their agents), King's Court at
    `address` (and `options`); the caller reads them to their end."""
    command = [*CLI, "bot", "--server", address, "--game", "kings-court", "--seed", "1"]
    return [
        subprocess.Popen(
            [*command, "--agent", agent, *(["--name", agent] if named else []), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for agent in ("greedy", "random")
    ]


def commit_writers(db: Path) -> list[int]:
    """The pids of processes committing to `db`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue  # a process that ended while we looked
        if b"arbiter.server.commit_writer" in words and str(db).encode() in words:
            found.append(int(cmdline.parent.name))
    return found


def no_commit_writer_left(db: Path, seconds: float = 5) -> bool:
    """Whether every process committing to `db` is gone within `seconds`."""
    deadline = time.monotonic() + seconds
    while commit_writers(db) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not commit_writers(db)
