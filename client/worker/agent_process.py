"""The process a worker runs for a seat, behind a small seam so that a sandbox can run it instead.

A worker asks only four things of an agent process: start it (a command and its environment),
how many CPU seconds its process tree has used so far, wait for its end with a sentence saying
how it ended, and stop it. `PlainProcess` does that with an ordinary subprocess (the agent runs
with the worker's own rights); a sandboxed one offers the same methods.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Protocol

import trio

from arbiter.client.worker.cpu import tree_cpu_seconds


@dataclass(frozen=True, slots=True)
class Launch:
    """What to run for a seat: the command, and the variables added to its environment."""

    command: list[str]
    environment: dict[str, str]


class AgentProcess(Protocol):
    """One running agent, as the worker sees it."""

    def cpu_seconds(self) -> float:
        """CPU seconds its whole process tree has used so far."""
        ...

    async def wait(self) -> str:
        """Wait for its end; the sentence says how it ended (`exited with status 0`)."""
        ...

    def stop(self) -> None:
        """End it now, with everything it started."""
        ...


class Starter(Protocol):
    """What starts agent processes: `start_plain`, or a sandbox's."""

    async def __call__(self, launch: Launch) -> AgentProcess: ...


class PlainProcess:
    """An agent run as an ordinary subprocess, in a process group of its own (so `stop` ends
    what it started too)."""

    def __init__(self, process: trio.Process) -> None:
        self._process = process

    def cpu_seconds(self) -> float:
        return tree_cpu_seconds(self._process.pid)

    async def wait(self) -> str:
        return ending(await self._process.wait())

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)


async def start_plain(launch: Launch) -> AgentProcess:
    process = await trio.lowlevel.open_process(
        launch.command,
        env={**os.environ, **launch.environment},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    return PlainProcess(process)


def ending(status: int) -> str:
    """How a process ended, from its exit status (negative: the signal that killed it)."""
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        return f"killed by signal {-status} ({name})"
    return f"exited with status {status}"
