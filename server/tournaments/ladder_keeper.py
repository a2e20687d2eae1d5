"""The ladders a server runs: every ladder the store says is running, started; every one it
says is stopped (or whose terms changed), stopped once its games in play are over.

The store is the one place a ladder is started or stopped (`storage.ladders`): `arbiter-server
admin ladder start` and `stop` write there beside the running server, and the `--ladder` flags
are stored as running when the server starts. So the keeper only follows the store, looking
again every few seconds, and a restarted server resumes every ladder that was running.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import trio

from arbiter.server.play.workers import Workers
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.ladders import LadderSettings
from arbiter.server.tournaments.server_ladder import ServerLadder
from arbiter.server.tournaments.tournament import Desk

log = logging.getLogger(__name__)

LOOK_AGAIN_SECONDS = 2.0
"""How often the store is read for ladders started or stopped: an admin's command takes effect
within this."""


async def keep_ladders(desk: Desk, workers: Workers, flags: Sequence[LadderSettings]) -> None:
    """Store the `--ladder` flags' ladders as running, then follow the store until cancelled."""
    for settings in flags:
        await desk.storage.keep_ladder_running(settings)
    running: dict[str, ServerLadder] = {}
    async with trio.open_nursery() as nursery:
        while True:
            try:
                wanted = {one.scope.key: one for one in await desk.storage.running_ladders()}
            except StoreError as error:
                log.error("the running ladders cannot be read now: %s", error)
            else:
                _follow(desk, workers, nursery, running, wanted)
            await trio.sleep(LOOK_AGAIN_SECONDS)


def _follow(
    desk: Desk,
    workers: Workers,
    nursery: trio.Nursery,
    running: dict[str, ServerLadder],
    wanted: dict[str, LadderSettings],
) -> None:
    """Forget the ladders that have stopped, stop those no longer wanted (or wanted on other
    terms), start those wanted and not running: a ladder restarted on new terms starts once
    its old self has stopped."""
    for key, ladder in list(running.items()):
        if ladder.stopped.is_set():
            del running[key]
            desk.ladders.pop(key, None)
        elif wanted.get(key) != ladder.settings:
            ladder.stop()
    for key, settings in wanted.items():
        if key not in running:
            ladder = running[key] = ServerLadder(desk, workers, settings)
            desk.ladders[key] = ladder
            nursery.start_soon(ladder.run)
