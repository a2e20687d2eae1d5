"""Storage faults under live matches: the commit process stopped, killed, and (with a small
tmpfs as the server's folder) the disk filled. Each runs on a server of its own, since a fault
may leave the server broken; it is judged by forfeits, matches left `playing` and acknowledged
moves missing from the database (bench/abuse.py checks those after the bots leave)."""

from __future__ import annotations

import errno
import os
import signal
from pathlib import Path

import trio
from attacking import Attack, Target, Verdict
from launch import child_pids

COMMIT_MODULE = b"arbiter.server.storage.commit_writer"
STALL_SECONDS = 5.0
HOLD_FULL_SECONDS = 5.0


def commit_process(server_pid: int) -> int | None:
    """The server's commit process (`python -m arbiter.server.storage.commit_writer FD`), if it has
    one now."""
    for pid in child_pids(server_pid):
        try:
            if COMMIT_MODULE in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    return None


def commit_process_or_note(target: Target, verdict: Verdict) -> int | None:
    pid = commit_process(target.server_pid)
    if pid is None:
        verdict.notes.append("no commit process found under the server")
        verdict.missed.append("fault not made")
    return pid


async def storage_stall(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """The commit process stopped (SIGSTOP) for 5 s, 1 s into the attack, then continued:
    no bot may lose on time, though their move limit is shorter than the stall."""
    await trio.sleep(1.0)
    pid = commit_process_or_note(target, verdict)
    if pid is None:
        return
    os.kill(pid, signal.SIGSTOP)
    try:
        await trio.sleep(STALL_SECONDS)
    finally:
        os.kill(pid, signal.SIGCONT)
    verdict.notes.append(f"commit process stopped for {STALL_SECONDS:.0f} s")


async def storage_kill(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """The commit process killed (SIGKILL) 1 s into the attack, under the live matches."""
    await trio.sleep(1.0)
    pid = commit_process_or_note(target, verdict)
    if pid is None:
        return
    os.kill(pid, signal.SIGKILL)
    await trio.sleep(2.0)
    again = commit_process(target.server_pid)
    restarted = "not restarted" if again is None else "restarted"
    verdict.notes.append(f"commit process killed; 2 s later: {restarted}")


async def full_disk(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """The server's folder (a small tmpfs) filled to the last byte 1 s into the attack, kept
    full for 5 s, then emptied again."""
    await trio.sleep(1.0)
    filler = target.scratch / "filler"
    try:
        written = await trio.to_thread.run_sync(fill, filler)
        verdict.notes.append(f"disk filled ({written >> 20} MB) for {HOLD_FULL_SECONDS:.0f} s")
        await trio.sleep(HOLD_FULL_SECONDS)
    finally:
        filler.unlink(missing_ok=True)


def fill(path: Path) -> int:
    """Write zeros to `path` until the file system is full: the bytes written."""
    chunk = bytes(1 << 20)
    written = 0
    with path.open("wb", buffering=0) as file:
        while True:
            try:
                written += file.write(chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                chunk = chunk[: len(chunk) // 2]
                if len(chunk) < 512:
                    return written


ATTACKS = [
    Attack("storage-stall", storage_stall, server="own", fault=True, min_seconds=10.0),
    Attack("storage-kill", storage_kill, server="own", fault=True, min_seconds=10.0),
]
FULL_DISK = Attack("full-disk", full_disk, server="own", fault=True, min_seconds=10.0)
"""Only with `--full-disk`: it needs a tmpfs mounted (root)."""
