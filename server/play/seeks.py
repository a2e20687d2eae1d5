"""The open seeks: casual ones waiting for a partner, and those kept for tournament games.

The lobby opens, pairs and cancels seeks here; the tournament runner takes an entrant's kept
seek when its game is due, and withdraws the ones no tournament wants any more. One table for
both, so neither the lobby nor the tournament has to reach into the other.

A seek may name its opponent (a challenge): it pairs only with a seek by that player whose own
seek names nobody or names the challenger. Casual seeks are indexed by the partners they accept
(`Seek.offers`: under its pairing key, by anyone or by its named opponent) and each looks up
where a partner of its own would be filed (`Seek.looks_for`), and every seek is indexed by its
session: pairing looks only at the seeks it could pair with, and skips at most the seeker's own
(a connection holds at most `Limits.seeks_per_connection`), so it costs the same with 30,000
seeks open as with none, challenges or not.

Shares: a connection holds at most `Limits.seeks_per_connection` seeks, an address at most
`Limits.seeks_per_address` casual ones across its connections, and the server `Limits.seeks`.
No few addresses can fill the table for everyone else: when it is full, a seek from an address
holding at least two fewer casual seeks than the address holding the most takes the place of
that address's newest seek, whose client is told (`seek_cancelled`). So the table, once full,
stays shared among the addresses that want it, each down to within one seek of the others, and
a newcomer is refused only when no address holds more than its own. Kept seeks (a tournament's
registered entrants) count against their connection and the table, never against an address,
and are never withdrawn for a newcomer: a tournament's built-in agents all connect from the
server's own address.

The lobby listing (`server.play.listing`) reads the casual seeks oldest first, and says of each why
it has not paired with the oldest other seek of its game (`unpaired`).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from arbiter import protocol
from arbiter.games import Game
from arbiter.protocol import ErrorCode, TimeControl
from arbiter.server.common.tally import Tally
from arbiter.server.connection.limits import Limits
from arbiter.server.play import messages
from arbiter.server.play.defaults import Illegal

if TYPE_CHECKING:
    from arbiter.server.connection.session import Session


Holder: TypeAlias = "str | Session"
"""Whose share of the table a seek counts against: its connection's IP address, or the
connection itself when it has none (a memory stream's address is "")."""
PairingKey: TypeAlias = tuple[str, str, TimeControl]
"""What two seeks must share to be paired: the game, its options (as sorted JSON) and the time
control."""


class Filed(enum.Enum):
    """Under which name a casual seek is filed in the index of offers."""

    ANYONE = "anyone"
    """A seek for anyone, with no name: every seek for anyone looks there."""
    BY = "by"
    """A seek for anyone, under its seeker's name: a challenge of that seeker looks there."""
    FOR = "for"
    """A challenge, under its opponent's name: a seek for anyone by that opponent looks there."""
    PAIR = "pair"
    """A challenge, under seeker and opponent joined by a line feed (which no name holds): the
    opponent's challenge back looks there."""


IndexKey: TypeAlias = tuple[PairingKey, Filed, str | None]
"""Where a casual seek is filed: its pairing key, how, and the name it is filed under (None for
`Filed.ANYONE`)."""


@dataclass(eq=False, slots=True)
class Seek:
    id: int
    session: Session
    game: Game[Any, Any]
    options: dict[str, Any]
    time_control: TimeControl
    hints: bool
    illegal: Illegal
    player: str | None = None
    """The registered player who seeks, if the session said hello with a token."""
    opponent: str | None = None
    """The only player this seek pairs with (a challenge), or None for anyone."""
    kept: bool = False
    """Kept for a tournament game: never paired casually."""
    pairing_key: PairingKey = field(init=False)
    """What two seeks must share to be paired. Not `illegal`: that rule is each seat's own
    (it only ever costs the seat that chose it), so a person playing under `retry` can meet
    a bot playing under `forfeit`."""

    def __post_init__(self) -> None:
        options = json.dumps(self.options, sort_keys=True)
        self.pairing_key = (self.game.name, options, self.time_control)

    @property
    def name(self) -> str:
        return self.session.name

    def offers(self) -> tuple[IndexKey, IndexKey]:
        """Where this seek is filed: under each key a partner of its looks up."""
        key = self.pairing_key
        if self.opponent is None:
            return (key, Filed.ANYONE, None), (key, Filed.BY, self.name)
        return (key, Filed.FOR, self.opponent), (key, Filed.PAIR, f"{self.name}\n{self.opponent}")

    def looks_for(self) -> tuple[IndexKey, IndexKey]:
        """Where its partners are filed: a seek for anyone (or for this seeker), or by the named
        opponent (for anyone, or for this seeker)."""
        key = self.pairing_key
        if self.opponent is None:
            return (key, Filed.ANYONE, None), (key, Filed.FOR, self.name)
        return (key, Filed.BY, self.opponent), (key, Filed.PAIR, f"{self.opponent}\n{self.name}")


class Seeks:
    """Every open seek by id, oldest first; casual ones also by game and by the partners they
    accept, all by session."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._open: dict[int, Seek] = {}
        self._casual: dict[int, Seek] = {}
        self._games: dict[str, dict[int, Seek]] = {}
        self._offers: dict[IndexKey, dict[int, Seek]] = {}
        self._of: dict[Session, dict[int, Seek]] = {}
        self._held: dict[Holder, dict[int, Seek]] = {}
        """Casual seeks by the address of their connection (`holder_of`), oldest first."""
        self._holders: Tally[Holder] = Tally()
        """How many casual seeks each address holds, and which holds the most."""
        self._last_id = 0
        self.on_change: Callable[[], None] = _nothing
        """Called whenever a seek opens or closes (the lobby's followers hear of it)."""

    def next_id(self) -> int:
        self._last_id += 1
        return self._last_id

    def make_room(self, seek: Seek) -> str | None:
        """Why `seek` may not be added (its connection or its address holds its most, or the
        table is full and no address holds more than its own), or None: there is room, made if
        the table was full by withdrawing the newest seek of the address holding the most."""
        session = seek.session
        mine = len(self._of.get(session, ()))
        if mine >= self.limits.seeks_per_connection:
            return (
                f"you have {mine} open seeks, the most one connection may hold: cancel one or"
                " wait for one to be paired"
            )
        holder = holder_of(session)
        held = self._holders[holder]
        if not seek.kept and held >= self.limits.seeks_per_address:
            return (
                f"your address {session.address} holds {held} open seeks across its connections,"
                f" the most one address may hold ({self.limits.seeks_per_address}): cancel one or"
                " wait for one to be paired"
            )
        if len(self._open) < self.limits.seeks:
            return None
        if self._holders.most > held + 1:
            self._withdraw_newest(self._holders.top())
            return None
        return (
            f"the server holds {len(self._open)} open seeks, its most, and no address holds"
            " more of them than yours: try again later"
        )

    def _withdraw_newest(self, holder: Holder | None) -> None:
        """Withdraw the newest casual seek of `holder`; its client learns why (a
        `too_many_seeks` error, which a bot that did not cancel anything can show its person),
        then which (`seek_cancelled`)."""
        assert holder is not None
        newest = next(reversed(self._held[holder].values()))
        self._remove(newest)
        newest.session.send(
            protocol.Error(
                code=ErrorCode.TOO_MANY_SEEKS,
                message=f"seek {newest.id} withdrawn: the server's table of open seeks is full,"
                " and your address holds the most of them",
                ref="seek",
            )
        )
        newest.session.send(messages.seek_cancelled(newest.id))

    def add(self, seek: Seek) -> None:
        self._open[seek.id] = seek
        self._of.setdefault(seek.session, {})[seek.id] = seek
        if not seek.kept:
            self._casual[seek.id] = seek
            self._games.setdefault(seek.game.name, {})[seek.id] = seek
            self._held.setdefault(holder_of(seek.session), {})[seek.id] = seek
            self._holders.add(holder_of(seek.session))
            for key in seek.offers():
                self._offers.setdefault(key, {})[seek.id] = seek
        self.on_change()

    def _remove(self, seek: Seek) -> None:
        del self._open[seek.id]
        _discard(self._of, seek.session, seek)
        if self._casual.pop(seek.id, None) is not None:
            _discard(self._games, seek.game.name, seek)
            _discard(self._held, holder_of(seek.session), seek)
            self._holders.remove(holder_of(seek.session))
            for key in seek.offers():
                _discard(self._offers, key, seek)
        self.on_change()

    def pop_partner(self, mine: Seek) -> Seek | None:
        """Take out the oldest casual seek `mine` can be paired with, if any."""
        found = [self._first_other(mine, key) for key in mine.looks_for()]
        partner = min((seek for seek in found if seek is not None), key=_age, default=None)
        if partner is not None:
            self._remove(partner)
        return partner

    def _first_other(self, mine: Seek, key: IndexKey) -> Seek | None:
        for seek in self._offers.get(key, {}).values():
            if seek.session is not mine.session:
                return seek
        return None

    def casual(self) -> Iterator[Seek]:
        """The casual seeks, oldest first."""
        return iter(self._casual.values())

    @property
    def casual_count(self) -> int:
        return len(self._casual)

    def rival(self, mine: Seek) -> Seek | None:
        """The oldest other casual seek of `mine`'s game (by another connection): the one the
        listing compares it with. The scan skips only the seeker's own seeks."""
        for seek in self._games.get(mine.game.name, {}).values():
            if seek.session is not mine.session:
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
            seek.session.send(messages.seek_cancelled(seek.id))

    def _kept(self, player: str, game: str) -> Iterator[Seek]:
        for seek in self._open.values():
            if seek.kept and seek.player == player and seek.game.name == game:
                yield seek


K = TypeVar("K")


def holder_of(session: Session) -> Holder:
    return session.address or session


def _age(seek: Seek) -> int:
    return seek.id


def _nothing() -> None:
    """What a change of the table sets off until the lobby says otherwise."""


def _discard(index: dict[K, dict[int, Seek]], key: K, seek: Seek) -> None:
    """Take `seek` out of its bucket of `index`, and the bucket out once empty."""
    bucket = index.get(key)
    if bucket is not None and bucket.pop(seek.id, None) is not None and not bucket:
        del index[key]
