"""Tournaments, played by the entrants' own clients, in any format `formats` pairs.

Theory of operation. A tournament is created (by an admin) with the games its format knows
then (a round robin's or a gauntlet's all of them, a Swiss or knockout's first round), stored at
once; started, it runs one task (`Runner`) that plays the schedule in order; when every game is
finished it asks the format for the next ones (paired from the results), stores and plays them,
until there are none. It plays at most
`concurrency` games at a time and never two games of one entrant at once. A game is *due* when
it is the first unplayed one whose entrants are both free and a slot is free.

Nothing new is asked of a player's client: it says `hello` with its registered name and token,
then `seek`s the tournament's game, exactly as for a casual game. While the player has a game of
a created or running tournament of that game still to play, the lobby keeps such a seek for the
tournament (it is never paired casually) and the due game takes it: the match begins, under the
tournament's options and time control. A player with no seek open when its game is due has
`wait` seconds to open one; then it defaults (`absent`), or both do. The present player still
gets `match_started` and at once `game_over`, so its client moves on to its next game.

Entrants entered with `local` are run by the server as ordinary clients, under seat names of
their own (`local-greedy`): one process each (`arbiter tournament play` for a built-in agent, or
what the launcher says), which connects back over TCP with a token the server issues to it
privately (in its environment), restarted if it dies while it has games left. A `local` entrant
may also be a submission (`author/name`, `author/name@v2`: a ready version, kept pinned as
`author/name@vN`), which only a worker runs (`local-author.name.vN`), so its author need not be
online.

A server killed mid-tournament resumes on restart: finished games stand, and a game that was in
play is *resumed* from its stored moves, clocks and lag quotas as stored (time that passed while
the server was down is charged to nobody); its players again have `wait` seconds to come back.
Only a move the server accepted, stored and announced counts, so resuming loses nothing a player
was told, and replaying from the first move would throw away moves both sides had seen.
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import trio

from arbiter import protocol
from arbiter.games import Game, Outcome, Termination, get_game
from arbiter.protocol import ErrorCode, TimeControl
from arbiter.server.common import logs
from arbiter.server.connection.stalls import StallMeter
from arbiter.server.play import messages
from arbiter.server.play.defaults import DefaultKind, Illegal, lost_by_default
from arbiter.server.play.hosted_submissions import (
    NotPlayable,
    is_submission_spec,
    pinned,
    resolve,
    run_of,
    seat_base,
)
from arbiter.server.play.match import Match, store_outcome
from arbiter.server.play.messages import Ending, Table
from arbiter.server.play.seek_terms import Refused, checked_terms
from arbiter.server.play.seeks import Seek, Seeks
from arbiter.server.play.workers import NoWorker, Workers
from arbiter.server.storage import accounts
from arbiter.server.storage.accounts import Account
from arbiter.server.storage.errors import TournamentNameTaken
from arbiter.server.storage.interface import (
    ScheduledGame,
    Storage,
    StoredTournament,
    TournamentRow,
)
from arbiter.server.storage.records import MoveRow
from arbiter.server.storage.statuses import GameStatus, TournamentStatus
from arbiter.server.tournaments import ladder_view
from arbiter.server.tournaments.formats import (
    Format,
    FormatError,
    bracket,
    checked_format,
    contenders,
    first_games,
    next_games,
    pair_seed,
    paired_games,
    start_leg,
    swiss_byes,
)
from arbiter.server.tournaments.local_agents import (
    LocalAgents,
    LocalAgentsError,
    UnknownEntrant,
    environment,
)
from arbiter.server.tournaments.paired_match import (
    MAX_PAIRS,
    match_progress,
    terms_of,
    terms_to_wire,
)
from arbiter.server.tournaments.sprt import SprtError, SprtTerms
from arbiter.server.tournaments.standings import GameResult, Standing, standings

if TYPE_CHECKING:
    from arbiter.server.connection.session import Session

log = logging.getLogger(__name__)

MAX_ROUNDS = 100
MAX_GAMES = 65536
"""A schedule longer than this would not fit one `tournament` message."""
LOCAL_PREFIX = "local-"
MAX_LOCAL_BASE = 52
"""A local seat's name is `local-`, at most this much of its agent's name, and room for `-999`:
64 characters, an account name's most."""
LOCAL_RESTART_SECONDS = 1.0
"""Pause before restarting a built-in agent's process that exited while it had games left."""


