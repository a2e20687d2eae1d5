"""A server's ladder of one game (or of one class's section): its entrants are every ready
hosted submission version of the game, the bosses of its leagues and the connected bots that
joined it, paired continuously, each game an ordinary recorded match, each result moving the two
ratings, stored under the ladder's key.

Theory of operation. `ServerLadder.run` reads the stored ratings (a restarted server goes on
from them), then loops until `stop`: it reads which versions are ready (a new upload joins with
the model's first guess and a wide uncertainty, a retired one leaves the pairing and keeps its
line), draws up to `concurrency` pairs with `ladder_pairing.pairings` among the entrants not in a
game and under their cap of games an hour, and plays each pair in a task of its own. A section's
ladder takes only that section's students' versions and bots.

The game's leagues (`leagues.py`) add their bosses as entrants of their own (`boss:greedy`),
rated like everyone: a league is earned against the boss's rating, so the boss must play.

A connected bot joins with `ladder_join` (`join`): from then on its seeks for the game are kept
for the ladder, and it is paired only while one waits (it is idle), under its account's name. It
leaves the pool with `ladder_leave`, when its connection closes, or when it starts a match the
ladder did not make.

A version or a boss is played as a tournament's hosted entrant is: a worker runs it under a
seat name of its own (`ladder-alice.bot.v2-1`, `ladder-boss.greedy-1`, a `local` account with a
fresh ticket), hosted to meet the other seat alone; the seat's seek is kept for the ladder
(`wants`) and never paired casually; once both seeks are there the match begins under the
ladder's time control, run by the live matches as every match is, stored with the same records,
replay and pages. Its result moves both ratings (`Ladder.record`), and the changes are stored
with the ratings they lead to in one transaction. A seat that does not seek within `wait`
seconds (its agent could not start, no worker was free, a bot went away) loses by default
(`absent`), as a tournament's no-show does (`tournament.default_absent`), and is rated so; if
neither came, the match is a double forfeit and nobody is rated.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from arbiter.games import Outcome, Termination, get_game
from arbiter.server.common import logs
from arbiter.server.connection.session import Session
from arbiter.server.play.defaults import DefaultKind, Illegal
from arbiter.server.play.hosted_submissions import pinned, run_of, seat_base
from arbiter.server.play.match import Match, store_outcome
from arbiter.server.play.seeks import Seek
from arbiter.server.play.workers import Hosting, NoWorker, Workers
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.ladder_rows import RatingChange, StoredLadder
from arbiter.server.storage.ladders import LadderSettings
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import SubmissionRow
from arbiter.server.tournaments.ladder import Entry, Ladder, LadderGame
from arbiter.server.tournaments.ladder_pairing import next_opening, pairings
from arbiter.server.tournaments.ladder_pool import BotPool
from arbiter.server.tournaments.ladder_ratings import Skill
from arbiter.server.tournaments.leagues import boss_entrant
from arbiter.server.tournaments.standings import GameResult
from arbiter.server.tournaments.tournament import (
    Desk,
    Seated,
    absences,
    default_absent,
    match_of_seeks,
)

log = logging.getLogger(__name__)

SEAT_PREFIX = "ladder-"
MAX_SEAT_BASE = 56
"""A seat's name is `ladder-` and the version's, cut to this, then `-N`: within a name's 64."""
LOOK_AGAIN_SECONDS = 5.0
"""How often the ladder looks for new or retired versions while no game ends."""
HOSTINGS_END_SECONDS = 30.0
"""How long after its game a seat's seeks are still kept (and never paired casually): its agent
plays one game, and a program that seeks again must not meet anyone."""
UNPLAYED_PAUSE_SECONDS = 5.0
"""How long a pair whose game one side did not come to rests: an agent that cannot start is
not hosted again at once."""


@dataclass(frozen=True, slots=True)
class _Player:
    """What a worker is asked to run for one entrant's seat."""

    base: str
    """The seat name's base: the version's (`alice.bot.v2`) or the boss's (`boss.greedy`)."""
    run: dict[str, Any]
    author: str | None
    """Whose submission it runs (None for a boss): who may read its log."""


