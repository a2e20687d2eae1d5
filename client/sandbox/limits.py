"""What a sandboxed agent may use, and the sentence that names each limit when it is reached.

The defaults fit one agent of a two-player board game on a shared machine: enough memory for a
search with its tables, a handful of processes (a language runtime's helper threads count as
processes for the kernel), and a scratch folder for a cache, yet small enough that a dozen
sandboxes beside a server cannot starve it. A caller running a single game sets the CPU and
wall-clock limits; a local tournament's long-lived entrant leaves them off, since the server's
move clock already judges every move.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

MIB = 1024 * 1024


class EndingKind(enum.Enum):
    """Why a sandboxed run ended: a normal exit, or the limit (or signal) that ended it."""

    EXIT = "exit"
    MEMORY = "memory"
    PROCESSES = "processes"
    DISK = "disk"
    OUTPUT = "output"
    CPU = "cpu"
    WALL = "wall"
    SIGNAL = "signal"
    STOPPED = "stopped"


def size_text(count: int) -> str:
    """`512 MiB`, `64 KiB` or `300 bytes`: a byte count as a person reads a limit."""
    for unit, name in ((1024 * MIB, "GiB"), (MIB, "MiB"), (1024, "KiB")):
        if count >= unit and count % unit == 0:
            return f"{count // unit} {name}"
    return f"{count} bytes"


def seconds_text(seconds: float) -> str:
    """`2 s` or `0.5 s`."""
    return f"{seconds:g} s"


@dataclass(frozen=True, slots=True)
class Limits:
    """The caps of one sandboxed run.

    `memory` caps each process's writable private memory (RLIMIT_DATA: what `malloc`, Python's
    objects and a JIT's heap use; address space a runtime merely reserves, as V8 and Go do by
    gigabytes, is not counted, so those runtimes start at all). `processes` counts every
    process and thread of the run's tree. `file_size` caps any one file it writes, `scratch`
    its private folder in all; `output` is how much of its stdout and stderr is kept (past it
    the run is stopped: an agent printing without end is broken). `cpu_seconds` is for the
    whole tree, `wall_seconds` the watchdog for a run that sleeps or blocks; None means no cap.
    """

    memory: int = 512 * MIB
    processes: int = 32
    open_files: int = 64
    file_size: int = 16 * MIB
    scratch: int = 64 * MIB
    output: int = 1 * MIB
    cpu_seconds: float | None = None
    wall_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("memory", "processes", "open_files", "file_size", "scratch", "output"):
            if getattr(self, name) <= 0:
                raise ValueError(f"the sandbox's {name} limit must be positive: {self!r}")
        for name in ("cpu_seconds", "wall_seconds"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"the sandbox's {name} limit must be positive or None: {self!r}")

    def sentence(self, kind: EndingKind) -> str:
        """The sentence for a run ended by the limit of `kind` (not for exits and signals)."""
        match kind:
            case EndingKind.MEMORY:
                return f"crash: memory limit {size_text(self.memory)} exceeded"
            case EndingKind.PROCESSES:
                return f"crash: process limit {self.processes} reached"
            case EndingKind.DISK:
                return (
                    f"crash: disk limit exceeded (files up to {size_text(self.file_size)},"
                    f" scratch folder {size_text(self.scratch)})"
                )
            case EndingKind.OUTPUT:
                return f"crash: output limit {size_text(self.output)} exceeded"
            case EndingKind.CPU:
                assert self.cpu_seconds is not None
                return f"crash: CPU time limit {seconds_text(self.cpu_seconds)} exceeded"
            case EndingKind.WALL:
                assert self.wall_seconds is not None
                return f"crash: wall-clock limit {seconds_text(self.wall_seconds)} exceeded"
        raise ValueError(f"{kind} names no limit")
