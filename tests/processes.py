"""Finding the server's commit processes (`python -m server.commit_writer FD DB`) by their DB."""

from __future__ import annotations

import time
from pathlib import Path


def commit_writers(db: Path) -> list[int]:
    """The pids of processes committing to `db`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue  # a process that ended while we looked
        if b"server.commit_writer" in words and str(db).encode() in words:
            found.append(int(cmdline.parent.name))
    return found


def no_commit_writer_left(db: Path, seconds: float = 5) -> bool:
    """Whether every process committing to `db` is gone within `seconds`."""
    deadline = time.monotonic() + seconds
    while commit_writers(db) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not commit_writers(db)