class ServerLadder:
    """One ladder, played by the workers and the bots that joined it until it is stopped."""

    def __init__(self, desk: Desk, workers: Workers, settings: LadderSettings) -> None:
        self.desk = desk
        self.workers = workers
        self.settings = settings
        self.key = settings.scope.key
        self.ladder = Ladder([])
        self.versions: dict[str, SubmissionRow] = {}
        """The ready versions, by pinned name: entrants paired."""
        self.bosses: dict[str, str] = {}
        """The built-in agents of the game's leagues, by entrant name (`boss:greedy`): entrants
        paired too."""
        self.members: frozenset[str] | None = None
        """The accounts a section's ladder takes (its students); None: everyone."""
        self.bots = BotPool(desk.seeks, settings.game, self._wake)
        """The connected bots that joined: entrants while idle."""
        self._seats: set[str] = set()
        """The hosted seat names whose seeks are kept for this ladder."""
        self._busy: set[str] = set()
        self._rng = random.Random()
        self._ended = trio.Event()
        """Set (and replaced) when a game ends, a bot joins or the ladder stops: pairs may be
        drawn again."""
        self._stopping = False
        self.stopped = trio.Event()
        """Set once `run` has returned: its games are over."""

    def wants(self, player: str, game: str) -> bool:
        """Whether a seek of `player` for `game` is one of this ladder's seats' or joined bots'."""
        return game == self.settings.game and (player in self._seats or self.bots.keeps(player))

    def stop(self) -> None:
        """Draw no more pairs; `run` returns once the games in play are over."""
        self._stopping = True
        self._wake()

    def _wake(self) -> None:
        self._ended.set()
        self._ended = trio.Event()

    async def run(self) -> None:
        """Never lets an error out into the server's nursery: the log says what stopped it."""
        try:
            self.ladder = resumed(await self.desk.storage.load_ladder(self.key))
            logs.event(log, "ladder_started", ladder=self.key, rated=len(self.ladder.entries))
            async with trio.open_nursery() as games:
                while not self._stopping:
                    await self._look_at_entrants()
                    for first, second in self._draw():
                        self._busy |= {first, second}
                        games.start_soon(self._play_and_free, first, second)
                    with trio.move_on_after(self._pause()):
                        await self._next_change()
            logs.event(log, "ladder_stopped", ladder=self.key)
        except Exception:
            log.exception("the ladder %s stopped on a server error", self.key)
        finally:
            self.bots.leave_all()
            self.stopped.set()

    async def _next_change(self) -> None:
        """Return when a game ends, a bot joins, the ladder stops, or a kept seek arrives (a
        joined bot waits for a game)."""
        async with trio.open_nursery() as waiting:
            for wait in (self._ended.wait, self.desk.next_arrival):
                waiting.start_soon(_then_cancel, wait, waiting.cancel_scope)

    async def _look_at_entrants(self) -> None:
        storage, game = self.desk.storage, self.settings.game
        self.members = await storage.ladder_members(self.settings.scope)
        ready = await storage.submissions_with_status(SubmissionStatus.READY)
        self.versions = {
            pinned(row): row for row in ready if row.game == game and self._takes(row.author)
        }
        self.bosses = {
            boss_entrant(agent): agent
            for agent in (await storage.load_leagues(game)).bosses_of(self.settings.class_name)
        }
        self.bots.keep_only(self._keeps_bot)
        for name in [*self.versions, *self.bosses, *self.bots.sessions]:
            self.ladder.entries.setdefault(name, Entry(name))

    def _keeps_bot(self, account: str, session: Session) -> bool:
        """A bot stays in the pool while in this ladder's game, or connected, in no other match
        and (for a section's ladder) still of the section."""
        if account in self._busy:
            return True
        return not session.closed and not self.desk.arena.playing(session) and self._takes(account)

    def _takes(self, account: str) -> bool:
        return self.members is None or account in self.members

    def _draw(self) -> list[tuple[str, str]]:
        """Pairs for the free slots, among the ready versions, bosses and idle bots not in a
        game."""
        settings = self.settings
        paired = self.versions.keys() | self.bosses.keys() | self.bots.idle()
        resting = self._busy | (self.ladder.entries.keys() - paired)
        return pairings(
            self.ladder,
            self._rng,
            now=time.time(),
            per_hour=settings.per_hour,
            busy=resting,
            slots=settings.concurrency - len(self._busy) // 2,  # two busy entrants a game
        )

    def _pause(self) -> float:
        """How long until pairing may find something new: a game's end wakes it sooner."""
        if self.settings.per_hour is None:
            return LOOK_AGAIN_SECONDS
        now = time.time()
        opening = next_opening(self.ladder, now=now, per_hour=self.settings.per_hour)
        return min(LOOK_AGAIN_SECONDS, max(opening - now, 0.0))

    async def _play_and_free(self, first: str, second: str) -> None:
        try:
            await self._play(first, second)
        except StoreError as error:
            log.error("a %s ladder game could not be stored: %s", self.key, error)
        finally:
            self._busy -= {first, second}
            self._wake()

    async def _play(self, first: str, second: str) -> None:
        entrants = (first, second)
        players = [None if entrant in self.bots else self._player(entrant) for entrant in entrants]
        names = [
            self._seat_name(entrant, player)
            for entrant, player in zip(entrants, players, strict=True)
        ]
        hosted = {name for name, player in zip(names, players, strict=True) if player is not None}
        self._seats |= hosted
        hostings: list[Hosting] = []
        try:
            began = time.time()
            seeks = await self._gather(names, players, hostings)
            present = [seek for seek in seeks if seek is not None]
            if len(present) == 2:
                match_id, outcome, defaults = await self._play_match(present)
            else:
                match_id, outcome = await self._default_absent(names, hosted, seeks)
                defaults = absences(seeks)
            if present:
                result = GameResult(first, second, outcome.result.value, outcome.winner, defaults)
                await self._record(match_id, result, began)
            else:
                logs.event(log, "ladder_game_unplayed", ladder=self.key, match=match_id)
            if len(present) < 2:
                await trio.sleep(UNPLAYED_PAUSE_SECONDS)
        finally:
            with trio.move_on_after(HOSTINGS_END_SECONDS):
                for hosting in hostings:
                    await hosting.ended.wait()
            self._seats -= hosted
            for name in hosted:
                self.desk.seeks.release_seeks(name, self.settings.game)

    def _seat_name(self, entrant: str, player: _Player | None) -> str:
        """A joined bot (no `player` to host) plays under its own name; a version or a boss
        under a fresh seat name."""
        if player is None:
            return entrant
        return self.workers.free_name(f"{SEAT_PREFIX}{player.base}"[:MAX_SEAT_BASE])

    def _player(self, entrant: str) -> _Player:
        """How `entrant` is hosted: a version as its submission, a boss as the worker's
        built-in agent (as a tournament's `local` entrant is)."""
        if entrant in self.bosses:
            agent = self.bosses[entrant]
            run = {"kind": "agent", "agent": agent, "seed": self._rng.getrandbits(31)}
            return _Player(f"boss.{agent}", run, None)
        row = self.versions[entrant]
        return _Player(seat_base(row), run_of(row), row.author)

    async def _gather(
        self, names: Sequence[str], players: Sequence[_Player | None], hostings: list[Hosting]
    ) -> list[Seek | None]:
        """Both seats' kept seeks, taken together once both are there (each `player` hosted
        first); after `wait` seconds, or once a hosted seat's agent ended, whichever is there."""
        game, seeks = self.settings.game, self.desk.seeks
        with trio.move_on_after(self.settings.wait):
            for seat, player in enumerate(players):
                if player is not None:
                    hostings.append(await self._host(names[seat], player, names[1 - seat]))
            while not all(seeks.kept_seek(name, game) for name in names):
                if any(hosting.ended.is_set() for hosting in hostings):
                    break
                with trio.move_on_after(1.0):  # an agent's end does not announce an arrival
                    await self.desk.next_arrival()
        return [seeks.take_seek(name, game) for name in names]

    async def _host(self, name: str, player: _Player, opponent: str) -> Hosting:
        """A worker runs `player` as `name`, to meet `opponent` alone (waiting for a free
        slot)."""
        settings = self.settings
        while True:
            try:
                return await self.workers.host(
                    name,
                    settings.game,
                    settings.control,
                    player.run,
                    opponent=opponent,
                    author=player.author,
                )
            except NoWorker:
                await self.workers.wait_for_slot()

    async def _create_match(self, names: Sequence[str], cpu_seats: Sequence[bool]) -> Seated:
        """A new match of the ladder's game between `names`, stored."""
        settings, storage = self.settings, self.desk.storage
        rules = get_game(settings.game)
        options = rules.resolve_options(
            settings.options, fresh_seed=lambda: self._rng.getrandbits(31)
        )
        match_id = await storage.create_match(
            settings.game,
            options,
            settings.control.to_wire(),
            (Illegal.FORFEIT, Illegal.FORFEIT),  # as in tournaments: an illegal move loses
            rules.seats,
            list(names),
            clocks=["cpu" if cpu else "wall" for cpu in cpu_seats],
        )
        return Seated(match_id, rules, list(names), options)

    async def _open_match(self, seeks: list[Seek]) -> Match:
        """The match of two kept seeks, created, adopted by the live matches."""
        cpu_seats = [seek.session.hosted for seek in seeks]
        seated = await self._create_match([seek.session.name for seek in seeks], cpu_seats)
        match = match_of_seeks(
            Match,
            seated.match_id,
            seated.rules,
            seated.options,
            self.settings.control,
            seeks,
            self.desk,
        )
        self.desk.arena.adopt(match, [seek.session for seek in seeks])
        return match

    async def _play_match(
        self, seeks: list[Seek]
    ) -> tuple[int, Outcome, tuple[DefaultKind | None, DefaultKind | None]]:
        """The match of two kept seeks played to its end: its id, outcome and defaults."""
        match = await self._open_match(seeks)
        outcome = await self.desk.arena.run_match(match)
        if outcome is None:  # a server bug stopped the match: nobody's fault, nobody scores
            outcome = Outcome.both_forfeit(
                "the match stopped on a server error", Termination.SERVER_ERROR
            )
            await store_outcome(self.desk.storage, match.id, match.game.seats, outcome)
        return match.id, outcome, match.defaulted

    async def _default_absent(
        self, names: Sequence[str], hosted: set[str], seeks: Sequence[Seek | None]
    ) -> tuple[int, Outcome]:
        """The match a side did not come to, stored as lost by the absent side (or both)."""
        seated = await self._create_match(names, [name in hosted for name in names])
        settings = self.settings
        outcome = await default_absent(
            self.desk, seated, settings.control.to_wire(), seeks, settings.wait
        )
        return seated.match_id, outcome

    async def _record(self, match_id: int, result: GameResult, began: float) -> None:
        """Move both ratings by `result`, and store the changes."""
        changes = recorded(self.ladder, match_id, result, began)
        await self.desk.storage.record_ladder_game(self.key, changes)
        logs.event(
            log,
            "ladder_game_finished",
            ladder=self.key,
            match=match_id,
            first=result.first,
            second=result.second,
            result=result.result,
            winner=result.winner,
        )


