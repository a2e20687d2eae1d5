"""Who sits where: the one registry of seats, of the seats whose connection dropped, and of what
each connection has finished playing and been shown.

A match's players are its `Match.sessions` list, and this registry is what writes it: seating a
new match, and giving a dropped seat to the connection that resumes it. Everything else asks
here: which match and seat a connection's `move` or `resign` is for, whether a late move is for
a match it finished (`game_over`, not `not_your_match`), whether a finished match it asks to
watch was shown to it already. A connection's entries go when it closes; its seats then wait,
under its session id and the name it played under, for a `hello` that resumes them, until their
matches end. The grace period a dropped seat's clock runs for is the match's (`Match.away`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arbiter.games import Seat
from arbiter.server.connection.peer import Peer

if TYPE_CHECKING:
    from arbiter.server.play.match import Match

MAX_SHOWN = 1024
"""Finished matches a connection is remembered to have been shown."""

SeatOf = tuple["Match", Seat]
"""A seat: its match, and its index there."""


@dataclass(eq=False, slots=True)
class _Sitter:
    """What the registry knows of one open connection."""

    seats: dict[int, SeatOf] = field(default_factory=dict)
    """Matches it plays in, by id."""
    finished: set[int] = field(default_factory=set)
    """Matches it played that are over: a late move to one is answered `game_over`."""
    shown: dict[int, None] = field(default_factory=dict)
    """Finished matches it was shown (`watch`), oldest first, at most `MAX_SHOWN`: a finished
    match does not change, so showing it again is refused."""


@dataclass(frozen=True, slots=True)
class _Away:
    """The seats of a dropped connection, resumable by a `hello` under `name`."""

    name: str
    seats: list[SeatOf]


class Seating:
    """Seats by connection and by match, dropped connections' seats by session id."""

    def __init__(self) -> None:
        self._sitters: dict[Peer, _Sitter] = {}
        self._away: dict[str, _Away] = {}
        self._away_in: dict[int, set[str]] = {}
        """The session ids with a seat away in each match, by match id."""

    def _sitter(self, peer: Peer) -> _Sitter | None:
        """`peer`'s entry, made on first use; None for a closed connection, which is
        forgotten (`leave`) and must not be remembered again."""
        sitter = self._sitters.get(peer)
        if sitter is None and not peer.closed:
            sitter = self._sitters[peer] = _Sitter()
        return sitter

    # -- seats -------------------------------------------------------------------------------

    def seat(self, match: Match, players: Sequence[Peer]) -> None:
        """Seat `players` in a new match, in seat order (as the match lists them)."""
        for seat, peer in enumerate(players):
            sitter = self._sitter(peer)
            if sitter is not None:
                sitter.seats[match.id] = (match, seat)

    def seat_of(self, peer: Peer, match_id: int) -> SeatOf | None:
        """The seat `peer` holds in match `match_id`, if it plays there."""
        sitter = self._sitters.get(peer)
        return None if sitter is None else sitter.seats.get(match_id)

    def ended(self, match: Match) -> None:
        """`match` is over: its players' seats become matches they finished, and a dropped
        player's seat there is no longer resumable (its other seats still are)."""
        for peer in match.sessions:
            sitter = self._sitters.get(peer)
            if sitter is not None:
                sitter.seats.pop(match.id, None)
                sitter.finished.add(match.id)
        for token in self._away_in.pop(match.id, ()):
            away = self._away.get(token)
            if away is not None:
                away.seats[:] = [(other, seat) for other, seat in away.seats if other is not match]
                if not away.seats:
                    del self._away[token]

    def plays(self, peer: Peer) -> bool:
        """Whether `peer` holds a seat in a match in play."""
        sitter = self._sitters.get(peer)
        return sitter is not None and bool(sitter.seats)

    def finished(self, peer: Peer, match_id: int) -> None:
        """`peer` was told match `match_id` is over without having played it (a tournament
        game it was absent from)."""
        sitter = self._sitter(peer)
        if sitter is not None:
            sitter.finished.add(match_id)

    def has_finished(self, peer: Peer, match_id: int) -> bool:
        sitter = self._sitters.get(peer)
        return sitter is not None and match_id in sitter.finished

    # -- spectators of finished matches --------------------------------------------------

    def was_shown(self, peer: Peer, match_id: int) -> bool:
        sitter = self._sitters.get(peer)
        return sitter is not None and match_id in sitter.shown

    def shown(self, peer: Peer, match_id: int) -> None:
        sitter = self._sitter(peer)
        if sitter is None:
            return
        sitter.shown[match_id] = None
        if len(sitter.shown) > MAX_SHOWN:  # forget the oldest: showing it again is bounded too
            del sitter.shown[next(iter(sitter.shown))]

    # -- leaving and coming back ---------------------------------------------------------

    def leave(self, peer: Peer, token: str) -> list[SeatOf]:
        """`peer` closed (or was replaced): forget it, and keep its seats for a `hello` that
        resumes session `token` under its name. Its seats, for the matches to hear of it."""
        sitter = self._sitters.pop(peer, None)
        if sitter is None or not sitter.seats:
            return []
        seats = list(sitter.seats.values())
        self._away[token] = _Away(peer.name, list(seats))
        for match, _ in seats:
            self._away_in.setdefault(match.id, set()).add(token)
        return seats

    def resume(self, peer: Peer, token: str) -> list[SeatOf]:
        """Give `peer` the seats session `token` left, in matches still in play, if it plays
        under the name they were left under (a registered name's token was checked before);
        none otherwise."""
        away = self._away.get(token)
        if away is None or away.name != peer.name:
            return []
        del self._away[token]
        seats = [(match, seat) for match, seat in away.seats if match.outcome is None]
        sitter = self._sitter(peer)
        if sitter is None:
            return []
        for match, seat in seats:
            sitter.seats[match.id] = (match, seat)
            match.sessions[seat] = peer
            self._away_in.get(match.id, set()).discard(token)
        return seats
