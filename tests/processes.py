"""Processes the tests start or look for: the commands as a user runs them, a server on a free
port, and the server's commit processes (`python -m arbiter.server.storage.commit_writer FD`) by the
store in their environment."""

from __future__ import annotations

import contextlib
import io
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import trio

from arbiter.server.storage.commit_writer import TARGET

CLI = [sys.executable, "-m", "arbiter.client.cli"]
SERVER = [sys.executable, "-m", "arbiter.server"]


async def in_process(
    command: Callable[[list[str]], int], argv: list[str], shown: list[str]
) -> subprocess.CompletedProcess[bytes]:
    """A command's `main(argv)` run in this process, on a worker thread, so that its code is
    measured: its exit status (argparse's refusals included) and what it printed, as if the
    process `shown` had run (tests/e2e run the commands as processes of their own)."""

    def run() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = command(argv)
            except SystemExit as exit:
                status = exit.code if isinstance(exit.code, int) else 1
        return status, out.getvalue(), err.getvalue()

    with trio.fail_after(60):
        status, out, err = await trio.to_thread.run_sync(run)
    return subprocess.CompletedProcess(shown, status, out.encode(), err.encode())


ROOT = Path(__file__).resolve().parents[1]


def stop(process: subprocess.Popen[str], sent: signal.Signals = signal.SIGKILL) -> None:
    """Send `process` the signal `sent` if it still runs, reap it and close its pipes: a pipe left
    to the garbage collector is a `ResourceWarning`, which fails the test."""
    with process:
        process.send_signal(sent)


def start_server(
    db: Path | str, *options: str, log: Path | None = None, host: str = "127.0.0.1"
) -> tuple[subprocess.Popen[str], str]:
    """`arbiter-server` on a free port of `host` with `db` (and `options`), and its HOST:PORT
    once it listens; the caller stops it. Its log (stderr) goes to the file `log` if given."""
    with open(log, "w") if log else contextlib.nullcontext() as stderr:
        server = subprocess.Popen(
            [*SERVER, "--host", host, "--port", "0", "--db", str(db), *options],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=ROOT,
        )
    assert server.stdout is not None
    line = server.stdout.readline()
    assert line.startswith(f"listening on {host}:"), line
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


def commit_writers(db: Path | str) -> list[int]:
    """The pids of processes committing to `db` (a file or a PostgreSQL URL)."""
    found = []
    named = f"{TARGET}={db}".encode()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
            if b"arbiter.server.storage.commit_writer" in words and named in _environment(
                cmdline.parent
            ):
                found.append(int(cmdline.parent.name))
        except OSError:
            continue  # a process that ended while we looked
    return found


def _environment(process: Path) -> list[bytes]:
    return (process / "environ").read_bytes().split(b"\0")


def no_commit_writer_left(db: Path | str, seconds: float = 5) -> bool:
    """Whether every process committing to `db` is gone within `seconds`."""
    deadline = time.monotonic() + seconds
    while commit_writers(db) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not commit_writers(db)
