"""SIGTERM as a request to stop cleanly, for the processes that run sandboxes (`arbiter worker`,
`python -m arbiter.client.sandbox.launch`): what a server sends to stop the processes it started
(trio's `run_process` when cancelled). Dying of the signal would skip every `finally`, leaving a
root caller's staging folder (`process.prepare`) and the worker's scratch folder behind."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import trio

T = TypeVar("T")


async def until_terminated(work: Callable[[], Awaitable[T]]) -> T | None:
    """`work`'s result, or None if the process is asked to stop with SIGTERM first: then `work`
    is cancelled, so that its sandboxes end and their folders are removed."""
    result: list[T] = []
    # the handler is in place before `work` makes anything to remove
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_when_asked() -> None:
                async for _ in signals:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(stop_when_asked)
            result.append(await work())
            nursery.cancel_scope.cancel()
    return result[0] if result else None
