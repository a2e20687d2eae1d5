"""Starting a server for a benchmark: a child process that prints `listening on HOST:PORT` once
it serves (Arbiter, or a floor to compare it with)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH_LIMITS = ["--max-per-address", "1000000", "--ping-timeout", "3600"]
BENCH_LIMITS += ["--max-requests", "1000000"]
"""Every bench client connects from 127.0.0.1, answers no pings and moves as fast as the server
lets it: limits meant for an open network would refuse it. The limiter still runs (its cost is
measured), it just never refuses."""
ARBITER = [sys.executable, "-m", "arbiter.server", "--port", "0", *BENCH_LIMITS]
"""`arbiter-server` on a free port; add `--db FILE`."""


def start_server(
    command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[subprocess.Popen[str], int]:
    """The started process and its port; killed, and `RuntimeError`, if it does not listen."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=cwd)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        process.wait()
        raise RuntimeError(f"server did not start: {line!r}")
    return process, int(line.rsplit(":", 1)[1])


def start_arbiter(db: Path) -> tuple[subprocess.Popen[str], int]:
    return start_server([*ARBITER, "--db", str(db)])


def checkout_server(checkout: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
    """The command and environment that run another checkout's server with this interpreter,
    from the checkout's own folder (`python -m` looks there first).

    For a baseline measured in the same run: `git worktree add /tmp/before REV`, then pass
    /tmp/before. A checkout from before the single `arbiter` name runs as `python -m server`
    from its folder; a later one through a tree of links, `arbiter/<room>` -> its folders, put
    ahead of this checkout's editable install on the path.
    """
    checkout = checkout.resolve()
    tree = Path(tempfile.mkdtemp(prefix="arbiter-baseline-", dir=scratch))
    (tree / "arbiter").mkdir()
    for room in ("games", "protocol", "server", "client", "agents"):
        (tree / "arbiter" / room).symlink_to(checkout / room)
    single_name = "arbiter.server" in (checkout / "pyproject.toml").read_text()
    module = "arbiter.server" if single_name else "server"
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{checkout}"}
    # The bench's own limits, for a checkout that has them: at its defaults (64 connections an
    # address) it would refuse the bench's clients from 32 matches up.
    main = checkout / "server" / "__main__.py"
    limits = BENCH_LIMITS if "--max-per-address" in main.read_text() else []
    return [sys.executable, "-m", module, "--port", "0", *limits], env


def resident_mb(pid: int) -> float:
    """A process's resident memory in MB (Linux's /proc), nan if it reports none."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
