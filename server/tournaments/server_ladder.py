"""A server's ladder of one game: its entrants are every ready hosted submission version of the
game and the bosses of its leagues, paired continuously, each game an ordinary recorded match,
each result moving the two ratings, stored.

Theory of operation. `ServerLadder.run` reads the stored ratings (a restarted server goes on
from them), then loops: it reads which versions are ready (a new upload joins with the model's
first guess and a wide uncertainty, a retired one leaves the pairing and keeps its line), draws
up to `concurrency` pairs with `ladder_pairing.pairings` among the entrants not in a game and
under their cap of games an hour, and plays each pair in a task of its own.

The game's leagues (`leagues.py`) add their bosses as entrants of their own (`boss:greedy`),
rated like everyone: a league is earned against the boss's rating, so the boss must play.

A game is played as a tournament's hosted entrant is: a worker runs each version (or a boss's
built-in agent, as it runs a tournament's `local` entrant) under a seat name of its own
(`ladder-alice.bot.v2-1`, `ladder-boss.greedy-1`, a `local` account with a fresh ticket), hosted
to meet the other seat alone; the seat's seek is kept for the ladder (`wants`) and never paired
casually; once both seeks are there the match begins under the ladder's time control, run by the
live matches as every match is, stored with the same records, replay and pages. Its result moves
both ratings (`Ladder.record`), and the changes are stored with the ratings they lead to in one
transaction. A seat that does not seek within `wait` seconds (its agent could not start, no
worker was free) leaves the game unplayed: no match, no change, and the pair is drawn again
later like any other.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from arbiter.games import Outcome, Termination, get_game
from arbiter.protocol import TimeControl
from arbiter.server.common import logs
from arbiter.server.play.defaults import Illegal
from arbiter.server.play.hosted_submissions import pinned, run_of, seat_base
from arbiter.server.play.match import Match, store_outcome
from arbiter.server.play.seeks import Seek
from arbiter.server.play.workers import Hosting, NoWorker, Workers
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.ladder_rows import RatingChange, StoredLadder
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import SubmissionRow
from arbiter.server.tournaments.ladder import Entry, Ladder, LadderGame
from arbiter.server.tournaments.ladder_pairing import next_opening, pairings
from arbiter.server.tournaments.ladder_ratings import Skill
from arbiter.server.tournaments.leagues import boss_entrant
from arbiter.server.tournaments.standings import GameResult
from arbiter.server.tournaments.tournament import Desk, match_of_seeks

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
"""How long a pair whose game went unplayed rests: an agent that cannot start is not hosted
again at once."""


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """A ladder's terms: its game, time control, cap of games an hour per entrant, and games
    at once."""

    game: str
    control: TimeControl
    options: dict[str, Any] = field(default_factory=dict)
    """The options of every game (a seed left unset is drawn afresh for each)."""
    per_hour: int | None = None
    concurrency: int = 1
    wait: float = 60.0
    """Seconds a game waits for both seats to seek before it is left unplayed."""


@dataclass(frozen=True, slots=True)
class _Player:
    """What a worker is asked to run for one entrant's seat."""

    base: str
    """The seat name's base: the version's (`alice.bot.v2`) or the boss's (`boss.greedy`)."""
    run: dict[str, Any]
    author: str | None
    """Whose submission it runs (None for a boss): who may read its log."""


