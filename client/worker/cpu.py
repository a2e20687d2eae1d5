"""The CPU seconds a process and all its descendants have used, read from Linux's /proc.

Each live process of the tree counts its own user and system time and that of the children it
has reaped (`cutime`, `cstime`): a child that exited and was waited for still counts, and no
second counts twice. A process that exits between the listing and the read is skipped (its
parent's `cutime` takes its time once reaped).
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK")
"""Clock ticks a second: the unit /proc counts CPU time in."""


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds of `root` and every descendant alive now (0 once `root` is gone)."""
    ticks = 0
    for pid in _tree(root):
        ticks += _ticks(pid)
    return ticks / TICKS


def _tree(root: int) -> list[int]:
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(_children(pid))
    return found


def _children(pid: int) -> list[int]:
    children: list[int] = []
    try:
        for task in (PROC / str(pid) / "task").iterdir():
            children.extend(int(child) for child in (task / "children").read_text().split())
    except OSError:  # exited meanwhile
        return []
    return children


def _ticks(pid: int) -> int:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return 0
    # after the command's name, which may hold spaces and parentheses: state is field 3, utime
    # 14, stime 15, cutime 16, cstime 17 (proc(5))
    fields = stat[stat.rindex(")") + 2 :].split()
    return sum(int(value) for value in fields[11:15])
