"""Starting a server for a benchmark: a child process that prints `listening on HOST:PORT` once
it serves (Arbiter, or a floor to compare it with)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

BENCH_LIMITS = ["--max-per-address", "1000000", "--ping-timeout", "3600"]
BENCH_LIMITS += ["--max-requests", "1000000", "--max-address-requests", "1000000"]
BENCH_LIMITS += ["--max-seeks-per-address", "1000000"]
"""Every bench client connects from 127.0.0.1, answers no pings and moves as fast as the server
lets it: limits meant for an open network would refuse it. The limiter still runs (its cost is
measured), it just never refuses. Flags and their values alternate."""
ARBITER = [sys.executable, "-m", "arbiter.server", "--port", "0", *BENCH_LIMITS]
"""`arbiter-server` on a free port; add `--db FILE`."""


def start_server(
    command: list[str],
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    stderr: IO[str] | None = None,
) -> tuple[subprocess.Popen[str], int]:
    """The started process and its port; killed, and `RuntimeError`, if it does not listen.
    (The line is `listening on HOST:PORT`, with ` (TLS)` after it on a TLS server.) Its log
    goes to `stderr`, ours by default."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=cwd
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        process.wait()
        raise RuntimeError(f"server did not start: {line!r}")
    return process, int(line.split()[2].rsplit(":", 1)[1])


def start_arbiter(db: Path) -> tuple[subprocess.Popen[str], int]:
    return start_server([*ARBITER, "--db", str(db)])


def checkout_server(checkout: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
    """The command and environment that run another checkout's server with this interpreter,
    from the checkout's own folder (`python -m` looks there first).

    For a baseline measured in the same run: `git worktree add /tmp/before REV`, then pass
    /tmp/before. A checkout from before the single `arbiter` name runs as `python -m server`
    from its folder; a later one through a tree of links, `arbiter/<room>` -> its folders, put
    ahead of this checkout's editable install on the path. A checkout's server gets those of
    `BENCH_LIMITS` its flags know, as ours gets them all.
    """
    checkout = checkout.resolve()
    single_name = "arbiter.server" in (checkout / "pyproject.toml").read_text()
    module = "arbiter.server" if single_name else "server"
    env = checkout_env(checkout, scratch)
    command = [sys.executable, "-m", module, "--port", "0"]
    known = (checkout / "server" / "__main__.py").read_text()
    pairs = zip(BENCH_LIMITS[::2], BENCH_LIMITS[1::2], strict=True)
    command += [part for flag, value in pairs if flag in known for part in (flag, value)]
    return command, env


def checkout_env(checkout: Path, scratch: Path) -> dict[str, str]:
    """The environment that imports `arbiter` from another checkout: a tree of links,
    `arbiter/<room>` -> its folders, ahead of this checkout's editable install on the path."""
    checkout = checkout.resolve()
    tree = Path(tempfile.mkdtemp(prefix="arbiter-baseline-", dir=scratch))
    (tree / "arbiter").mkdir()
    for room in ("games", "protocol", "server", "client", "agents"):
        (tree / "arbiter" / room).symlink_to(checkout / room)
    return {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{checkout}"}


def resident_mb(pid: int) -> float:
    """A process's resident memory in MB (Linux's /proc), nan if it reports none."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int, children: bool = False) -> float:
    """User + system CPU time so far of a process, and with `children` of its live children too
    (Linux /proc): the server's commit process counts as the server."""
    total = 0
    for each in [pid, *child_pids(pid)] if children else [pid]:
        fields = _stat_fields(each)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def child_pids(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (Linux /proc), such as a server's commit
    process."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        fields = _stat_fields(int(entry.name))
        if fields is not None and fields[1] == str(pid):
            found.append(int(entry.name))
    return found


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state, parent, ...: field 3 on
    is index 0 on), or None for a process that ended while we looked."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (`share` 0.99 for p99: the smallest value at least 99% of the
    values do not exceed); nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]
