"""Validation: each new version plays one short game against `random` through a worker before it
plays anywhere else, and is marked `ready`, or `failed` with its log.

The check is the one a student's code must pass to be worth a tournament slot: it starts in the
sandbox, builds if it is C or C++, connects, plays a whole game and ends on its own. The
version's seat and a built-in `random` seat are hosted on workers, each challenging the other,
under names of the version's own (`check-ID`, `check-ID-random`); the `random` seat is hosted
once the version's agent has signed in, so its bounded wait for a game is not spent while the
version is fetched and built. Versions are taken from the
store, oldest first, so an upload from the protocol or the web and one left validating when the
server stopped are all checked alike.
"""

from __future__ import annotations

import logging

import trio

from arbiter.protocol import TimeControl
from arbiter.server.common import logs
from arbiter.server.play.hosted_submissions import run_of
from arbiter.server.play.workers import Hosting, NoWorker, Workers
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import SubmissionRow

log = logging.getLogger(__name__)

CONTROL = TimeControl.parse("move=10")
"""The validation game's time control: the one the example programs seek by default."""
GAME_SECONDS = 300.0
"""How long a validation game may take in all, from the `host` frames: past it, failed."""
LOOK_SECONDS = 1.0
"""How often the store is asked for versions to validate."""
MAX_AT_ONCE = 4
"""The most validation games played at once: a class uploading together waits minutes, not
the sum of every game, and the workers keep slots for everything else."""
MAX_LOG = 4000
"""Characters of a failed validation's log kept: the ending, then the end of its stderr."""
NORMAL_END = "ended normally"


async def validate_forever(storage: Storage, workers: Workers) -> None:
    """Validate each version waiting for it, oldest first, until cancelled: up to `MAX_AT_ONCE`
    at a time, and no more than half the workers' slots (each game takes two), so two
    validations never each hold one seat while waiting for a slot for the other."""
    started: set[int] = set()
    async with trio.open_nursery() as nursery:
        while True:
            for row in await storage.submissions_with_status(SubmissionStatus.VALIDATING):
                if row.id in started:
                    continue
                while len(started) >= max(1, min(MAX_AT_ONCE, workers.slots // 2)):
                    with trio.move_on_after(LOOK_SECONDS):  # or a validation ends
                        await workers.wait_for_slot()
                started.add(row.id)
                nursery.start_soon(_validate_then_forget, storage, workers, row, started)
            await trio.sleep(LOOK_SECONDS)


async def _validate_then_forget(
    storage: Storage, workers: Workers, row: SubmissionRow, started: set[int]
) -> None:
    try:
        await validate(storage, workers, row)
    finally:
        started.discard(row.id)


async def validate(storage: Storage, workers: Workers, row: SubmissionRow) -> None:
    """Play `row`'s validation game and store its verdict."""
    name = f"check-{row.id}"
    rival = f"{name}-random"
    hosted = await _host(workers, name, row.game, run_of(row), rival, row.author)
    with trio.move_on_after(GAME_SECONDS) as late:
        await _online_or_ended(hosted)
        if not hosted.ended.is_set():
            random: dict[str, object] = {"kind": "agent", "agent": "random"}
            opponent = await _host(workers, rival, row.game, random, name, None)
            await hosted.ended.wait()
            await opponent.ended.wait()
    if late.cancelled_caught:
        status, verdict = SubmissionStatus.FAILED, f"no game within {GAME_SECONDS:g} s"
    elif hosted.ending == NORMAL_END:
        status, verdict = SubmissionStatus.READY, f"played a game against random: {hosted.ending}"
    else:
        status, verdict = SubmissionStatus.FAILED, hosted.ending
    await storage.set_submission_status(row.id, status, capped(verdict, hosted.log))
    logs.event(log, "submission_validated", submission=row.id, status=str(status))


async def _online_or_ended(hosting: Hosting) -> None:
    """Until the version's agent has signed in, or ended before it could (a failed build).

    Its `random` opponent is hosted only then: a hosted challenger waits a bounded time for its
    game, and the version's fetch and build must not use up that wait."""
    async with trio.open_nursery() as nursery:
        for event in (hosting.online, hosting.ended):
            nursery.start_soon(_cancel_when_set, event, nursery.cancel_scope)


async def _cancel_when_set(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


def capped(verdict: str, stderr: str) -> str:
    """The log kept: the verdict, then as much of the end of stderr as fits `MAX_LOG`."""
    room = MAX_LOG - len(verdict) - 1
    return f"{verdict}\n{stderr[-room:] if room > 0 else ''}".strip()[:MAX_LOG]


async def _host(
    workers: Workers,
    name: str,
    game: str,
    run: dict[str, object],
    opponent: str,
    author: str | None,
) -> Hosting:
    """Host `run` as `name` challenging `opponent`, waiting for a free slot as long as it takes."""
    while True:
        try:
            return await workers.host(
                name, game, CONTROL, dict(run), opponent=opponent, author=author
            )
        except NoWorker:
            await workers.wait_for_slot()
