"""The lobby: routes each request of a session, pairs seeks, and keeps the live matches.

Pairing is first come, first seated: a seek waits until another session seeks the same game with
the same options and time control; the waiting seek takes the first seat. That makes pairing
predictable for scripts (`arbiter referee` seats agent A first by seeking first) and fair over a
series of games only when the seekers alternate, which is the tournament's business, not ours.

Names: a name registered as an account (`server.storage.accounts`) is only played under with its
token; other names are free for casual play. A registered player's seek for a game it still has to
play in a tournament is *kept* for the tournament (`server.tournaments.tournament`) and never paired
here; both find it in one table of open seeks (`server.play.seeks`).

A seek may name its opponent (a challenge): then it pairs only with that player's seek. Anyone
may ask for the lobby listing (`server.play.listing`) once or follow it (`server.play.lobby_feed`):
every change of the seeks, the matches or the tournaments marks it dirty, a move included.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Sequence
from typing import Any

import trio

from arbiter import protocol
from arbiter.games import GameError, Outcome, get_game
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import DEFAULT, Admission
from arbiter.server.connection.limits import Limits
from arbiter.server.connection.session import OutputBudget, Session
from arbiter.server.connection.stalls import StallMeter
from arbiter.server.connection.token_checks import TokenChecks, TokensBusy
from arbiter.server.play import messages
from arbiter.server.play.defaults import Illegal
from arbiter.server.play.listing import listing
from arbiter.server.play.lobby_feed import LobbyFeed
from arbiter.server.play.match import Disconnected, Match, MoveArrived, Reconnected, Resigned
from arbiter.server.play.messages import Ending, Table
from arbiter.server.play.seating import Seating
from arbiter.server.play.seek_terms import TermsRefused, checked_terms
from arbiter.server.play.seeks import Seek, Seeks
from arbiter.server.play.snapshots import Shown, nothing_to_show, snapshots
from arbiter.server.play.tournament_desk import NoTournaments, TournamentDesk
from arbiter.server.storage.accounts import Account
from arbiter.server.storage.interface import Storage, StorageError

log = logging.getLogger(__name__)


class Lobby:
    def __init__(
        self,
        storage: Storage,
        nursery: trio.Nursery,
        grace: float = 10.0,
        admission: Admission = DEFAULT,
        limits: Limits | None = None,
    ) -> None:
        self.storage = storage
        self.grace = grace
        """Seconds a disconnected seat is kept for its client to come back."""
        self.stalls = StallMeter()
        """The loop's lateness, which no match charges a player for (`serve` runs it)."""
        self.limits = limits or Limits()
        self.output = OutputBudget(self.limits.output_budget)
        """The bytes queued for all sessions, which share it."""
        self.snapshots = snapshots(self.limits.snapshot_cache_bytes)
        """Finished matches as a spectator is shown them, encoded."""
        self._games = protocol.Encoded(messages.games())
        """The answer to `list_games`, which never changes: encoded once."""
        self.nothing_to_show = nothing_to_show()
        """Ids whose watch is refused without a read: matches that will never be shown."""
        self._nursery = nursery
        self.seeks = Seeks(self.limits)
        self.matches: dict[int, Match] = {}
        self.feed = LobbyFeed(lambda: self.listing(following=True))
        """Who follows the lobby listing; told of every change."""
        self.seeks.on_change = self.feed.changed
        self.seating = Seating()
        """Who sits where, who is away, what each connection finished and was shown."""
        self.accounts: dict[Session, Account] = {}
        """Sessions that said hello with a registered name and its token."""
        self._signed_in: dict[str, Session] = {}
        """The one live session of each registered name: a newer hello replaces it."""
        self._tokens = TokenChecks(admission)
        """Token checks: a few at once, guessers' paced apart, verified tokens remembered."""
        self.tournaments: TournamentDesk = NoTournaments()
        """The tournaments plugged in (`plug_in`), asked of seeks kept for their games."""
        nursery.start_soon(self.feed.run)

    def plug_in(self, tournaments: TournamentDesk) -> None:
        """Run `tournaments` in this lobby (`server.app` plugs in `server.tournaments`)."""
        self.tournaments = tournaments

    # -- requests --------------------------------------------------------------------------

    async def handle(self, session: Session, message: protocol.Message, arrived: float) -> None:
        """Answer one request; `arrived` is when its frame was complete (a move's stop-clock)."""
        match message:  # the per-move requests first: cases are tried in order
            case protocol.Move(match=match_id, move=text):
                self._to_match(
                    session, match_id, "move", lambda seat: MoveArrived(seat, text, arrived)
                )
                self.feed.changed()
            case protocol.Pong(nonce=nonce):
                session.pong_received(nonce, arrived)
            case protocol.Hello():
                await self._hello(session, message)
            case protocol.Ping(nonce=nonce):
                session.send(protocol.Pong(nonce=nonce))
            case protocol.ListGames():
                session.send(self._games)
            case protocol.Seek():
                await self._seek(session, message)
            case protocol.CancelSeek(seek=seek_id):
                self._cancel_seek(session, seek_id)
            case protocol.Resign(match=match_id):
                self._to_match(session, match_id, "resign", Resigned)
            case protocol.Watch(match=match_id):
                await self._watch(session, match_id)
            case protocol.Lobby(follow=follow):
                self._lobby(session, follow)
            case (
                protocol.TournamentCreate()
                | protocol.TournamentStart()
                | protocol.TournamentStatus()
            ):
                await self.tournaments.handle(session, self.accounts.get(session), message)
                if not isinstance(message, protocol.TournamentStatus):
                    self.feed.changed()

    async def _hello(self, session: Session, hello: protocol.Hello) -> None:
        if hello.version != protocol.PROTOCOL_VERSION:
            session.drop(
                ErrorCode.VERSION_MISMATCH,
                f"this server speaks protocol version {protocol.PROTOCOL_VERSION},"
                f" not {hello.version}",
                ref="hello",
            )
            return
        wait = self._tokens.gate.wait(session.address, trio.current_time())
        if hello.token is not None and wait > 0:
            session.drop(
                ErrorCode.RATE_LIMITED,
                f"too many failed token checks from {session.address}: try again in"
                f" {math.ceil(wait)} s",
                ref="hello",
            )
            return
        try:
            refusal = await self._check_name(session, hello)
        except TokensBusy as busy:
            session.drop(ErrorCode.RATE_LIMITED, str(busy), ref="hello")
            return
        if refusal is not None:
            session.drop(ErrorCode.BAD_NAME, refusal, ref="hello")
            return
        session.name = hello.name
        account = self.accounts.get(session)
        if account is not None:
            self._sign_in(account.name, session)
        session.send(messages.welcome(session.token))
        session.welcomed.set()
        if hello.resume is not None:
            self._resume(session, hello.resume)

    async def _check_name(self, session: Session, hello: protocol.Hello) -> str | None:
        """Why the name cannot be played under, or None (then a registered one is remembered).

        A failed token check counts against the client's address (`TokenChecks`); `TokensBusy`
        if the address failed lately and enough checks of such addresses wait already."""
        found = await self.storage.account_credentials(hello.name, hello.token is not None)
        if found is not None and found.account.name != hello.name:
            return f"{hello.name!r} is too like the registered name {found.account.name!r}"
        if hello.token is None:
            if found is None:
                return None
            return f"{hello.name!r} is a registered player: say hello with its token"
        account = await self._tokens.check(found, hello.token, session.address)
        if account is None:
            return f"wrong token for {hello.name!r}, or no such registered player"
        self.accounts[session] = account
        return None

    def _sign_in(self, name: str, session: Session) -> None:
        """One live connection per registered name: the newest; an older one is dropped, its
        seats going to the grace period at once (so this hello's `resume` finds them)."""
        older = self._signed_in.get(name)
        self._signed_in[name] = session
        if older is None or older is session:
            return
        older.drop(
            ErrorCode.SESSION_REPLACED,
            f"a newer connection said hello as {name!r}: this one closes",
        )
        self.forget(older)

    def _resume(self, session: Session, session_id: str) -> None:
        """Give the seats of a dropped session to this one, if it plays under the same name
        (a registered name's token was checked by `_check_name`)."""
        seats = self.seating.resume(session, session_id)
        if not seats:
            session.send_error(
                ErrorCode.UNKNOWN_SESSION,
                "no seat to resume for that session under this name: it never held one, or its"
                " grace period is over, or its games have ended; this connection goes on as a"
                " new session",
                ref="hello",
            )
            return
        for match, seat in seats:
            match.deliver(Reconnected(seat, session))

    async def _seek(self, session: Session, seek: protocol.Seek) -> None:
        if seek.opponent == session.name:
            session.send_error(
                ErrorCode.BAD_OPPONENT,
                f"you play as {session.name!r}: a seek cannot challenge its own player",
                ref="seek",
            )
            return
        illegal = Illegal(seek.illegal)
        try:
            game, time_control = checked_terms(seek.game, seek.options, seek.time, illegal)
        except TermsRefused as refused:
            session.send_error(refused.code, str(refused), ref="seek")
            return
        account = self.accounts.get(session)
        await self.tournaments.ready()
        mine = Seek(
            self.seeks.next_id(),
            session,
            game,
            dict(seek.options),
            time_control,
            seek.hints,
            illegal,
            player=None if account is None else account.name,
            opponent=seek.opponent,
        )
        mine.kept = mine.player is not None and self.tournaments.wants(mine.player, game.name)
        waiting = None if mine.kept else self.seeks.pop_partner(mine)
        if waiting is None:
            refusal = self.seeks.make_room(mine)
            if refusal is not None:
                session.send_error(ErrorCode.TOO_MANY_SEEKS, refusal, ref="seek")
                return
            self.seeks.add(mine)
            session.send(
                messages.seeking(mine.id, game.name, mine.options, time_control, mine.opponent)
            )
            if mine.kept:
                self.tournaments.seek_arrived()
            return
        await self._start_match(waiting, mine)

    def _cancel_seek(self, session: Session, seek_id: int) -> None:
        if not self.seeks.cancel(session, seek_id):
            session.send_error(
                ErrorCode.UNKNOWN_SEEK, f"no open seek {seek_id} of yours", ref="cancel_seek"
            )
            return
        session.send(messages.seek_cancelled(seek_id))

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

    def _to_match(self, session: Session, match_id: int, ref: str, event: Any) -> None:
        seated = self.seating.seat_of(session, match_id)
        if seated is None:
            if self.seating.has_finished(session, match_id):
                session.send_error(ErrorCode.GAME_OVER, f"match {match_id} is over", ref, match_id)
            elif match_id in self.matches:
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

    async def _watch(self, session: Session, match_id: int) -> None:
        match = self.matches.get(match_id)
        if match is not None:
            if not match.add_spectator(session):
                session.send_error(
                    ErrorCode.ALREADY_WATCHING,
                    f"you already watch match {match_id}: its moves keep coming",
                    "watch",
                    match_id,
                )
            return
        if self.seating.was_shown(session, match_id):
            session.send_error(
                ErrorCode.ALREADY_WATCHING,
                f"you were shown finished match {match_id} already: it does not change",
                "watch",
                match_id,
            )
            return
        if self.nothing_to_show.get(match_id):
            session.send_error(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}", "watch", match_id)
            return
        shown = self.snapshots.get(match_id) or await self._show_finished(session, match_id)
        if shown is not None:  # two writes of the kept frames rather than a joined copy
            session.send(shown[0])
            session.send(shown[1])
            self.seating.shown(session, match_id)

    async def _show_finished(self, session: Session, match_id: int) -> Shown | None:
        """A finished match's frames for a spectator, read back and replayed (then kept), or
        None after telling `session` why there are none."""
        record = await self.storage.load_match(match_id)
        if record is None or record.status != "finished":
            if record is not None and record.status == "aborted":  # for good
                self.nothing_to_show.put(match_id, True)
            session.send_error(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}", "watch", match_id)
            return None
        try:
            state = get_game(record.game).replay(record.options, record.notation)
        except GameError as error:  # an edited file, or rules changed since it was played
            log.error("match %d does not replay: %s", match_id, error)
            session.send_error(
                ErrorCode.INTERNAL_ERROR,
                f"match {match_id} cannot be shown: its stored moves do not replay ({error})",
                "watch",
                match_id,
            )
            return None
        table = Table(
            record.id,
            get_game(record.game),
            record.players,
            record.options,
            record.time_control,
            state,
            record.notation,
        )
        assert record.result is not None
        assert record.reason is not None
        ending = Ending(record.result, record.winner, record.reason, record.termination)
        watching = protocol.Encoded(messages.watching(table))
        over = protocol.Encoded(messages.game_over(table, ending))
        self.snapshots.put(match_id, (watching, over))
        return watching, over

    # -- matches ---------------------------------------------------------------------------

    async def _start_match(self, first: Seek, second: Seek) -> None:
        game = first.game
        options = game.resolve_options(first.options, fresh_seed=lambda: secrets.randbits(31))
        sessions = (first.session, second.session)
        try:
            match_id = await self.storage.create_match(
                game.name,
                options,
                first.time_control.to_wire(),
                f"{first.illegal},{second.illegal}",
                game.seats,
                [session.name for session in sessions],
            )
        except StorageError as error:
            log.error("a new %s match could not be stored: %s", game.name, error)
            for session in sessions:
                session.send_error(
                    ErrorCode.INTERNAL_ERROR,
                    f"the match could not start: the server could not store it ({error});"
                    " your seek is withdrawn",
                    ref="seek",
                )
            return
        match = Match(
            id=match_id,
            game=game,
            options=options,
            control=first.time_control,
            sessions=list(sessions),
            hints=(first.hints, second.hints),
            storage=self.storage,
            illegal=(first.illegal, second.illegal),
            grace=self.grace,
            stalls=self.stalls,
        )
        self.adopt(match, sessions)
        self._nursery.start_soon(self.run_match, match)

    def changed(self) -> None:
        """Something the lobby listing shows changed: its followers get a fresh one."""
        self.feed.changed()

    def adopt(self, match: Match, players: Sequence[Session]) -> None:
        """Make a match reachable: its seats' moves and resignations are routed to it."""
        self.matches[match.id] = match
        self.seating.seat(match, players)
        self.feed.changed()

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
            del self.matches[match.id]
            self.seating.ended(match)
            self.feed.changed()

    def finished_unplayed(self, session: Session, match_id: int) -> None:
        """`session` was told of a match that ended without it playing (a tournament game it
        was absent from): a late move to it is answered `game_over`."""
        self.seating.finished(session, match_id)

    def forget(self, session: Session) -> None:
        """A session closed: drop its seeks, default its matches, stop sending it moves."""
        account = self.accounts.pop(session, None)
        if account is not None and self._signed_in.get(account.name) is session:
            del self._signed_in[account.name]
        self.seeks.drop(session)
        self.feed.unfollow(session)
        for match, seat in self.seating.leave(session, session.token):
            match.deliver(Disconnected(seat))
        for match in self.matches.values():
            match.spectators.discard(session)
