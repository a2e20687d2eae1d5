"""One match: a game's authoritative state from first move to result, and the task that keeps
its clock.

Everything that can happen to a match (a move, a resignation, a disconnect, a reconnect, a
hosted seat's worker lost) is an event handed to `Match.deliver` by the task that received it.
Handling an event never waits, and trio runs one task at a time, so events are handled whole, one
after another, in the order they arrive: no lock, and no hand-off to another task on the
per-move path. The match's own task only waits for the deadline of the move under way
(`server.play.turn`) and, at the end, stores and announces the result.

A move is checked by the game's own rules, stored, and only then announced, so a restarted
server never knows less than a client was told. Nothing waits for the commit: what a step has to
say goes through the match's `CommitGate` (`server.play.commit_gate`), which sends it once the move
is committed, one write per client per step. If a move cannot be stored (the store refuses it, or
stays out of reach), the match ends for everyone with a `game_over` that says so, showing the
moves that were stored (the others were never announced), and that end is stored as soon as the
store takes it (`Storage.finish_unstored`).

A seat whose connection drops keeps its seat for a grace period, its clock running; the same
client can take it back by reconnecting with its session token (`hello.resume`,
`server.play.seating`). A seat's hints (`server.play.hints`) let a move sent back as hinted skip
the rules' check; the spectators are the match's `Gallery` (`server.play.gallery`).

A match knows its clients only as `server.connection.peer.Peer`s (a name, a round trip, frames out),
so it can be driven by anything that sends frames, and does not depend on the connection's I/O.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import trio

from arbiter import protocol
from arbiter.games import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    Seat,
    State,
    Termination,
)
from arbiter.protocol import ErrorCode, SeatClock, TimeControl
from arbiter.server.common import logs
from arbiter.server.connection.peer import Peer
from arbiter.server.connection.stalls import StallMeter
from arbiter.server.play import messages
from arbiter.server.play.commit_gate import CommitGate
from arbiter.server.play.defaults import (
    DefaultKind,
    Illegal,
    cpu_report_refused,
    lost_by_default,
    time_loss,
)
from arbiter.server.play.gallery import Gallery
from arbiter.server.play.hints import Hints
from arbiter.server.play.messages import Ending, Positions, Table, wire_clocks
from arbiter.server.play.turn import Turn, TurnClock
from arbiter.server.storage.errors import NotStored

if TYPE_CHECKING:
    from arbiter.server.storage.interface import Storage

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MoveArrived:
    seat: Seat
    text: str
    at: float
    cpu: float | None = None
    """The CPU seconds the move cost, as the seat's worker measured them (a hosted seat's)."""


@dataclass(frozen=True, slots=True)
class CpuSpent:
    """The worker hosting this seat says its move under way has used `cpu` CPU seconds, past
    its allowance: the seat's agent never gets to move late, so a CPU clock is judged on CPU
    even when the wall-clock watchdog would have fired before the agent moved."""

    seat: Seat
    cpu: float
    at: float


@dataclass(frozen=True, slots=True)
class Resigned:
    seat: Seat


@dataclass(frozen=True, slots=True)
class Disconnected:
    seat: Seat


@dataclass(frozen=True, slots=True)
class Reconnected:
    seat: Seat
    session: Peer


@dataclass(frozen=True, slots=True)
class HostLost:
    """The agent hosted for this seat ended mid-game, or the worker hosting it is gone: the
    seat loses at once, with how it ended (the sandbox's sentence, or "worker lost"), since no
    one can take it back."""

    seat: Seat
    ending: str


@dataclass(frozen=True, slots=True)
class StorageFailed:
    error: BaseException


MatchEvent = (
    MoveArrived | CpuSpent | Resigned | Disconnected | Reconnected | HostLost | StorageFailed
)


UNSTORED = Outcome.both_forfeit(
    "the server could not store the game: it ends without a result", Termination.SERVER_ERROR
)
"""How a match ends when one of its moves, or its result, could not be stored."""


class _GoesOn(enum.Enum):
    GOES_ON = "goes on"


GOES_ON = _GoesOn.GOES_ON
"""What an event leaves when the turn continues (a refused retry, a disconnect, a reconnect)."""
TurnResult = Outcome | _GoesOn | None
"""An event's effect on the turn: the end, the turn goes on, or None (a move was accepted)."""


@dataclass(eq=False)
class MatchTerms:
    """What a match is made with: the game and its options, the time control, who plays each
    seat and on what terms, and where it is stored. `Match` adds how it is going."""

    id: int
    game: Game[Any, Any]
    options: dict[str, Any]
    control: TimeControl
    sessions: list[Peer]
    """Who plays each seat: a seat's client that reconnects takes its place, written by
    `server.play.seating`, the registry of who sits where."""
    hints: tuple[bool, bool]
    storage: Storage
    illegal: tuple[Illegal, Illegal] = (Illegal.FORFEIT, Illegal.FORFEIT)
    """What an illegal move costs each seat."""
    grace: float = 10.0
    cpu_seats: tuple[bool, bool] = (False, False)
    """Which seats a worker hosts: their moves are charged CPU seconds, under a watchdog."""
    stalls: StallMeter = field(default_factory=StallMeter)
    """The server's loop lateness, credited to each turn (a meter never started counts none)."""
    max_moves: int = protocol.MAX_ITEMS
    """A game that reaches this many moves is drawn by the referee: `game_over`, `watching` and
    `resumed` carry the whole move list, which a message bounds. Every game's rules end it
    sooner under any option (`Game.max_plies`, checked against this by
    tests/games/test_properties.py), so this is a net for a game whose bound would not fit."""


@dataclass(eq=False)
class Match(MatchTerms):
    """A match in play: its state, clocks, moves and spectators, the events it handles, and
    the task that keeps its clock (`run`)."""

    state: State[Any] = field(init=False)
    clocks: tuple[SeatClock, SeatClock] = field(init=False)
    moves: list[str] = field(default_factory=list)
    spectators: Gallery = field(default_factory=Gallery)
    outcome: Outcome | None = None
    defaulted: tuple[DefaultKind | None, DefaultKind | None] = (None, None)
    """Each seat's default kind, once it has defaulted (the standings count them)."""
    _gate: CommitGate = field(init=False, repr=False)
    """Every frame the match sends: held until the moves it announces are stored."""
    _clock: TurnClock = field(init=False, repr=False)
    """The move under way, the seats away, and the alarm the match's task waits in."""
    _early: list[MatchEvent] = field(default_factory=list, init=False, repr=False)
    """Events that came before the first turn, handled as it begins."""
    _failure: Exception | None = field(default=None, init=False, repr=False)
    _moves_before: int = field(default=0, init=False, repr=False)
    """The moves stored before this run (a tournament game resumed): the gate counts the rest."""
    _hints: Hints = field(init=False, repr=False)
    _positions: Positions = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.state = self.game.initial_state(self.options)
        self.clocks = (
            SeatClock(self.control, cpu=self.cpu_seats[0]),
            SeatClock(self.control, cpu=self.cpu_seats[1]),
        )
        # the gate's word that a move could not be stored ends the match
        self._gate = CommitGate(self.storage, lambda error: self.deliver(StorageFailed(error)))
        self._clock = TurnClock(self.grace, self.stalls)
        self._hints = Hints(self.game)
        self._positions = Positions(self.game)

    @property
    def players(self) -> list[str]:
        return [session.name for session in self.sessions]

    @property
    def away(self) -> dict[Seat, float]:
        """Seats whose connection dropped, with the end of their grace period."""
        return self._clock.away

    @property
    def turn(self) -> Turn | None:
        """The move under way, while the match is in play."""
        return None if self.outcome is not None else self._clock.turn

    def deliver(self, event: MatchEvent) -> None:
        """Handle one event now, in the caller's task (it never blocks); ignored once over."""
        if self.outcome is not None or self._failure is not None:
            return
        turn = self._clock.turn
        if turn is None:
            self._early.append(event)
            return
        try:
            result = self._handle(turn, event)
            if result is None:
                self._next_turn()
            elif result is not GOES_ON:
                self._end(result)
            else:
                self._clock.set_alarm()
        except Exception as error:  # a bug or a lost write stops this match, not the caller
            self._failure = error
            self._clock.stop()
            return
        self._gate.flush()

    def add_spectator(self, session: Peer, since: int | None = None) -> bool:
        """Show the match so far to a new spectator, who then sees each move as played (the
        moves from about `since` on, for one that knows the earlier ones); False (nothing
        sent) for one that already watches."""
        if not self.spectators.add(session):
            return False
        self._gate.tell(session, self.snapshot(since))
        self._gate.flush()
        return True

    def snapshot(self, since: int | None = None) -> protocol.Encoded:
        """The `watching` frame of the match as it stands, from about move `since` on, built
        and encoded once per move (and per change of a player's name) however many spectators
        it is shown to."""
        shows, start = (len(self.moves), *self.players), messages.snapshot_start(since, self.moves)
        return self.spectators.snapshot(
            shows, start, lambda: messages.watching(self.table(), start)
        )

    async def run(self) -> Outcome:
        """Play the match to its end and record the result."""
        _log_started(self)
        table = self.table()
        for seat, session in enumerate(self.sessions):
            started = messages.match_started(table, seat, self.hints[seat], self.illegal[seat])
            self._gate.tell(session, started)
            if session.closed:
                self._clock.left(seat, trio.current_time())
        self._moves_before = len(self.moves)
        with self._clock.first_wait():
            self._next_turn()
            self._gate.flush()
            early, self._early = self._early, []
            for event in early:
                self.deliver(event)
            await trio.sleep_forever()  # events arrive through `deliver`
        expired = await self._clock.expired(self._over)  # the alarm rang
        if expired is not None:
            self.outcome = self._out_of_time(*expired)
        if self._failure is not None:
            raise self._failure
        assert self.outcome is not None
        return await self._finish(self.outcome)

    def _next_turn(self) -> None:
        """Ask the seat to move, or end the match if the position says it is over."""
        outcome = self._position_ending()
        if outcome is not None:
            self._end(outcome)
            return
        seat = self.state.turn
        turn = self._clock.begin(seat, self.clocks[seat], self.sessions[seat].rtt)
        away = seat in self.away
        if not away:
            message = self._your_turn_message(seat, turn)
            # the move's time counts from the write; the alarm stays as it is: the deadline only
            # moves later, and an early alarm just finds it and waits again
            self._gate.tell(self.sessions[seat], message, turn.start)
        self._gate.on_release(partial(self._turn_released, turn, away))

    def _position_ending(self) -> Outcome | None:
        """How the position ends the match, if it does: by the game's rules, or drawn by the
        referee at `max_moves`."""
        outcome, moves = self._positions.outcome(self.state), len(self.moves)
        if outcome is None and moves >= self.max_moves:
            return Outcome.draw(f"{moves} moves were played, the most a message can carry: drawn")
        return outcome

    def _turn_released(self, turn: Turn, away: bool, now: float) -> None:
        """`your_turn` went out (or would have, for a seat away): its deadline runs from now."""
        if self._clock.released(turn, away, now) and self.outcome is None:
            self._clock.set_alarm()

    def _over(self) -> bool:
        return self.outcome is not None or self._failure is not None

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self._clock.stop()

    def _out_of_time(self, seat: Seat, away: bool) -> Outcome:
        if away:
            return self._default(seat, DefaultKind.CRASH, "disconnected")
        reason = time_loss(self.control, self.clocks[seat], self.game.seats[seat])
        turn = self._clock.turn
        if turn is not None:  # the final clocks show the time the move used up
            turn.clock.charge(turn.elapsed(trio.current_time()), turn.lag)
        return self._default(seat, DefaultKind.TIME, reason)

    def _handle(self, turn: Turn, event: MatchEvent) -> TurnResult:
        """React to one event during a turn."""
        seat = turn.seat
        match event:
            case StorageFailed():
                return UNSTORED
            case Disconnected(seat=gone):
                if self.grace <= 0:
                    return self._default(gone, DefaultKind.CRASH, "disconnected")
                self._clock.left(gone, trio.current_time())
            case Reconnected(seat=back, session=session):
                self._take_back(back, session, turn if back == seat else None)
            case Resigned(seat=quitter):
                return Outcome.win(
                    1 - quitter, f"{self.game.seats[quitter]} resigned", Termination.RESIGNATION
                )
            case MoveArrived(seat=other, text=text) if other != seat:
                if self.illegal[other] == Illegal.FORFEIT:
                    return self._default(other, DefaultKind.ILLEGAL, f"move out of turn ({text})")
                self._refuse(other, text, ErrorCode.NOT_YOUR_TURN, "it is not your turn")
            case MoveArrived(text=text, at=at, cpu=cpu):
                return self._try_move(seat, turn, text, turn.elapsed(at), cpu)
            case CpuSpent(seat=spender, cpu=cpu, at=at):
                return self._cpu_spent(spender, turn, cpu, turn.elapsed(at))
            case HostLost(seat=lost, ending=ending):
                return self._default(lost, DefaultKind.CRASH, f"{self.game.seats[lost]}: {ending}")
        return GOES_ON

    def _take_back(self, seat: Seat, session: Peer, turn: Turn | None) -> None:
        """A reconnected client resumes its seat (`server.play.seating` seated it): the whole
        match, then its turn if it is one."""
        self.away.pop(seat, None)
        table, hints, illegal = self.table(), self.hints[seat], self.illegal[seat]
        clocks, to_move = wire_clocks(self.control, self.clocks), turn is not None
        self._gate.tell(session, messages.resumed(table, seat, hints, illegal, clocks, to_move))
        if turn is not None:
            self._gate.tell(session, self._your_turn_message(seat, turn))

    def _try_move(
        self, seat: Seat, turn: Turn, text: str, elapsed: float, cpu: float | None
    ) -> TurnResult:
        try:
            after, notation = self._hints.play(self.state, text)
        except (InvalidMoveError, IllegalMoveError) as error:
            invalid = isinstance(error, InvalidMoveError)
            code = ErrorCode.INVALID_MOVE if invalid else ErrorCode.ILLEGAL_MOVE
            reason = clip(str(error))
            self._refuse(seat, text, code, reason)
            if self.illegal[seat] == Illegal.FORFEIT:
                return self._default(seat, DefaultKind.ILLEGAL, reason)
            return GOES_ON
        charge = turn.clock.charge(elapsed, turn.lag, cpu)
        if not charge.in_time:
            return self._default(
                seat,
                DefaultKind.TIME,
                time_loss(self.control, self.clocks[seat], self.game.seats[seat], charge.cpu),
            )
        self.state = after
        self._hints.forget()
        self.moves.append(notation)
        name, compensation = self.game.seats[seat], charge.compensation
        stored = (self.id, after.ply, name, notation, elapsed, compensation, charge.clock_after)
        self._gate.depends_on(self.storage.record_move(*stored, charge.cpu))
        clocks, position = wire_clocks(self.control, self.clocks), self._positions.of(self.state)
        played = (self.id, after.ply, notation, elapsed, compensation, clocks, position)
        self._gate.tell(self.sessions[seat], messages.move_accepted(*played))
        moved = messages.opponent_moved(name, *played)
        for session in (self.sessions[1 - seat], *self.spectators):
            self._gate.tell(session, moved)
        return None

    def _cpu_spent(self, seat: Seat, turn: Turn, cpu: float, elapsed: float) -> TurnResult:
        """The seat's worker says its move used `cpu` CPU seconds: a time loss if that is past
        the allowance of the CPU-clocked move under way; else refused, and the turn goes on."""
        clock = self.clocks[seat]
        refusal = cpu_report_refused(clock, seat == turn.seat, cpu)
        if refusal is not None:
            code, reason = refusal
            error = protocol.Error(code=code, message=reason, ref="out_of_cpu", match=self.id)
            self._gate.tell(self.sessions[seat], error)
            return GOES_ON
        charge = turn.clock.charge(elapsed, turn.lag, cpu)  # the final clocks show it
        reason = time_loss(self.control, clock, self.game.seats[seat], charge.cpu)
        return self._default(seat, DefaultKind.TIME, reason)

    def _refuse(self, seat: Seat, text: str, code: ErrorCode, reason: str) -> None:
        self._gate.tell(self.sessions[seat], messages.move_refused(self.id, text, code, reason))

    def _default(self, seat: Seat, kind: DefaultKind, reason: str) -> Outcome:
        """The seat loses by default; `kind` is for standings, `reason` for people. The kind is
        stored with the result, in the same transaction (`Storage.note_default`)."""
        self.storage.note_default(self.id, seat, kind)
        self.defaulted = (kind, None) if seat == 0 else (None, kind)
        seat_name, player = self.game.seats[seat], self.sessions[seat].name
        logs.event(log, "seat_defaulted", match=self.id, seat=seat_name, player=player, kind=kind)
        return lost_by_default(seat, kind, reason)

    async def _finish(self, outcome: Outcome) -> Outcome:
        """Store the result, then announce it, after every move; or, if a move or the result
        could not be stored, announce the end `UNSTORED` and have it stored when it can be."""
        self.outcome = outcome
        await self._gate.drain()  # the result is announced after every move
        failure = self._gate.lost_write
        if failure is None:
            try:
                await store_outcome(self.storage, self.id, self.game.seats, outcome)
            except NotStored as error:
                failure = error
        if failure is not None:
            outcome = self.outcome = UNSTORED
            self._forget_unstored_moves()
            self.storage.finish_unstored(self.id, outcome.reason, len(self.moves))
            log.error("match %d ends: the server could not store it (%s)", self.id, failure)
        over = _announced_end(self, outcome)
        for session in (*self.sessions, *self.spectators):
            self._gate.tell(session, over)
        self._gate.flush()  # nothing is held after the drain: sent at once
        return outcome

    def _forget_unstored_moves(self) -> None:
        """Keep only the moves that were stored, in order (all a client was told of)."""
        stored = self._moves_before + self._gate.stored
        if stored < len(self.moves):
            del self.moves[stored:]
            self.state = self.game.replay(self.options, self.moves)

    def table(self) -> Table:
        """The match as its messages describe it, as it stands."""
        time, position = self.control.to_wire(), self._positions.of(self.state)
        return Table(self.id, self.game, self.players, self.options, time, position, self.moves)

    def _your_turn_message(self, seat: Seat, turn: Turn) -> protocol.Trusted:
        legal = self._hints.offer(self.state) if self.hints[seat] else None
        time_left = turn.time_left(trio.current_time())
        position, clocks = self._positions.of(self.state), wire_clocks(self.control, self.clocks)
        return messages.your_turn(self.id, self.state.ply, position, legal, time_left, clocks)


def _announced_end(match: Match, outcome: Outcome) -> protocol.GameOver:
    """The `game_over` of `match` ended by `outcome`, logged."""
    clocks_ms = messages.in_ms(wire_clocks(match.control, match.clocks))
    judged_by = [clock.kind for clock in match.clocks]
    ending = Ending.of(outcome, match.game.seats, clocks_ms, judged_by)
    _log_ended(match, ending)
    return messages.game_over(match.table(), ending)


def _log_started(match: Match) -> None:
    logs.event(
        log,
        "match_started",
        match=match.id,
        game=match.game.name,
        players=match.players,
        time=match.control.describe(),
        illegal=match.illegal,
        moves=len(match.moves),  # more than 0: a tournament game resumed after a restart
    )


def _log_ended(match: Match, ending: Ending) -> None:
    logs.event(
        log,
        "match_ended",
        match=match.id,
        result=ending.result,
        winner=ending.winner or "",
        termination=ending.termination or "",
        moves=len(match.moves),
        reason=ending.reason,
    )


async def store_outcome(
    storage: Storage, match_id: int, seats: Sequence[str], outcome: Outcome
) -> None:
    """Store how a match ended: its result, winner, reason, termination and both scores."""
    ending = Ending.of(outcome, seats)
    await storage.finish_match(
        match_id,
        ending.result,
        ending.winner,
        ending.reason,
        outcome.termination,
        [outcome.score(seat) for seat in (0, 1)],
    )


def clip(sentence: str, limit: int = 1000) -> str:
    """A sentence short enough for a protocol `reason` field (1024 characters)."""
    return sentence if len(sentence) <= limit else sentence[: limit - 3] + "..."
