"""What pages read from the store where the protocol has no request for it: a player's finished
games (the player page). Asked of the server's `Storage`, like everything else it keeps: the web
front holds no SQL and knows no engine. Whatever the store fails at arrives as a
`server.storage.errors.StoreError`, which the routes answer with a sentence.

`Records` reuses a player's games for a few seconds; a crowd asking for the same thing at once
shares one read of it rather than queueing a read each (a player's page reads up to `SHOWN_GAMES`
whole records).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from arbiter.server.common.recent import Recent
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.records import FullRecord

log = logging.getLogger(__name__)

LISTED = ("game", "seats", "players", "result", "winner", "reason", "termination", "scores")
"""The fields of a `FullRecord` the pages show as they are."""
SHOWN_GAMES = 200
"""The player's latest finished games listed; older ones are in `arbiter export`."""
PLAYER_SECONDS = 5.0
"""How long a player page's games are reused before they are read again."""
KEPT_PLAYERS = 256


def listed(record: FullRecord) -> dict[str, Any]:
    """A finished match as the player page lists it: its number, its `LISTED` fields, its length
    and its tournament."""
    tournament = record.tournament and record.tournament["name"]
    fields = {field: getattr(record, field) for field in LISTED}
    return {"match": record.id, **fields, "moves": len(record.moves), "tournament": tournament}


@dataclass
class Reading:
    """One read of the store under way, and what it found, for those who wait for it."""

    done: trio.Event = field(default_factory=trio.Event)
    found: Any = None
    failed: StoreError | None = None


class Records:
    """The reads of the store behind `/records/...`, kept and shared as the module says."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._players: Recent[str, tuple[float, dict[str, Any]]] = Recent(KEPT_PLAYERS)
        self._under_way: dict[tuple[str, object], Reading] = {}

    async def _read(
        self, key: tuple[str, object], read: Callable[[], Awaitable[Any]], what: str
    ) -> Any:
        """`await read()`, or the result of the same read (`key`) already under way."""
        reading = self._under_way.get(key)
        if reading is not None:
            await reading.done.wait()
            if reading.failed is not None:
                raise reading.failed
            return reading.found
        reading = self._under_way[key] = Reading()
        try:
            reading.found = await read()
            return reading.found
        except StoreError as error:
            log.error("cannot read the records for %s: %s", what, error)
            reading.failed = error
            raise
        finally:
            del self._under_way[key]
            reading.done.set()

    async def games_of(self, name: str) -> dict[str, Any]:
        """The latest `SHOWN_GAMES` finished games `name` played, newest first."""
        kept = self._players.get(name)
        if kept is not None and time.monotonic() - kept[0] < PLAYER_SECONDS:
            return kept[1]
        games = await self._read(("player", name), lambda: self._games_of(name), "a player")
        found = {"player": name, "games": games}
        self._players.put(name, (time.monotonic(), found))
        return found

    async def _games_of(self, name: str) -> list[dict[str, Any]]:
        return [listed(record) for record in await self.storage.finished_games(name, SHOWN_GAMES)]
