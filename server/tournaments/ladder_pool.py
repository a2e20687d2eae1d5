"""A running ladder's pool of connected bots, and `ladder_join` and `ladder_leave`: which
connected bot may enter which running ladder's pool.

A bot's games in a ladder are rated under its account, so only a registered player (or admin)
may join, in person: a guest has no name to keep a rating under, and a worker's or a hosted
seat's account plays for someone else. A section's ladder takes only that section's students. A
bot is in one ladder of a game at a time: its seeks for the game are kept for that ladder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.storage.ladders import LadderSettings
from arbiter.server.tournaments.ladder_view import NoLadder, scope_of

if TYPE_CHECKING:
    from arbiter.server.connection.session import Session
    from arbiter.server.play.seeks import Seeks
    from arbiter.server.storage.accounts import Account
    from arbiter.server.storage.interface import Storage

JOINING_ROLES = frozenset({"player", "admin"})


class BotPool:
    """The connected bots in one ladder's pool, by account name, each with the connection it
    joined on: a bot that connects again is not in the pool until it joins again."""

    def __init__(self, seeks: Seeks, game: str, joined: Callable[[], None]) -> None:
        self._seeks = seeks
        self._game = game
        self._joined = joined
        """Called when a bot joins: the ladder may pair it."""
        self.sessions: dict[str, Session] = {}

    def __contains__(self, account: object) -> bool:
        return account in self.sessions

    @property
    def names(self) -> frozenset[str]:
        """The bots in the pool still connected."""
        return frozenset(name for name, session in self.sessions.items() if not session.closed)

    def keeps(self, player: str) -> bool:
        """Whether `player`'s seeks for the game are kept for the ladder: it is in the pool,
        connected."""
        return player in self.names

    def idle(self) -> set[str]:
        """The bots waiting with a kept seek for the game: those the ladder may pair."""
        return {name for name in self.sessions if self._seeks.kept_seek(name, self._game)}

    def join(self, session: Session, account: str) -> None:
        self.sessions[account] = session
        self._joined()

    def leave(self, account: str) -> bool:
        """Take a bot out, its kept seeks withdrawn (`seek_cancelled`); False if it was not in
        the pool."""
        if self.sessions.pop(account, None) is None:
            return False
        self._seeks.release_seeks(account, self._game)
        return True

    def leave_all(self) -> None:
        """Take every bot out: the ladder stops."""
        for account in list(self.sessions):
            self.leave(account)

    def keep_only(self, kept: Callable[[str, Session], bool]) -> None:
        """Take out every bot `kept` says no to."""
        for account, session in list(self.sessions.items()):
            if not kept(account, session):
                self.leave(account)


class PooledLadder(Protocol):
    """A running ladder, as the desk asks it which seeks it keeps and who is in its pool
    (`server_ladder.ServerLadder`)."""

    @property
    def settings(self) -> LadderSettings: ...

    @property
    def bots(self) -> BotPool: ...

    def wants(self, player: str, game: str) -> bool: ...


async def answer(
    ladders: Mapping[str, PooledLadder],
    storage: Storage,
    session: Session,
    account: Account | None,
    request: protocol.LadderJoin | protocol.LadderLeave,
) -> protocol.LadderJoined:
    """Join or leave the ladder `request` names; `NoLadder` with the sentence if it cannot be."""
    scope = scope_of(request.game, request.section)
    ladder = ladders.get(scope.key)
    if ladder is None:
        running = ", ".join(sorted(ladders)) or "none"
        raise NoLadder(
            ErrorCode.UNKNOWN_TOURNAMENT,
            f"this server runs no ladder of {scope.title} (running: {running})",
        )
    if account is None or account.role not in JOINING_ROLES or session.hosted:
        raise NoLadder(
            ErrorCode.NOT_ALLOWED,
            f"{request.TYPE} needs a registered player's connection: a ladder keeps its rating"
            " under the player's name (say hello with your name and token)",
        )
    name = account.name
    if isinstance(request, protocol.LadderLeave):
        if not ladder.bots.leave(name):
            raise NoLadder(ErrorCode.NOT_ALLOWED, f"{name} is not in the ladder of {scope.title}")
        return protocol.LadderJoined(game=scope.game, joined=False, section=scope.section_label)
    for key, other in ladders.items():
        if key != scope.key and other.settings.game == scope.game and name in other.bots.names:
            raise NoLadder(
                ErrorCode.NOT_ALLOWED,
                f"{name} is in the ladder of {other.settings.scope.title} already: leave it"
                " first (ladder_leave)",
            )
    members = await storage.ladder_members(scope)
    if members is not None and name not in members:
        raise NoLadder(
            ErrorCode.NOT_ALLOWED,
            f"{name} is not a student of the section {scope.section_label}: its ladder takes"
            " only them",
        )
    ladder.bots.join(session, name)
    return protocol.LadderJoined(game=scope.game, joined=True, section=scope.section_label)