def recorded(ladder: Ladder, match_id: int, result: GameResult, began: float) -> list[RatingChange]:
    """Move both ratings by `result` in `ladder`: the changes to store, one per seat."""
    entries = [ladder.entries[player] for player in result.players]
    before = [entry.skill for entry in entries]
    ladder.record(result, began)
    return [
        RatingChange(
            match_id,
            seat,
            entry.name,
            result.scores[seat],
            was.mu,
            was.sigma,
            entry.skill.mu,
            entry.skill.sigma,
            began,
        )
        for seat, (entry, was) in enumerate(zip(entries, before, strict=True))
    ]


async def _then_cancel(wait: Callable[[], Awaitable[object]], scope: trio.CancelScope) -> None:
    await wait()
    scope.cancel()


def resumed(stored: StoredLadder) -> Ladder:
    """The ladder as stored: each entrant's rating and games, and every game (for the cap of
    games an hour and the colours of each pair)."""
    ladder = Ladder([])
    for rating in stored.ratings:
        ladder.entries[rating.entrant] = Entry(
            rating.entrant, Skill(rating.mu, rating.sigma), rating.games
        )
    seats: dict[int, list[RatingChange]] = {}
    for change in stored.changes:
        seats.setdefault(change.match_id, []).append(change)
    for first, second in (both for both in seats.values() if len(both) == 2):
        ladder.games.append(LadderGame(_result(first, second), first.began_at))
    return ladder


def _result(first: RatingChange, second: RatingChange) -> GameResult:
    """A stored game's result, told from its two scores."""
    if first.score == second.score:
        kind = "draw" if first.score else "both_forfeit"
        return GameResult(first.entrant, second.entrant, kind, None)
    return GameResult(first.entrant, second.entrant, "win", 0 if first.score > second.score else 1)