class TournamentError(Refused):
    """A tournament request the server cannot honour."""


# -- the schedule (pure) -------------------------------------------------------------------------


def local_names(entrants: Sequence[tuple[str, str]], taken: Sequence[str]) -> dict[str, str]:
    """Seat names for the server's own entrants, given as (seat name, agent): `local-` and the
    name, numbered when it is already used. The prefix keeps them off the names people play
    under: a local `greedy` never takes the account `arbiter bot --agent greedy` connects as."""
    names: dict[str, str] = {}
    for base, agent in entrants:
        stem = LOCAL_PREFIX + base[:MAX_LOCAL_BASE]
        name, number = stem, 1
        while name in names or name in taken:
            number += 1
            name = f"{stem}-{number}"
        names[name] = agent
    return names


# -- one tournament ------------------------------------------------------------------------------


@dataclass(eq=False)
class Tournament:
    """A tournament in memory: its stored row and its schedule with the results so far."""

    row: TournamentRow
    games: list[ScheduledGame]
    _shown: tuple[Any, protocol.Tournament] | None = None
    """The last `tournament` message with what it was built from: followers ask every second,
    and the table (with its Elo fit) only changes when a game does."""

    @property
    def name(self) -> str:
        return self.row.name

    @property
    def game(self) -> Game[Any, Any]:
        return get_game(self.row.game)

    @property
    def control(self) -> TimeControl:
        return TimeControl.from_wire(self.row.time_control)

    def unfinished(self, player: str) -> bool:
        """True while `player` has a game here without a result (one in play included: a
        restart resumes it, and then it needs its player back)."""
        if self.row.status == "finished":
            return False
        return player in self.contenders() or any(
            player in (g.first, g.second) and g.status != "finished" for g in self.games
        )

    def contenders(self) -> list[str]:
        """Entrants whose later games are not paired yet (`formats.contenders`): their clients
        keep seeking."""
        if self.row.status == "finished":
            return []
        return contenders(
            Format(self.row.format), self.row.entrants, self.row.rounds, self.games, self.sprt
        )

    @property
    def sprt(self) -> SprtTerms | None:
        """The terms of a match's SPRT, None for a fixed match and other formats."""
        return None if self.row.sprt is None else terms_of(self.row.sprt)

    def results(self) -> list[GameResult]:
        return [
            GameResult(g.first, g.second, g.result, g.winner, g.defaults)
            for g in self.games
            if g.status == "finished" and g.result is not None
        ]

    def listed(self) -> dict[str, Any]:
        """The tournament as the lobby listing shows it."""
        return {
            "name": self.name,
            "game": self.row.game,
            "status": self.row.status,
            "played": sum(1 for game in self.games if game.status == "finished"),
            "games": len(self.games),
        }

    def message(self) -> protocol.Tournament:
        key = (self.row.status, [(g.number, g.status, g.match, g.result) for g in self.games])
        if self._shown is None or self._shown[0] != key:
            self._shown = (key, self._message())
        return self._shown[1]

    def _message(self) -> protocol.Tournament:
        return protocol.Tournament(
            name=self.name,
            game=self.row.game,
            status=self.row.status,
            entrants=list(self.row.entrants),
            local=list(self.row.local),
            options=self.row.options,
            time=self.row.time_control,
            rounds=self.row.rounds,
            concurrency=self.row.concurrency,
            wait=self.row.wait,
            games=[describe_game(g) for g in self.games],
            standings=[line.to_wire(rank) for rank, line in enumerate(self.table(), 1)],
            format=self.row.format,
            contending=self.contenders(),
            bracket=bracket(
                Format(self.row.format), self.row.entrants, self.row.rounds, self.games
            ),
            sprt=None
            if self.sprt is None
            else match_progress(self.sprt, self.row.entrants, paired_games(self.games)).to_wire(),
        )

    def table(self) -> list[Standing]:
        """The standings: a Swiss tournament's with its byes, in its tie-break order."""
        if self.row.format != Format.SWISS:
            return standings(self.row.entrants, self.results())
        byes = swiss_byes(self.row.entrants, self.games)
        return standings(self.row.entrants, self.results(), byes=byes, draw=self.name)

    def paired_starts(self) -> bool:
        """Whether each game starts from a random position the tournament draws (a seed
        option left unset): then a Swiss pairing plays it twice, colours swapped."""
        return any(
            option.is_seed and self.row.options.get(option.name) is None
            for option in self.game.options
        )

    def next_games(self) -> list[ScheduledGame]:
        """The games its format adds once every game so far is finished (none: it is over)."""
        return next_games(
            Format(self.row.format),
            self.row.entrants,
            self.row.rounds,
            self.games,
            self.paired_starts(),
            self.sprt,
        )


