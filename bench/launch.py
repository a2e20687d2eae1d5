"""Starting a server for a benchmark: a child process that prints `listening on HOST:PORT` once
it serves (Arbiter, or a floor to compare it with)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ARBITER = [sys.executable, "-m", "arbiter.server", "--port", "0"]
"""`arbiter-server` on a free port; add `--db FILE`."""


def start_server(command: list[str]) -> tuple[subprocess.Popen[str], int]:
    """The started process and its port; killed, and `RuntimeError`, if it does not listen."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        process.wait()
        raise RuntimeError(f"server did not start: {line!r}")
    return process, int(line.rsplit(":", 1)[1])


def start_arbiter(db: Path) -> tuple[subprocess.Popen[str], int]:
    return start_server([*ARBITER, "--db", str(db)])