class ServerLadder:
    """One game's ladder, played by the workers until the server stops."""

    def __init__(self, desk: Desk, workers: Workers, settings: LadderSettings) -> None:
        self.desk = desk
        self.workers = workers
        self.settings = settings
        self.ladder = Ladder([])
        self.versions: dict[str, SubmissionRow] = {}
        """The ready versions, by pinned name: entrants paired."""
        self.bosses: dict[str, str] = {}
        """The built-in agents of the game's leagues, by entrant name (`boss:greedy`): entrants
        paired too."""
        self._seats: set[str] = set()
        """The seat names whose seeks are kept for this ladder."""
        self._busy: set[str] = set()
        self._rng = random.Random()
        self._ended = trio.Event()
        """Set (and replaced) when a game ends: pairs may be drawn again."""

    def wants(self, player: str, game: str) -> bool:
        """Whether a seek of `player` for `game` is one of this ladder's seats'."""
        return game == self.settings.game and player in self._seats

    async def run(self) -> None:
        """Never lets an error out into the server's nursery: the log says what stopped it."""
        try:
            self.ladder = resumed(await self.desk.storage.load_ladder(self.settings.game))
            logs.event(
                log, "ladder_started", game=self.settings.game, rated=len(self.ladder.entries)
            )
            async with trio.open_nursery() as games:
                while True:
                    await self._look_at_versions()
                    for first, second in self._draw():
                        self._busy |= {first, second}
                        games.start_soon(self._play_and_free, first, second)
                    with trio.move_on_after(self._pause()):
                        await self._ended.wait()
                    self._ended = trio.Event()
        except Exception:
            log.exception("the ladder of %s stopped on a server error", self.settings.game)

    async def _look_at_versions(self) -> None:
        ready = await self.desk.storage.submissions_with_status(SubmissionStatus.READY)
        self.versions = {pinned(row): row for row in ready if row.game == self.settings.game}
        leagues = await self.desk.storage.load_leagues(self.settings.game)
        self.bosses = {boss_entrant(agent): agent for agent in leagues.bosses}
        for name in [*self.versions, *self.bosses]:
            self.ladder.entries.setdefault(name, Entry(name))

    def _draw(self) -> list[tuple[str, str]]:
        """Pairs for the free slots, among the ready versions and bosses not in a game."""
        settings = self.settings
        paired = self.versions.keys() | self.bosses.keys()
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
            log.error("a %s ladder game could not be stored: %s", self.settings.game, error)
        finally:
            self._busy -= {first, second}
            self._ended.set()

    async def _play(self, first: str, second: str) -> None:
        players = (self._player(first), self._player(second))
        names = [
            self.workers.free_name(f"{SEAT_PREFIX}{player.base}"[:MAX_SEAT_BASE])
            for player in players
        ]
        self._seats |= set(names)
        hostings: list[Hosting] = []
        try:
            for seat, player in enumerate(players):
                hostings.append(await self._host(names[seat], player, names[1 - seat]))
            seeks = await self._gather(names, hostings)
            if seeks is None:
                logs.event(log, "ladder_game_unplayed", game=self.settings.game, players=names)
                await trio.sleep(UNPLAYED_PAUSE_SECONDS)
                return
            began = time.time()
            match = await self._open_match(seeks)
            outcome = await self.desk.arena.run_match(match)
            if outcome is None:  # a server bug stopped the match: nobody's fault, nobody scores
                outcome = Outcome.both_forfeit(
                    "the match stopped on a server error", Termination.SERVER_ERROR
                )
                await store_outcome(self.desk.storage, match.id, match.game.seats, outcome)
            result = GameResult(
                first, second, outcome.result.value, outcome.winner, match.defaulted
            )
            await self._record(match.id, result, began)
        finally:
            with trio.move_on_after(HOSTINGS_END_SECONDS):
                for hosting in hostings:
                    await hosting.ended.wait()
            self._seats -= set(names)
            for name in names:
                self.desk.seeks.release_seeks(name, self.settings.game)

    def _player(self, entrant: str) -> _Player:
        """How `entrant` is hosted: a version as its submission, a boss as the worker's
        built-in agent (as a tournament's `local` entrant is)."""
        if entrant in self.bosses:
            agent = self.bosses[entrant]
            run = {"kind": "agent", "agent": agent, "seed": self._rng.getrandbits(31)}
            return _Player(f"boss.{agent}", run, None)
        row = self.versions[entrant]
        return _Player(seat_base(row), run_of(row), row.author)

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

    async def _gather(self, names: Sequence[str], hostings: Sequence[Hosting]) -> list[Seek] | None:
        """Both seats' kept seeks, taken together once both are there; None if a seat's agent
        ended, or `wait` passed, first."""
        game, seeks = self.settings.game, self.desk.seeks
        with trio.move_on_after(self.settings.wait):
            while not all(seeks.kept_seek(name, game) for name in names):
                if any(hosting.ended.is_set() for hosting in hostings):
                    return None
                with trio.move_on_after(1.0):  # an agent's end does not announce an arrival
                    await self.desk.next_arrival()
            return [seek for name in names if (seek := seeks.take_seek(name, game)) is not None]
        return None

    async def _open_match(self, seeks: list[Seek]) -> Match:
        """The match of two kept seeks, created, adopted by the live matches."""
        settings, storage, arena = self.settings, self.desk.storage, self.desk.arena
        rules = get_game(settings.game)
        options = rules.resolve_options(
            settings.options, fresh_seed=lambda: self._rng.getrandbits(31)
        )
        cpu_seats = (seeks[0].session.hosted, seeks[1].session.hosted)
        match_id = await storage.create_match(
            settings.game,
            options,
            settings.control.to_wire(),
            (Illegal.FORFEIT, Illegal.FORFEIT),  # as in tournaments: an illegal move loses
            rules.seats,
            [seek.session.name for seek in seeks],
            clocks=["cpu" if cpu else "wall" for cpu in cpu_seats],
        )
        match = match_of_seeks(Match, match_id, rules, options, settings.control, seeks, self.desk)
        arena.adopt(match, [seek.session for seek in seeks])
        return match

    async def _record(self, match_id: int, result: GameResult, began: float) -> None:
        """Move both ratings by `result`, and store the changes."""
        entries = [self.ladder.entries[player] for player in result.players]
        before = [entry.skill for entry in entries]
        self.ladder.record(result, began)
        changes = [
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
        await self.desk.storage.record_ladder_game(self.settings.game, changes)
        logs.event(
            log,
            "ladder_game_finished",
            game=self.settings.game,
            match=match_id,
            first=result.first,
            second=result.second,
            result=result.result,
            winner=result.winner,
        )


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