def describe_game(game: ScheduledGame) -> dict[str, Any]:
    """One schedule entry as the `tournament` message lists it."""
    entry: dict[str, Any] = {
        "number": game.number,
        "round": game.round,
        "first": game.first,
        "second": game.second,
        "match": game.match,
        "status": game.status,
    }
    if game.status == "finished" and game.result is not None:
        result = GameResult(game.first, game.second, game.result, game.winner, game.defaults)
        entry |= {
            "result": game.result,
            "winner": None if game.winner is None else result.players[game.winner],
            "reason": game.reason,
            "scores": list(result.scores),
            "defaults": list(game.defaults),
        }
    return entry


class TournamentMatch(Match):
    """A match that can continue from its stored moves (a game in play when the server
    stopped)."""

    def restore(self, moves: Sequence[MoveRow]) -> None:
        """Continue from stored moves: the position, and each seat's clock and lag quota as
        they stood after its last move."""
        for row in moves:
            _, self.state = self.game.apply_text(self.state, row.move)
            self.moves.append(row.move)
            clock = self.clocks[self.game.seat_index(row.seat)]
            clock.lag = clock.lag.after_move(row.compensation)
            if row.clock is not None:
                clock.remaining = row.clock


# -- the desk: requests, and the seeks kept for tournaments ------------------------------------


M = TypeVar("M", bound=Match)


class Seats(Protocol):
    """Where a match a tournament or a ladder seats is played and stored."""

    @property
    def storage(self) -> Storage: ...

    @property
    def arena(self) -> Arena: ...


def match_of_seeks(
    kind: type[M],
    match_id: int,
    game: Game[Any, Any],
    options: dict[str, Any],
    control: TimeControl,
    seeks: Sequence[Seek],
    seats: Seats,
) -> M:
    """The match of two kept seeks, as a tournament's and a ladder's are built: the hints each
    seek asked for, the arena's grace (and its default rule: an illegal move forfeits) and
    stall meter, a hosted seat on its CPU clock. Not yet adopted by the arena."""
    return kind(
        id=match_id,
        game=game,
        options=options,
        control=control,
        sessions=[seek.session for seek in seeks],
        hints=(seeks[0].hints, seeks[1].hints),
        storage=seats.storage,
        grace=seats.arena.grace,
        cpu_seats=(seeks[0].session.hosted, seeks[1].session.hosted),
        stalls=seats.arena.stalls,
    )


class Arena(Protocol):
    """What a tournament needs of play's live matches (`server.play.live_matches`): their
    grace period, and to run a match as every other runs (its seats' requests routed to it,
    its end recorded)."""

    @property
    def grace(self) -> float: ...

    @property
    def stalls(self) -> StallMeter: ...

    def adopt(self, match: Match, players: Sequence[Session]) -> None: ...

    async def run_match(self, match: Match) -> Outcome | None:
        """The match's outcome, or None if a server error stopped it."""
        ...

    def changed(self) -> None:
        """A tournament's progress changed (the lobby listing shows it)."""
        ...

    def finished_unplayed(self, session: Session, match_id: int) -> None:
        """`session` was told its match ended without it playing (it was absent)."""
        ...


class KeptSeats(Protocol):
    """A ladder, as the desk asks it which seeks it keeps (`server_ladder.ServerLadder`)."""

    def wants(self, player: str, game: str) -> bool: ...


