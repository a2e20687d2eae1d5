"""A process tree as /proc shows it: its processes, threads and CPU seconds.

With `--unshare-pid` every process of a sandbox descends from its bubblewrap, and an orphan is
adopted by the sandbox's own init, so the tree under the bubblewrap we started is the whole
sandbox. Its CPU time is the user and system time of every live process plus what each has
collected from the children it reaped (`cutime`, `cstime`): a child's seconds move into its
parent's count when it ends, so nothing is counted twice or lost.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

TICKS = os.sysconf("SC_CLK_TCK")
"""/proc counts CPU time in clock ticks of this many per second."""
READ_SIZE = 65536
"""Bytes read of a /proc file at once: a stat line is a few hundred, a children list a few
bytes per child."""


@dataclass(frozen=True, slots=True)
class TreeUsage:
    """A look at a tree: its live process ids, their threads in all, and CPU seconds."""

    pids: tuple[int, ...]
    threads: int
    cpu_seconds: float


def tree_usage(root: int) -> TreeUsage:
    """The tree under (and including) `root`, read from /proc; processes ending meanwhile are
    left out, so a tree that has ended is empty."""
    pids: list[int] = []
    threads = 0
    ticks = 0
    pending = [root]
    while pending:
        pid = pending.pop()
        stat = _stat_fields(pid)
        if stat is None:
            continue
        pids.append(pid)
        # fields after the command's closing parenthesis: state is [0], utime [11], stime [12],
        # cutime [13], cstime [14], num_threads [17]
        ticks += sum(int(field) for field in stat[11:15])
        threads += int(stat[17])
        pending.extend(_children(pid))
    return TreeUsage(tuple(pids), threads, ticks / TICKS)


def _stat_fields(pid: int) -> list[str] | None:
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    return text[text.rindex(b")") + 2 :].decode().split()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        listed = _read(f"/proc/{pid}/task/{task}/children")
        if listed is not None:
            found.extend(int(child) for child in listed.split())
    return found


def _read(path: str) -> bytes | None:
    """A small /proc file's bytes, or None once its process has gone. A raw read: a watchdog
    and every move's CPU figure read several of these, and a buffered file object costs twice
    the time of the read itself."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, READ_SIZE)
    except OSError:
        return None
    finally:
        os.close(fd)


def user_tasks(uid: int) -> int:
    """How many processes and threads the user `uid` runs now (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count
