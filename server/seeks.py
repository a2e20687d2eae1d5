"""The open seeks: casual ones waiting for a partner, and those kept for tournament games.

The lobby opens, pairs and cancels seeks here; the tournament runner takes an entrant's kept
seek when its game is due, and withdraws the ones no tournament wants any more. One table for
both, so neither the lobby nor the tournament has to reach into the other.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arbiter import protocol
from arbiter.games import Game
from arbiter.protocol import TimeControl

if TYPE_CHECKING:
    from arbiter.server.session import Session


@dataclass(eq=False, slots=True)
class Seek:
    id: int
    session: Session
    game: Game[Any, Any]
    options: dict[str, Any]
    time_control: TimeControl
    hints: bool
    illegal: str
    player: str | None = None
    """The registered player who seeks, if the session said hello with a token."""
    kept: bool = False
    """Kept for a tournament game: never paired casually."""

    @property
    def pairing_key(self) -> tuple[str, str, TimeControl]:
        """What two seeks must share to be paired. Not `illegal`: that rule is each seat's own
        (it only ever costs the seat that chose it), so a person playing under `retry` can meet
        a bot playing under `forfeit`."""
        return (self.game.name, json.dumps(self.options, sort_keys=True), self.time_control)


class Seeks:
    """Every open seek by id, oldest first."""

    def __init__(self) -> None:
        self._open: dict[int, Seek] = {}
        self._last_id = 0

    def next_id(self) -> int:
        self._last_id += 1
        return self._last_id

    def add(self, seek: Seek) -> None:
        self._open[seek.id] = seek

    def pop_partner(self, mine: Seek) -> Seek | None:
        """Take out the oldest casual seek `mine` can be paired with, if any."""
        for seek in self._open.values():
            if (
                not seek.kept
                and seek.session is not mine.session
                and seek.pairing_key == mine.pairing_key
            ):
                del self._open[seek.id]
                return seek
        return None

    def cancel(self, session: Session, seek_id: int) -> bool:
        """Withdraw `session`'s seek `seek_id`; False if it has no such seek open."""
        seek = self._open.get(seek_id)
        if seek is None or seek.session is not session:
            return False
        del self._open[seek_id]
        return True

    def drop(self, session: Session) -> None:
        """Forget every seek of a closed session."""
        for seek in [seek for seek in self._open.values() if seek.session is session]:
            del self._open[seek.id]

    def kept_seek(self, player: str, game: str) -> Seek | None:
        """The oldest seek of `player` for `game` kept for a tournament."""
        return next(self._kept(player, game), None)

    def take_seek(self, player: str, game: str) -> Seek | None:
        """Take that seek out of the table: its tournament game begins."""
        seek = self.kept_seek(player, game)
        if seek is not None:
            del self._open[seek.id]
        return seek

    def release_seeks(self, player: str, game: str) -> None:
        """Withdraw `player`'s kept seeks for `game` (no tournament wants them any more): its
        client learns (`seek_cancelled`) that it has nothing left to play there."""
        for seek in list(self._kept(player, game)):
            del self._open[seek.id]
            seek.session.send(protocol.SeekCancelled(seek=seek.id))

    def _kept(self, player: str, game: str) -> Iterator[Seek]:
        for seek in self._open.values():
            if seek.kept and seek.player == player and seek.game.name == game:
                yield seek