class Desk:
    """The tournament office, plugged into the lobby (`server.play.tournament_desk`): creates,
    starts and describes tournaments, and finds the seeks of entrants whose games are due."""

    def __init__(self, arena: Arena, seeks: Seeks, storage: Storage, nursery: trio.Nursery) -> None:
        self.arena = arena
        self.seeks = seeks
        self.storage = storage
        self._nursery = nursery
        self.tournaments: dict[str, Tournament] = {}
        self.loaded = trio.Event()
        self._arrival = trio.Event()
        self.local_agents: LocalAgents | None = None
        """The built-in agents this server may run, set by `server.app.serve`."""
        self.workers: Workers | None = None
        """The workers that run built-in agents when the server has any, set by
        `server.app.serve`."""
        self.address: tuple[str, int] | None = None
        """Where our own clients reach this server: `server.app.serve` tells it once it
        listens."""
        self._address_known = trio.Event()
        self.ladders: dict[str, KeptSeats] = {}
        """The ladders this server runs, by game: their seats' seeks are kept too."""

    async def load(self) -> None:
        """Read every stored tournament and resume the running ones (a server's start-up)."""
        for stored in await self.storage.load_tournaments():
            self._adopt(stored)
        self.loaded.set()

    def _adopt(self, stored: StoredTournament) -> Tournament:
        tournament = Tournament(stored.row, stored.games)
        self.tournaments[tournament.name] = tournament
        if tournament.row.status == "running":
            self._nursery.start_soon(Runner(self, tournament).run)
        return tournament

    async def ready(self) -> None:
        await self.loaded.wait()

    def listed(self) -> list[Tournament]:
        """The tournaments for the lobby listing: the finished ones last."""
        return sorted(self.tournaments.values(), key=lambda t: t.row.status == "finished")

    def learn_address(self, address: tuple[str, int]) -> None:
        if self.address is None:
            self.address = address
            self._address_known.set()

    async def wait_for_address(self) -> tuple[str, int]:
        await self._address_known.wait()
        assert self.address is not None
        return self.address

    # -- requests ------------------------------------------------------------------------

    async def handle(
        self, session: Session, account: Account | None, message: protocol.Message
    ) -> None:
        """Answer `tournament_create`, `tournament_start`, `tournament_status` or `ladder`."""
        await self.loaded.wait()
        try:
            match message:
                case protocol.Ladder(game=game):
                    session.send(await ladder_view.answer(self.storage, game, game in self.ladders))
                    return
                case protocol.TournamentCreate():
                    tournament = await self._create(_admin(account, message.TYPE), message)
                case protocol.TournamentStart(tournament=name):
                    _admin(account, message.TYPE)
                    await self._adopt_new(name)
                    tournament = await self._start(name)
                case protocol.TournamentStatus(tournament=name):
                    tournament = self._find(name)
                case _:
                    return
        except Refused as error:  # a tournament's, or its terms'
            session.send_error(error.code, str(error), ref=message.TYPE)
            return
        session.send(tournament.message())

    async def _adopt_new(self, name: str) -> None:
        """Read the store again for a tournament this server does not know: a class's final is
        written by `arbiter-server admin class final` beside the running server. Only an admin's
        start asks, so no one else can make the server read every tournament again."""
        if name in self.tournaments:
            return
        for stored in await self.storage.load_tournaments():
            if stored.row.name == name:
                self._adopt(stored)

    def _find(self, name: str) -> Tournament:
        tournament = self.tournaments.get(name)
        if tournament is None:
            raise TournamentError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {name!r}")
        return tournament

    async def _create(self, director: Account, request: protocol.TournamentCreate) -> Tournament:
        taken = TournamentError(
            ErrorCode.BAD_TOURNAMENT, f"there is a tournament {request.name!r} already"
        )
        if request.name in self.tournaments:
            raise taken
        row = await self._checked_row(director, request)
        tournament = Tournament(row, [])
        games = first_games(
            Format(row.format),
            row.entrants,
            row.rounds,
            tournament.paired_starts(),
            tournament.sprt,
        )
        if len(games) > MAX_GAMES:
            raise TournamentError(
                ErrorCode.BAD_TOURNAMENT,
                f"{len(games)} games are too many for one tournament (at most {MAX_GAMES})",
            )
        try:
            tournament_id = await self.storage.create_tournament(row, games)
        except TournamentNameTaken:  # the same name, created while we checked this one
            raise taken from None
        stored = StoredTournament(replace(row, id=tournament_id), games)
        logs.event(log, "tournament_created", name=row.name, game=row.game, games=len(games))
        return self._adopt(stored)

    async def _checked_row(
        self, director: Account, request: protocol.TournamentCreate
    ) -> TournamentRow:
        game, control = checked_terms(  # tournament rules: an illegal move forfeits
            request.game, request.options, request.time, Illegal.FORFEIT
        )
        for player in request.players:
            account = await self.storage.find_account(player)
            if account is None or account.role == "local":
                raise TournamentError(
                    ErrorCode.BAD_TOURNAMENT,
                    f"{player!r} is not a registered player (arbiter-server admin add NAME)",
                )
        local = await self._checked_local(game, request.local, request.players)
        try:
            sprt = None if request.sprt is None else terms_of(request.sprt)
        except SprtError as error:
            raise TournamentError(ErrorCode.BAD_TOURNAMENT, str(error)) from None
        most = MAX_PAIRS if request.format == Format.MATCH else MAX_ROUNDS
        _check_counts(len(request.players) + len(local), request.rounds, request.concurrency, most)
        try:
            format_, entrants = checked_format(
                request.format,
                [*request.players, *local],
                request.rounds,
                _challenger(request.challenger, request.local, local),
                sprt,
            )
        except FormatError as error:
            raise TournamentError(ErrorCode.BAD_TOURNAMENT, str(error)) from None
        return TournamentRow(
            name=request.name,
            game=game.name,
            options=dict(request.options),
            time_control=control.to_wire(),
            rounds=request.rounds,
            concurrency=request.concurrency,
            wait=request.wait,
            entrants=entrants,
            local=local,
            status=TournamentStatus.CREATED,
            created_by=director.name,
            format=format_.value,
            sprt=None if sprt is None else terms_to_wire(sprt),
        )

    async def _checked_local(
        self, game: Game[Any, Any], agents: Sequence[str], players: Sequence[str]
    ) -> dict[str, str]:
        seats = [await self._entrant(game, agent) for agent in agents]
        local = local_names(seats, players)
        for name in local:
            found = await self.storage.account_credentials(name, certain=True)  # lookalikes too
            account = None if found is None else found.account
            if account is not None and account.role != "local":
                raise TournamentError(
                    ErrorCode.BAD_TOURNAMENT,
                    f"{account.name!r} is a registered {account.role}'s name: {name!r} cannot"
                    " name a built-in agent",
                )
        return local

    async def _entrant(self, game: Game[Any, Any], agent: str) -> tuple[str, str]:
        """The seat name of a `local` entrant, and what runs it: a submission's ready version
        (pinned), or an agent the launcher runs."""
        if not is_submission_spec(agent):
            return await self._seat_name(game, agent), agent
        try:
            row = await resolve(self.storage, agent, game.name)
        except NotPlayable as error:
            raise TournamentError(ErrorCode.BAD_TOURNAMENT, str(error)) from None
        return seat_base(row), pinned(row)

    async def _seat_name(self, game: Game[Any, Any], agent: str) -> str:
        """The seat name of an entrant the launcher can run (asked only when a tournament
        enters local agents: a launcher may have to run a program to answer)."""
        if self.local_agents is None:
            raise TournamentError(
                ErrorCode.BAD_TOURNAMENT, f"no built-in agent {agent!r}: this server runs none"
            )
        try:
            return await self.local_agents.entrant(game.name, agent)
        except UnknownEntrant as error:
            raise TournamentError(ErrorCode.BAD_TOURNAMENT, str(error)) from None
        except LocalAgentsError as error:
            raise TournamentError(
                ErrorCode.BAD_TOURNAMENT, f"this server cannot run built-in agents: {error}"
            ) from None

    async def _start(self, name: str) -> Tournament:
        tournament = self._find(name)
        if tournament.row.status != "created":
            raise TournamentError(
                ErrorCode.BAD_TOURNAMENT, f"tournament {name!r} is {tournament.row.status} already"
            )
        tournament.row = replace(tournament.row, status=TournamentStatus.RUNNING)
        await self.storage.set_tournament_status(tournament.row.id, TournamentStatus.RUNNING)
        logs.event(log, "tournament_started", name=name, entrants=tournament.row.entrants)
        self._nursery.start_soon(Runner(self, tournament).run)
        return tournament

    # -- seeks ---------------------------------------------------------------------------

    def wants(self, player: str, game: str) -> bool:
        """True when a seek of `player` for `game` is to be kept for a tournament or a ladder."""
        return any(
            t.row.game == game and t.unfinished(player) for t in self.tournaments.values()
        ) or any(ladder.wants(player, game) for ladder in self.ladders.values())

    def release_seeks(self, player: str, game: str) -> None:
        """Withdraw `player`'s kept seeks for `game` once no tournament wants them."""
        if not self.wants(player, game):
            self.seeks.release_seeks(player, game)

    def seek_arrived(self) -> None:
        """A kept seek was opened: wake the games waiting for their players."""
        self._arrival.set()
        self._arrival = trio.Event()

    async def next_arrival(self) -> None:
        await self._arrival.wait()


