"""The open seeks: casual ones waiting for a partner, and those kept for tournament games.

The lobby opens, pairs and cancels seeks here; the tournament runner takes an entrant's kept
seek when its game is due, and withdraws the ones no tournament wants any more. One table for
both, so neither the lobby nor the tournament has to reach into the other.

Casual seeks are also indexed by what pairs them (`Seek.pairing_key`), and every seek by its
session: pairing looks only at the seeks it could pair with, and skips at most the seeker's own
(a connection holds at most `Limits.seeks_per_connection`), so it costs the same with 30,000
seeks open as with none.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from arbiter import protocol
from arbiter.games import Game
from arbiter.protocol import TimeControl
from arbiter.server.limits import Limits

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
    pairing_key: tuple[str, str, TimeControl] = field(init=False)
    """What two seeks must share to be paired. Not `illegal`: that rule is each seat's own
    (it only ever costs the seat that chose it), so a person playing under `retry` can meet
    a bot playing under `forfeit`."""

    def __post_init__(self) -> None:
        options = json.dumps(self.options, sort_keys=True)
        self.pairing_key = (self.game.name, options, self.time_control)


class Seeks:
    """Every open seek by id, oldest first; casual ones also by pairing key, all by session."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._open: dict[int, Seek] = {}
        self._casual: dict[tuple[str, str, TimeControl], dict[int, Seek]] = {}
        self._of: dict[Session, dict[int, Seek]] = {}
        self._last_id = 0

    def next_id(self) -> int:
        self._last_id += 1
        return self._last_id

    def refusal(self, session: Session) -> str | None:
        """Why `session` may not open one more seek (too many open), or None."""
        mine = len(self._of.get(session, ()))
        if mine >= self.limits.seeks_per_connection:
            return (
                f"you have {mine} open seeks, the most one connection may hold: cancel one or"
                " wait for one to be paired"
            )
        if len(self._open) >= self.limits.seeks:
            return f"the server holds {len(self._open)} open seeks, its most: try again later"
        return None

    def add(self, seek: Seek) -> None:
        self._open[seek.id] = seek
        self._of.setdefault(seek.session, {})[seek.id] = seek
        if not seek.kept:
            self._casual.setdefault(seek.pairing_key, {})[seek.id] = seek

    def _remove(self, seek: Seek) -> None:
        del self._open[seek.id]
        _discard(self._of, seek.session, seek)
        _discard(self._casual, seek.pairing_key, seek)

    def pop_partner(self, mine: Seek) -> Seek | None:
        """Take out the oldest casual seek `mine` can be paired with, if any."""
        for seek in self._casual.get(mine.pairing_key, {}).values():
            if seek.session is not mine.session:
                self._remove(seek)
                return seek
        return None

    def cancel(self, session: Session, seek_id: int) -> bool:
        """Withdraw `session`'s seek `seek_id`; False if it has no such seek open."""
        seek = self._open.get(seek_id)
        if seek is None or seek.session is not session:
            return False
        self._remove(seek)
        return True

    def drop(self, session: Session) -> None:
        """Forget every seek of a closed session."""
        for seek in list(self._of.get(session, {}).values()):
            self._remove(seek)

    def kept_seek(self, player: str, game: str) -> Seek | None:
        """The oldest seek of `player` for `game` kept for a tournament."""
        return next(self._kept(player, game), None)

    def take_seek(self, player: str, game: str) -> Seek | None:
        """Take that seek out of the table: its tournament game begins."""
        seek = self.kept_seek(player, game)
        if seek is not None:
            self._remove(seek)
        return seek

    def release_seeks(self, player: str, game: str) -> None:
        """Withdraw `player`'s kept seeks for `game` (no tournament wants them any more): its
        client learns (`seek_cancelled`) that it has nothing left to play there."""
        for seek in list(self._kept(player, game)):
            self._remove(seek)
            seek.session.send(protocol.SeekCancelled(seek=seek.id))

    def _kept(self, player: str, game: str) -> Iterator[Seek]:
        for seek in self._open.values():
            if seek.kept and seek.player == player and seek.game.name == game:
                yield seek


K = TypeVar("K")


def _discard(index: dict[K, dict[int, Seek]], key: K, seek: Seek) -> None:
    """Take `seek` out of its bucket of `index`, and the bucket out once empty."""
    bucket = index.get(key)
    if bucket is not None and bucket.pop(seek.id, None) is not None and not bucket:
        del index[key]
