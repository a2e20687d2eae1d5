"""A worker asked to stop (SIGTERM, what a server stopping its own workers sends) ends at once
and cleanly, idle or with a seat in play: its sandboxes end and its folders and theirs are
removed, not left behind in the temporary folder."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import trio

from arbiter.client.connection import ServerError
from tests.sandbox.helpers import need_bwrap
from tests.workers.hosting import challenge, hosting, program, wait_for_log


def test_a_worker_asked_to_stop_removes_its_folders(tmp_path: Path) -> None:
    need_bwrap()
    with hosting(tmp_path) as host:
        assert [path.name[:15] for path in host.scratch.iterdir()] == ["arbiter-worker-"]
        host.worker.send_signal(signal.SIGTERM)
        assert host.worker.wait(timeout=10) == 0
        assert list(host.scratch.iterdir()) == []


async def test_a_worker_asked_to_stop_mid_game_ends_the_sandbox_and_removes_its_folder(
    tmp_path: Path,
) -> None:
    need_bwrap()
    with hosting(tmp_path, program("sleep", 60)) as host:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seek_a_hosted_sleeper, host.port)
            await trio.to_thread.run_sync(wait_for_log, host.log, "seat_hosted")
            await until_sandboxed(host.scratch)
            host.worker.send_signal(signal.SIGTERM)
            assert await trio.to_thread.run_sync(lambda: host.worker.wait(timeout=15)) == 0
            nursery.cancel_scope.cancel()
        assert list(host.scratch.iterdir()) == []


async def seek_a_hosted_sleeper(port: int) -> None:
    """Have the worker host a seat that sleeps over its moves; the seek withdrawn once the
    worker is gone is the end expected."""
    with contextlib.suppress(ServerError):
        await challenge(port, "sleep", "move=120")


async def until_sandboxed(scratch: Path) -> None:
    """Until the seat's sandbox has its staging folder (a root caller's), or a moment for the
    sandbox to start (anyone else's, which needs none)."""
    if os.geteuid() != 0:
        await trio.sleep(1)
        return
    deadline = time.monotonic() + 20
    while not any(name.startswith("arbiter-sandbox-") for name in os.listdir(scratch)):
        assert time.monotonic() < deadline, "the seat's sandbox never started"
        await trio.sleep(0.05)