def _admin(account: Account | None, request: str) -> Account:
    if account is None or not account.is_admin:
        raise TournamentError(
            ErrorCode.NOT_ALLOWED,
            f"{request} needs an admin account: say hello with an admin's name and token",
        )
    return account


def _challenger(given: str | None, requested: Sequence[str], local: dict[str, str]) -> str | None:
    """The entrant a challenger names: a player, a local seat name, or a local entrant as the
    request gave it (`greedy` for `local-greedy`, `ann/bot` for `local-ann.bot.v2`); `local`
    holds the seats of `requested` in its order."""
    if given is None or given in local:
        return given
    return next(
        (seat for typed, seat in zip(requested, local, strict=True) if typed == given), given
    )


def _check_counts(entrants: int, rounds: int, concurrency: int, most: int = MAX_ROUNDS) -> None:
    """Refuse too few entrants, rounds out of 1 to `most`, or no game at a time."""
    if entrants < 2:
        raise TournamentError(
            ErrorCode.BAD_TOURNAMENT, f"a tournament needs two entrants or more, not {entrants}"
        )
    if not 1 <= rounds <= most:
        raise TournamentError(ErrorCode.BAD_TOURNAMENT, f"rounds must be 1 to {most}, not {rounds}")
    if concurrency < 1:
        raise TournamentError(ErrorCode.BAD_TOURNAMENT, "concurrency must be at least 1")


