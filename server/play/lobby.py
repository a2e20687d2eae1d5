"""The lobby: each request of a session goes to the part of play that answers it.

Sign-in (`server.play.sign_in`), seeks and pairing (`server.play.pairing`), the live matches
(`server.play.live_matches`), spectators (`server.play.spectating`), who sits where
(`server.play.seating`), and the tournaments plugged in from above
(`server.play.tournament_desk`), the uploaded agents (`server.play.submissions`) and the
workers that host agents (`server.play.workers`) each do one job; the lobby builds them, routes
to them, and tells them when a session closed (a worker's closing ends the seats it hosted).
Anyone may ask for the lobby listing (`server.play.listing`) once or follow it
(`server.play.lobby_feed`): every change of the seeks, the matches or the tournaments marks it
dirty, a move included.
"""

from __future__ import annotations

import logging

import trio

from arbiter import protocol
from arbiter.server.connection.admission import DEFAULT, Admission
from arbiter.server.connection.limits import Limits
from arbiter.server.connection.outbox import OutputBudget
from arbiter.server.connection.session import Session
from arbiter.server.connection.stalls import StallMeter
from arbiter.server.play import match_logs, messages
from arbiter.server.play.listing import listing
from arbiter.server.play.live_matches import LiveMatches
from arbiter.server.play.lobby_feed import LobbyFeed
from arbiter.server.play.match import CpuSpent, HostLost, MoveArrived, Resigned
from arbiter.server.play.pairing import Pairing
from arbiter.server.play.seating import Seating
from arbiter.server.play.seeks import Seeks
from arbiter.server.play.sign_in import SignIn
from arbiter.server.play.spectating import Spectating
from arbiter.server.play.submissions import Submissions
from arbiter.server.play.tournament_desk import NoTournaments, TournamentDesk
from arbiter.server.play.workers import Hosting, Workers
from arbiter.server.storage.errors import NotStored
from arbiter.server.storage.interface import Storage

log = logging.getLogger(__name__)

CPU_FIGURE = "says what its moves cost in CPU seconds"
"""Who may send a move with a `cpu` figure: the worker hosting the seat, and no one else."""


