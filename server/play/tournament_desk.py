"""What the lobby asks of the tournaments: the small interface they plug in by, from above.

Play does not know how tournaments are scheduled or scored: it hands a tournament request to the
desk, asks whether a registered player's seek is to be kept for a tournament game rather than
paired casually, and lists the desk's tournaments with the seeks and matches. The tournaments
(`server.tournaments.tournament.Desk`) implement it, and `server.app` plugs them into the lobby;
a lobby nothing was plugged into runs no tournaments (`NoTournaments`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from arbiter import protocol
from arbiter.protocol import ErrorCode

if TYPE_CHECKING:
    from arbiter.server.connection.session import Session
    from arbiter.server.storage.accounts import Account


class Listed(Protocol):
    """A tournament as the lobby listing shows it."""

    def listed(self) -> dict[str, Any]:
        """Its `lobby_listing.tournaments` entry, built only when a listing is."""
        ...


class TournamentDesk(Protocol):
    """The tournaments, as the lobby sees them."""

    async def ready(self) -> None:
        """Return once the stored tournaments are known (only waits at start-up): a seek is
        kept for a tournament or not by them."""
        ...

    def wants(self, player: str, game: str) -> bool:
        """True when a seek of registered `player` for `game` is kept for a tournament."""
        ...

    def seek_arrived(self) -> None:
        """A kept seek was opened: a tournament game waiting for its player may begin."""
        ...

    async def handle(
        self, session: Session, account: Account | None, message: protocol.Message
    ) -> None:
        """Answer `tournament_create`, `tournament_start`, `tournament_status`, `ladder`,
        `ladder_join` or `ladder_leave`."""
        ...

    def listed(self) -> Sequence[Listed]:
        """The tournaments in the order the lobby listing shows them."""
        ...


class NoTournaments:
    """The desk of a lobby that runs no tournaments: it keeps no seek, lists nothing, and
    answers a tournament request with an error saying so."""

    async def ready(self) -> None:
        return

    def wants(self, player: str, game: str) -> bool:
        return False

    def seek_arrived(self) -> None:
        return

    async def handle(
        self, session: Session, account: Account | None, message: protocol.Message
    ) -> None:
        session.send_error(
            ErrorCode.NOT_ALLOWED, "this server runs no tournaments", ref=message.TYPE
        )

    def listed(self) -> Sequence[Listed]:
        return ()
