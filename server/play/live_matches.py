"""The matches in play: started, reached by their players' requests, run to their end.

A match is reachable from its start (`adopt`: its players seated, `server.play.seating`) until
its task ends (`run_match`): a move or a resignation is handed to it here, and answered with an
error that says why when it cannot be (the match is over, another's, or none). Casual pairing
(`server.play.pairing`) and the tournaments (the `Arena` they run their games in) start matches
the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import trio

from arbiter import protocol
from arbiter.games import Outcome
from arbiter.protocol import ErrorCode
from arbiter.server.connection.peer import Peer
from arbiter.server.connection.session import Session
from arbiter.server.connection.stalls import StallMeter
from arbiter.server.play.match import Disconnected, Match, MatchEvent
from arbiter.server.play.seating import Seating

log = logging.getLogger(__name__)


class LiveMatches:
    """The live matches by id, and what starts, reaches and ends them."""

    def __init__(
        self,
        seating: Seating,
        nursery: trio.Nursery,
        changed: Callable[[], None],
        grace: float,
    ) -> None:
        self.by_id: dict[int, Match] = {}
        self.seating = seating
        self._nursery = nursery
        self.changed = changed
        """Something the lobby listing shows changed (a match began or ended, a tournament
        game was played)."""
        self.grace = grace
        """Seconds a disconnected seat is kept for its client to come back."""
        self.stalls = StallMeter()
        """The loop's lateness, which no match charges a player for (`serve` runs it)."""

    def start(self, match: Match) -> None:
        """Make a new match reachable and run it in the lobby's nursery."""
        self.adopt(match, match.sessions)
        self._nursery.start_soon(self.run_match, match)

    def adopt(self, match: Match, players: Sequence[Peer]) -> None:
        """Make a match reachable: its seats' moves and resignations are routed to it."""
        self.by_id[match.id] = match
        self.seating.seat(match, players)
        self.changed()

    async def run_match(self, match: Match) -> Outcome | None:
        """Play an adopted match to its end; None if a server error stopped it."""
        try:
            return await match.run()
        except Exception:
            log.exception("match %d failed", match.id)
            stopped = protocol.Error(
                code=ErrorCode.INTERNAL_ERROR,
                message=f"match {match.id} stopped on a server error",
                match=match.id,
            )
            for peer in (*match.sessions, *match.spectators):
                peer.send(stopped)
            return None
        finally:
            del self.by_id[match.id]
            self.seating.ended(match)
            self.changed()

    def playing(self, session: Session) -> bool:
        """Whether `session` plays in a match now."""
        return self.seating.plays(session)

    def finished_unplayed(self, session: Session, match_id: int) -> None:
        """`session` was told of a match that ended without it playing (a tournament game it
        was absent from): a late move to it is answered `game_over`."""
        self.seating.finished(session, match_id)

    def deliver(
        self, session: Session, match_id: int, ref: str, event: Callable[[int], MatchEvent]
    ) -> None:
        """Hand `session`'s seat in match `match_id` the event `event(seat)`, or tell it why
        there is none (`ref` names its request)."""
        seated = self.seating.seat_of(session, match_id)
        if seated is None:
            if self.seating.has_finished(session, match_id):
                session.send_error(ErrorCode.GAME_OVER, f"match {match_id} is over", ref, match_id)
            elif match_id in self.by_id:
                session.send_error(
                    ErrorCode.NOT_YOUR_MATCH, f"you do not play in match {match_id}", ref, match_id
                )
            else:
                session.send_error(
                    ErrorCode.UNKNOWN_MATCH, f"no match {match_id} in play", ref, match_id
                )
            return
        match, seat = seated
        if match.outcome is not None:
            session.send_error(ErrorCode.GAME_OVER, f"match {match_id} is over", ref, match_id)
            return
        match.deliver(event(seat))

    def leave(self, session: Session) -> None:
        """`session` closed: its seats wait for it to come back, it watches nothing."""
        for match, seat in self.seating.leave(session, session.token):
            match.deliver(Disconnected(seat))
        for match in self.by_id.values():
            match.spectators.discard(session)