# -- the runner ----------------------------------------------------------------------------------


class Runner:
    """Plays one tournament's schedule to its end, then marks it finished."""

    def __init__(self, desk: Desk, tournament: Tournament) -> None:
        self.desk = desk
        self.arena = desk.arena
        self.seeks = desk.seeks
        self.storage = desk.storage
        self.tournament = tournament
        self._changed = trio.Event()
        self._launched = {name: trio.Event() for name in tournament.row.local}
        """Set once a built-in agent's process has been started: its `wait` counts from then."""

    async def run(self) -> None:
        """Never lets an error out into the server's nursery: a tournament stopped by a bug
        stays `running` in the file, and resumes when the server restarts."""
        try:
            await self._run()
        except Exception:
            log.exception("tournament %r stopped on a server error", self.tournament.name)

    async def _run(self) -> None:
        tournament = self.tournament
        async with trio.open_nursery() as nursery:
            for index, (name, agent) in enumerate(tournament.row.local.items()):
                nursery.start_soon(self._keep_local, name, agent, index)
            await self._play_schedule()
            nursery.cancel_scope.cancel()
        tournament.row = replace(tournament.row, status=TournamentStatus.FINISHED)
        await self.storage.set_tournament_status(tournament.row.id, TournamentStatus.FINISHED)
        self.arena.changed()
        logs.event(log, "tournament_finished", name=tournament.row.name)
        for player in tournament.row.entrants:
            self.desk.release_seeks(player, tournament.row.game)

    async def _play_schedule(self) -> None:
        busy: set[str] = set()
        started: set[int] = set()
        limit = self.tournament.row.concurrency
        async with trio.open_nursery() as games:
            while True:
                todo = [
                    g
                    for g in self.tournament.games
                    if g.status != "finished" and g.number not in started
                ]
                if not todo and not busy:
                    if not await self._add_next_games():
                        return
                    continue
                due = next((g for g in todo if not busy & {g.first, g.second}), None)
                if due is not None and len(busy) // 2 < limit:  # two busy players a game
                    started.add(due.number)
                    busy |= {due.first, due.second}
                    games.start_soon(self._play_and_free, due, busy)
                    continue
                await self._changed.wait()
                self._changed = trio.Event()

    async def _add_next_games(self) -> bool:
        """Store and schedule the format's next games; False when there are none. A Swiss
        round of a large field can take a while to pair: a thread's work, off the server's."""
        games = await trio.to_thread.run_sync(self.tournament.next_games)
        if games:
            await self.storage.add_tournament_games(self.tournament.row.id, games)
            self.tournament.games.extend(games)
            self.arena.changed()
        return bool(games)

    async def _play_and_free(self, game: ScheduledGame, busy: set[str]) -> None:
        try:
            await self._play_game(game)
        finally:
            busy -= {game.first, game.second}
            self._changed.set()

    async def _play_game(self, game: ScheduledGame) -> None:
        moves = await self.storage.load_moves(game.match) if game.match is not None else []
        logs.event(
            log, "tournament_game_due", tournament=self.tournament.name, **describe_game(game)
        )
        seeks = await self._gather(game)
        if None in seeks:
            await self._absent(game, seeks, moves)
            return
        present = [seek for seek in seeks if seek is not None]
        match = await self._open_match(game, present, moves)
        outcome = await self.arena.run_match(match)
        if outcome is None:  # a server bug stopped the match: nobody's fault, nobody scores
            outcome = Outcome.both_forfeit(
                "the match stopped on a server error", Termination.SERVER_ERROR
            )
            await self._store_outcome(match.id, outcome)
        self._record(game, outcome, match.defaulted)

    async def _gather(self, game: ScheduledGame) -> list[Seek | None]:
        """Both players' kept seeks, taken together once both are there; after `wait` seconds,
        whichever is there."""
        players = (game.first, game.second)
        name = self.tournament.row.game
        for player in players:
            if player in self._launched:
                await self._launched[player].wait()
        with trio.move_on_after(self.tournament.row.wait):
            while not all(self.seeks.kept_seek(player, name) for player in players):
                await self.desk.next_arrival()
        return [self.seeks.take_seek(player, name) for player in players]

    async def _open_match(
        self, game: ScheduledGame, seeks: list[Seek], moves: list[MoveRow]
    ) -> TournamentMatch:
        tournament = self.tournament
        options = await self._options(game)
        cpu_seats = (seeks[0].session.hosted, seeks[1].session.hosted)
        match_id = game.match or await self._create_match(game, options, cpu_seats)
        game.status = GameStatus.PLAYING
        match = match_of_seeks(
            TournamentMatch, match_id, tournament.game, options, tournament.control, seeks, self
        )
        match.restore(moves)
        self.arena.adopt(match, [seek.session for seek in seeks])
        return match

    async def _create_match(
        self,
        game: ScheduledGame,
        options: dict[str, Any],
        cpu_seats: tuple[bool, bool] = (False, False),
    ) -> int:
        """The match row of a game about to begin, linked to its place in the schedule."""
        row = self.tournament.row
        game.match = await self.storage.create_match(
            row.game,
            options,
            row.time_control,
            (Illegal.FORFEIT, Illegal.FORFEIT),  # tournament rules: an illegal move loses
            self.tournament.game.seats,
            [game.first, game.second],
            tournament_game=(row.id, game.number),
            clocks=["cpu" if cpu else "wall" for cpu in cpu_seats],
        )
        return game.match

    async def _options(self, game: ScheduledGame) -> dict[str, Any]:
        """The game's resolved options: as stored for a game begun before, else the
        tournament's, with the pair's seed for a random start."""
        if game.match is not None:
            record = await self.storage.load_match(game.match)
            assert record is not None
            return record.options
        row = self.tournament.row
        leg = start_leg(game, self.tournament.games)
        seed = pair_seed(row.name, game.round, game.first, game.second, leg)
        return self.tournament.game.resolve_options(row.options, fresh_seed=lambda: seed)

    async def _absent(
        self, game: ScheduledGame, seeks: list[Seek | None], moves: list[MoveRow]
    ) -> None:
        """Default the absent player (or both); tell a present one, whose seek this takes."""
        tournament = self.tournament
        players = (game.first, game.second)
        missing = [seat for seat, seek in enumerate(seeks) if seek is None]
        waited = f"within {tournament.row.wait:g} s"
        absent = DefaultKind.ABSENT
        if len(missing) == 2:
            outcome = Outcome.both_forfeit(
                f"neither player came to play {waited}", absent.termination
            )
        else:
            reason = f"{players[missing[0]]} did not come {waited}"
            outcome = lost_by_default(missing[0], absent, reason)
        match_id = game.match or await self._create_match(game, await self._options(game))
        for seat in missing:
            self.storage.note_default(match_id, seat, absent)
        await self._store_outcome(match_id, outcome)
        defaults = (absent if 0 in missing else None, absent if 1 in missing else None)
        self._record(game, outcome, defaults)
        for seat, seek in enumerate(seeks):
            if seek is not None:
                await self._tell_present(game, seat, seek, outcome, moves)

    async def _tell_present(
        self,
        game: ScheduledGame,
        seat: int,
        seek: Seek,
        outcome: Outcome,
        moves: list[MoveRow],
    ) -> None:
        """`match_started` then `game_over`: the present player's client sees its game end."""
        assert game.match is not None
        tournament = self.tournament
        rules = tournament.game
        options = await self._options(game)
        state = rules.replay(options, [row.move for row in moves])
        moved = [row.move for row in moves]
        table = Table(
            game.match,
            rules,
            [game.first, game.second],
            options,
            tournament.row.time_control,
            messages.position_of(rules, state, state.outcome()),
            moved,
        )
        seek.session.send(messages.match_started(table, seat, seek.hints, Illegal.FORFEIT))
        seek.session.send(messages.game_over(table, Ending.of(outcome, rules.seats)))
        self.arena.finished_unplayed(seek.session, game.match)

    async def _store_outcome(self, match_id: int, outcome: Outcome) -> None:
        await store_outcome(self.storage, match_id, self.tournament.game.seats, outcome)

    def _record(
        self, game: ScheduledGame, outcome: Outcome, defaults: tuple[str | None, str | None]
    ) -> None:
        """The result in memory, as `Storage.load_tournaments` would read it back."""
        game.status = GameStatus.FINISHED
        game.result = outcome.result.value
        game.winner = outcome.winner
        game.reason = outcome.reason
        game.defaults = defaults
        self.arena.changed()
        logs.event(
            log, "tournament_game_finished", tournament=self.tournament.name, **describe_game(game)
        )
        for player in (game.first, game.second):
            self.desk.release_seeks(player, self.tournament.row.game)

    # -- built-in agents -----------------------------------------------------------------

    async def _keep_local(self, name: str, agent: str, index: int) -> None:
        """Run the agent's client until it has no game left, restarting it if it dies: on a
        worker when the server has workers (then its seat is judged on CPU time), else here.
        A submission runs only on a worker: it waits for one.

        If it cannot run at all its games wait their `wait` and default (`absent`): the
        tournament goes on without it.
        """
        address = await self.desk.wait_for_address()
        launcher = self.desk.local_agents
        workers = self.desk.workers
        hosted_only = is_submission_spec(agent)
        try:
            while workers is not None and (hosted_only or workers.expected or workers.connected):
                if not self.tournament.unfinished(name):
                    return
                await self._keep_hosted(workers, name, agent, index)
            while launcher is not None and not hosted_only and self.tournament.unfinished(name):
                token = await self.storage.issue_local_token(name)
                self._launched[name].set()
                told = environment(
                    address, name, token, self.tournament.row.game, self.tournament.name
                )
                await trio.run_process(
                    launcher.command(self.tournament.name, address, name, agent, index),
                    env={**os.environ, **told},
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    check=False,
                )
                await trio.sleep(LOCAL_RESTART_SECONDS)
        except (OSError, accounts.AccountError, NotPlayable):
            log.exception("cannot run the entrant %r", name)
        finally:
            self._launched[name].set()

    async def _keep_hosted(self, workers: Workers, name: str, agent: str, index: int) -> None:
        """Have a worker run the agent until it ends (waiting for a free slot first); its
        `wait` counts from the `host` frame."""
        tournament = self.tournament
        author = None
        if is_submission_spec(agent):
            row = await resolve(self.storage, agent, tournament.row.game)
            run, author = run_of(row), row.author
        else:
            run = {"kind": "agent", "agent": agent, "seed": index}
        try:
            hosting = await workers.host(
                name,
                tournament.row.game,
                tournament.control,
                run,
                tournament=tournament.name,
                author=author,
            )
        except NoWorker:
            await workers.wait_for_slot()
            return
        self._launched[name].set()
        await hosting.ended.wait()
        await trio.sleep(LOCAL_RESTART_SECONDS)
