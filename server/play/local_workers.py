"""The workers a server starts itself (`arbiter-server --workers N`), so one machine needs nothing
more to host agents.

Each is an ordinary `arbiter worker` process, started through the command the server's launcher
gives (`WorkerProgram`: the server imports no client), signed in under a `worker` account of its
own (`local-worker-1`...) whose token is replaced at every start and handed over in its
environment. A worker that dies is started again; the seats it hosted were lost with it
(`server.play.workers`).
"""

from __future__ import annotations

import logging
import os
import subprocess
from dataclasses import dataclass
from typing import Protocol

import trio

from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.errors import NotStored
from arbiter.server.storage.interface import Storage

log = logging.getLogger(__name__)

TOKEN_VARIABLE = "ARBITER_TOKEN"
RESTART_SECONDS = 1.0
"""The pause before a dead worker is started again: a worker that cannot start at all does not
spin."""


class WorkerProgram(Protocol):
    """What starts one of the server's own workers."""

    def worker_command(self, server: tuple[str, int], name: str, slots: int) -> list[str]:
        """The command that runs a worker signed in as `name` on `server`, hosting up to `slots`
        seats at once (its token in `ARBITER_TOKEN`)."""
        ...


@dataclass(frozen=True, slots=True)
class LocalWorkers:
    """How many workers a server starts (`count`), the seats each hosts at once, and what
    starts one (None: the `arbiter worker` beside the server, its launcher's choice)."""

    count: int
    slots: int = 1
    program: WorkerProgram | None = None


async def keep_workers(
    workers: LocalWorkers, program: WorkerProgram, storage: Storage, server: tuple[str, int]
) -> None:
    """Run `workers` of `server`, started by `program`, until cancelled, each started again
    when it ends."""
    async with trio.open_nursery() as nursery:
        for number in range(1, workers.count + 1):
            name = f"local-worker-{number}"
            nursery.start_soon(_keep_worker, name, workers.slots, program, storage, server)


async def _keep_worker(
    name: str, slots: int, program: WorkerProgram, storage: Storage, server: tuple[str, int]
) -> None:
    while True:
        try:
            token = await storage.issue_local_token(name, "worker")
            await trio.run_process(
                program.worker_command(server, name, slots),
                env={**os.environ, TOKEN_VARIABLE: token},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, AccountError, NotStored):
            log.exception("cannot run the worker %r", name)
        await trio.sleep(RESTART_SECONDS)
