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
from arbiter.games import GAME_NAMES, Game, GameError, OptionError, Outcome, get_game
from arbiter.protocol import ErrorCode, TimeControl, TimeControlError
from arbiter.server.connection.admission import DEFAULT, Admission
from arbiter.server.connection.limits import Limits
from arbiter.server.connection.session import OutputBudget, Session
from arbiter.server.connection.stalls import StallMeter
from arbiter.server.connection.token_checks import TokenChecks, TokensBusy
from arbiter.server.play.listing import listing
from arbiter.server.play.lobby_feed import LobbyFeed
from arbiter.server.play.match import Disconnected, Match, MoveArrived, Reconnected, Resigned
from arbiter.server.play.seeks import Seek, Seeks
from arbiter.server.play.snapshots import Shown, nothing_to_show, snapshots
from arbiter.server.play.time_defaults import default_time_control
from arbiter.server.storage.accounts import Account
from arbiter.server.storage.interface import Storage, StorageError
from arbiter.server.storage.records import FullRecord
from arbiter.server.tournaments.tournament import Desk

log = logging.getLogger(__name__)

SERVER_NAME = "arbiter 0.1.0"


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
        self._games = protocol.Encoded(
            protocol.Games(games=[describe_game(get_game(name)) for name in GAME_NAMES])
        )
        """The answer to `list_games`, which never changes: encoded once."""
        self.nothing_to_show = nothing_to_show()
        """Ids whose watch is refused without a read: matches that will never be shown."""
        self._nursery = nursery
        self.seeks = Seeks(self.limits)
        self.matches: dict[int, Match] = {}
        self.feed = LobbyFeed(lambda: self.listing(following=True))
        """Who follows the lobby listing; told of every change."""
        self.seeks.on_change = self.feed.changed
        self._players: dict[int, list[Session]] = {}
        """Each live match's players by seat (the new session once one resumed its seat)."""
        self._away: dict[str, list[tuple[Match, int]]] = {}
        """Seats of dropped connections by session id, until resumed or their match ends."""
        self._away_names: dict[str, str] = {}
        """The name each session id in `_away` played under: only that name resumes it."""
        self.accounts: dict[Session, Account] = {}
        """Sessions that said hello with a registered name and its token."""
        self._signed_in: dict[str, Session] = {}
        """The one live session of each registered name: a newer hello replaces it."""
        self._tokens = TokenChecks(admission)
        """Token checks: a few at once, guessers' paced apart, verified tokens remembered."""
        self.desk = Desk(self, self.seeks, storage, nursery)
        nursery.start_soon(self.desk.load)
        nursery.start_soon(self.feed.run)

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
                await self.desk.handle(session, self.accounts.get(session), message)
                if not isinstance(message, protocol.TournamentStatus):
                    self.feed.changed()

    async def _hello(self, session: Session, hello: protocol.Hello) -> None:
        if hello.version not in protocol.VERSIONS:
            versions = " and ".join(map(str, protocol.VERSIONS))
            session.drop(
                ErrorCode.VERSION_MISMATCH,
                f"this server speaks protocol versions {versions}, not {hello.version}",
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
        session.send(
            protocol.Welcome(version=hello.version, session=session.token, server=SERVER_NAME)
        )
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
        older.seats.clear()

    def _resume(self, session: Session, session_id: str) -> None:
        """Give the seats of a dropped session to this one, if it plays under the same name
        (a registered name's token was checked by `_check_name`)."""
        if self._away_names.get(session_id) != session.name:
            seats = []
        else:
            self._away_names.pop(session_id)
            seats = [(m, seat) for m, seat in self._away.pop(session_id, []) if m.outcome is None]
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
            session.seats[match.id] = (match, seat)
            self._players[match.id][seat] = session
            match.deliver(Reconnected(seat, session))

    async def _seek(self, session: Session, seek: protocol.Seek) -> None:
        if seek.opponent == session.name:
            session.send_error(
                ErrorCode.BAD_OPPONENT,
                f"you play as {session.name!r}: a seek cannot challenge its own player",
                ref="seek",
            )
            return
        try:
            game = get_game(seek.game)
        except GameError as error:
            session.send_error(ErrorCode.UNKNOWN_GAME, str(error), ref="seek")
            return
        try:
            game.resolve_options(seek.options)
        except OptionError as error:
            session.send_error(ErrorCode.BAD_OPTION, str(error), ref="seek")
            return
        try:
            if seek.time:
                time_control = TimeControl.from_wire(seek.time)
            else:
                time_control = default_time_control(game, seek.illegal)
        except TimeControlError as error:
            session.send_error(ErrorCode.BAD_TIME_CONTROL, str(error), ref="seek")
            return
        account = self.accounts.get(session)
        await self.desk.loaded.wait()  # only waits at start-up, while tournaments are read back
        mine = Seek(
            self.seeks.next_id(),
            session,
            game,
            dict(seek.options),
            time_control,
            seek.hints,
            seek.illegal,
            player=None if account is None else account.name,
            opponent=seek.opponent,
        )
        mine.kept = mine.player is not None and self.desk.wants(mine.player, game.name)
        waiting = None if mine.kept else self.seeks.pop_partner(mine)
        if waiting is None:
            refusal = self.seeks.make_room(mine)
            if refusal is not None:
                session.send_error(ErrorCode.TOO_MANY_SEEKS, refusal, ref="seek")
                return
            self.seeks.add(mine)
            session.send(
                protocol.Seeking(
                    seek=mine.id,
                    game=game.name,
                    options=mine.options,
                    time=time_control.to_wire(),
                    opponent=mine.opponent,
                )
            )
            if mine.kept:
                self.desk.seek_arrived()
            return
        await self._start_match(waiting, mine)

    def _cancel_seek(self, session: Session, seek_id: int) -> None:
        if not self.seeks.cancel(session, seek_id):
            session.send_error(
                ErrorCode.UNKNOWN_SEEK, f"no open seek {seek_id} of yours", ref="cancel_seek"
            )
            return
        session.send(protocol.SeekCancelled(seek=seek_id))

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
            self.desk.tournaments.values(),
            trio.current_time(),
            following,
        )

    def _to_match(self, session: Session, match_id: int, ref: str, event: Any) -> None:
        seated = session.seats.get(match_id)
        if seated is None:
            if match_id in session.finished:
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
        if session.was_shown(match_id):
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
            session.remember_shown(match_id)

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
        watching = protocol.Encoded(
            protocol.Watching(
                match=record.id,
                game=record.game,
                seats=record.seats,
                players=record.players,
                options=record.options,
                time=record.time_control,
                state=state.to_data(),
                moves=record.notation,
                to_move=None,
            )
        )
        assert record.result is not None
        assert record.reason is not None
        over = protocol.Encoded(
            protocol.GameOver(
                match=record.id,
                result=record.result,
                winner=record.winner,
                reason=record.reason,
                state=state.to_data(),
                moves=record.notation,
                termination=record.termination,
                clocks_ms=final_clocks_ms(record),
            )
        )
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
        self._players[match.id] = list(players)
        for seat, session in enumerate(players):
            session.seats[match.id] = (match, seat)
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
            for session in self._players.pop(match.id):
                session.seats.pop(match.id, None)
                session.finished.add(match.id)
                self._release_away_seat(session.token, match)
            self.feed.changed()

    def _release_away_seat(self, token: str, match: Match) -> None:
        """Forget a dropped client's seat in a match that ended; its other seats stay resumable."""
        seats = [(other, seat) for other, seat in self._away.get(token, ()) if other is not match]
        if seats:
            self._away[token] = seats
        else:
            self._away.pop(token, None)
            self._away_names.pop(token, None)

    def forget(self, session: Session) -> None:
        """A session closed: drop its seeks, default its matches, stop sending it moves."""
        account = self.accounts.pop(session, None)
        if account is not None and self._signed_in.get(account.name) is session:
            del self._signed_in[account.name]
        self.seeks.drop(session)
        self.feed.unfollow(session)
        for match, seat in list(session.seats.values()):
            match.deliver(Disconnected(seat))
        if session.seats:
            self._away[session.token] = list(session.seats.values())
            self._away_names[session.token] = session.name
        for match in self.matches.values():
            match.spectators.discard(session)


def describe_game(game: Game[Any, Any]) -> dict[str, Any]:
    """A game as the `games` message lists it."""
    return {
        "name": game.name,
        "title": game.title,
        "seats": list(game.seats),
        "options": [
            {
                "name": option.name,
                "type": option.kind.__name__,
                "default": option.default,
                "help": option.help,
            }
            for option in game.options
        ],
        "notation": game.notation_help,
    }


def final_clocks_ms(record: FullRecord) -> list[int] | None:
    """A finished match's game clocks as its moves left them, in milliseconds (a seat that
    never moved has its whole clock); None without a game clock."""
    start = record.time_control.get("clock")
    if start is None:
        return None
    clocks = [float(start), float(start)]
    for row in record.moves:
        if row.clock is not None:
            clocks[record.seats.index(row.seat)] = row.clock
    return [round(seconds * 1000) for seconds in clocks]