class Lobby:
    """Where every session's requests go."""

    def __init__(
        self,
        storage: Storage,
        nursery: trio.Nursery,
        grace: float = 10.0,
        admission: Admission = DEFAULT,
        limits: Limits | None = None,
    ) -> None:
        self.storage = storage
        self.limits = limits or Limits()
        self.output = OutputBudget(self.limits.output_budget)
        """The bytes queued for all sessions, which share it."""
        self.seeks = Seeks(self.limits)
        self.feed = LobbyFeed(lambda: self.listing(following=True))
        """Who follows the lobby listing; told of every change."""
        self.seeks.on_change = self.feed.changed
        self.seating = Seating()
        """Who sits where, who is away, what each connection finished and was shown."""
        self.live = LiveMatches(self.seating, nursery, self.feed.changed, grace)
        self.matches = self.live.by_id
        self.sign_in = SignIn(storage, self.seating, admission, self.forget)
        self.spectating = Spectating(
            storage, self.matches, self.seating, self.limits.snapshot_cache_bytes
        )
        self.snapshots = self.spectating.snapshots
        self.tournaments: TournamentDesk = NoTournaments()
        """The tournaments plugged in (`plug_in`), asked of seeks kept for their games."""
        self.workers = Workers(storage)
        """The workers connected, and the seats they host."""
        self.pairing = Pairing(
            storage, self.seeks, self.live, lambda: self.tournaments, self.workers
        )
        self.submissions = Submissions(storage, self.limits)
        self._games = protocol.Encoded(messages.games())
        """The answer to `list_games`, which never changes: encoded once."""
        nursery.start_soon(self.feed.run)

    @property
    def stalls(self) -> StallMeter:
        """The loop's lateness, which no match charges a player for (`serve` runs it)."""
        return self.live.stalls

    def plug_in(self, tournaments: TournamentDesk) -> None:
        """Run `tournaments` in this lobby (`server.app` plugs in `server.tournaments`)."""
        self.tournaments = tournaments

    async def handle(self, session: Session, message: protocol.Message, arrived: float) -> None:
        """Answer one request; `arrived` is when its frame was complete (a move's stop-clock)."""
        match message:  # the per-move requests first: cases are tried in order
            case protocol.Move(match=match_id, move=text, cpu=cpu):
                if cpu is None or _hosted(session, "move", match_id, CPU_FIGURE):
                    self.live.deliver(
                        session,
                        match_id,
                        "move",
                        lambda seat: MoveArrived(seat, text, arrived, cpu),
                    )
                    self.feed.changed()
            case protocol.Pong(nonce=nonce):
                session.pong_received(nonce, arrived)
            case protocol.Hello():
                await self.sign_in.hello(session, message)
                account = self.sign_in.accounts.get(session)
                session.hosted = self.workers.hosts(session.name, account)
            case protocol.Ping(nonce=nonce):
                session.send(protocol.Pong(nonce=nonce))
            case protocol.ListGames():
                session.send(self._games)
            case protocol.Seek():
                await self.pairing.seek(session, message, self.sign_in.accounts.get(session))
            case protocol.CancelSeek(seek=seek_id):
                self.pairing.cancel(session, seek_id)
            case protocol.Resign(match=match_id):
                self.live.deliver(session, match_id, "resign", Resigned)
            case protocol.Watch(match=match_id, since=since):
                await self.spectating.watch(session, match_id, since)
            case protocol.Lobby(follow=follow):
                self._lobby(session, follow)
            case protocol.Worker() | protocol.HostEnded() | protocol.OutOfCpu() | protocol.Logs():
                await self._hosting(session, message, arrived)
            case _:
                await self._desks(session, message)

    async def _desks(self, session: Session, message: protocol.Message) -> None:
        """Answer the requests of the tournament and submission desks."""
        match message:
            case (
                protocol.TournamentCreate()
                | protocol.TournamentStart()
                | protocol.TournamentStatus()
                | protocol.Ladder()
                | protocol.LadderJoin()
                | protocol.LadderLeave()
            ):
                account = self.sign_in.accounts.get(session)
                await self.tournaments.handle(session, account, message)
                if isinstance(message, protocol.TournamentCreate | protocol.TournamentStart):
                    self.feed.changed()
            case (
                protocol.SubmitPart()
                | protocol.SubmitBegin()
                | protocol.SubmitEnd()
                | protocol.Submissions()
                | protocol.Retire()
                | protocol.SubmissionFetch()
            ):
                account = self.sign_in.accounts.get(session)
                await self.submissions.handle(session, account, message)

    async def _hosting(self, session: Session, message: protocol.Message, arrived: float) -> None:
        """Answer a worker's requests, and an author's for the logs of their hosted agents."""
        match message:
            case protocol.Worker(slots=slots):
                self.workers.announce(session, self.sign_in.accounts.get(session), slots)
            case protocol.Logs():
                account = self.sign_in.accounts.get(session)
                await match_logs.answer(self.storage, session, account, message)
            case protocol.HostEnded(host=host_id, ending=ending, log=log_text):
                hosting = self.workers.ended(session, host_id, ending, log_text or "")
                if hosting is not None:
                    self._hosts_lost([hosting])
                    if log_text:
                        await self._keep_log(hosting, log_text)
            case protocol.OutOfCpu(match=match_id, cpu=spent):
                if _hosted(session, "out_of_cpu", match_id, "says its move is out of CPU time"):
                    self.live.deliver(
                        session, match_id, "out_of_cpu", lambda seat: CpuSpent(seat, spent, arrived)
                    )

    async def _keep_log(self, hosting: Hosting, log_text: str) -> None:
        """Keep what a hosted agent printed with the matches it played, for its author."""
        try:
            await self.storage.keep_seat_log(hosting.name, hosting.began, hosting.author, log_text)
        except NotStored as error:
            log.error("the log of %s could not be stored: %s", hosting.name, error)

    def _lobby(self, session: Session, follow: bool) -> None:
        """Answer `lobby` with a listing; with `follow`, keep sending fresh ones, else stop."""
        if follow:
            self.feed.follow(session)
        else:
            self.feed.unfollow(session)
        session.send(self.listing(following=follow))

    def listing(self, following: bool) -> protocol.LobbyListing:
        """The lobby listing as it stands."""
        return listing(
            self.seeks,
            self.matches.values(),
            self.tournaments.listed(),
            trio.current_time(),
            following,
        )

    def forget(self, session: Session) -> None:
        """A session closed: drop its seeks, default its matches, stop sending it moves."""
        self.sign_in.leave(session)
        self.seeks.drop(session)
        self.feed.unfollow(session)
        self.live.leave(session)
        self.submissions.forget(session)
        self._hosts_lost(self.workers.leave(session))

    def _hosts_lost(self, hostings: list[Hosting]) -> None:
        """The agents of `hostings` ended: each seat they held in a live match loses at once
        with the sentence saying how (a hosted seat's connection dropping waits out the grace
        period; its agent's end says no one comes back)."""
        ended = {hosting.name: hosting.ending for hosting in hostings}
        for match in list(self.matches.values()) if ended else ():
            for seat, player in enumerate(match.players):
                if player in ended and match.cpu_seats[seat]:
                    match.deliver(HostLost(seat, ended[player]))


def _hosted(session: Session, ref: str, match: int, what: str) -> bool:
    """Whether `session` is a hosted seat's (its worker's) connection; if not, it is told that
    only the worker hosting a seat `what`."""
    if not session.hosted:
        message = f"only the worker hosting a seat {what}"
        session.send_error(protocol.ErrorCode.NOT_ALLOWED, message, ref, match)
    return session.hosted
