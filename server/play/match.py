"""One match: a game's authoritative state from first move to result, and the task that keeps
its clock.

Everything that can happen to a match (a move, a resignation, a disconnect, a reconnect) is an
event handed to `Match.deliver` by the task that received it. Handling an event never waits, and
trio runs one task at a time, so events are handled whole, one after another, in the order they
arrive: no lock, and no hand-off to another task on the per-move path. The match's own task only
waits for the deadline of the move under way (a cancel scope, never a polling loop) and, at the
end, stores and announces the result.

A move is checked by the game's own rules, stored, and only then announced, so a restarted
server never knows less than a client was told. Nothing waits for the commit: what a step has to
say goes through the match's `CommitGate` (`server.play.commit_gate`), which sends it once the move
is committed, one write per client per step. If a move cannot be stored (the store refuses it, or
stays out of reach), the match ends for everyone with a `game_over` that says so, showing the
moves that were stored (the others were never announced), and that end is stored as soon as the
store takes it (`Storage.finish_unstored`).

Thinking time runs from the moment `your_turn` has been written to the mover's socket until the
move frame has arrived whole (DESIGN.md). Whoever writes `your_turn` stamps the first instant and
moves the deadline; the reader stamps the second. What a move may cost and what it did cost is
`protocol`'s pure time-control arithmetic (protocol/_time_control.py).

A seat whose connection drops keeps its seat for a grace period, its clock running; the same
client can take it back by reconnecting with its session token (`hello.resume`).

A match knows its clients only as `server.connection.peer.Peer`s (a name, a round trip, frames out),
so it can be driven by anything that sends frames, and does not depend on the connection's I/O.
"""

from __future__ import annotations

import enum
import logging
import math
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
from arbiter.server.play.commit_gate import CommitGate
from arbiter.server.play.defaults import DefaultKind, lost_by_default
from arbiter.server.storage.interface import StorageError

if TYPE_CHECKING:
    from arbiter.server.storage.interface import Storage

log = logging.getLogger(__name__)

MAX_HINT_CHARACTERS = 32 * 1024
"""Hints are left out (legal = None) beyond this: a contrived King's Court position can have
225,000 jump routes, and `your_turn` must fit a 64 KiB frame. Real positions stay far below (an
Amazons opening lists 2,176 moves in about 20 KB)."""


@dataclass(frozen=True, slots=True)
class MoveArrived:
    seat: Seat
    text: str
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
class StorageFailed:
    error: BaseException


MatchEvent = MoveArrived | Resigned | Disconnected | Reconnected | StorageFailed


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


class Turn:
    """One seat's turn: when its clock started and the deadline for its move.

    There is no deadline until the commit gate releases `your_turn` to the connection
    (`release`): until then it waits for the commit of the move before it, and a storage that
    is slow, stalled or restarting is the server's delay, not the player's. From the release
    the deadline counts, so a client that does not read cannot stall the match; the write then
    moves it to count from the write (`start`). A seat that is away has nothing to write: its
    clock starts at the release.

    The server's own stalls during the turn (`server.connection.stalls`) are not the player's: they
    are taken off the thinking time and added to the deadline.
    """

    __slots__ = ("clock", "deadline", "lag", "seat", "stalls", "stalls_before", "started")

    def __init__(self, seat: Seat, clock: SeatClock, lag: float, stalls: StallMeter) -> None:
        self.seat = seat
        self.clock = clock
        self.lag = lag  # the mover's round trip when asked: the same figure decides and charges
        self.started: float | None = None
        self.deadline = math.inf
        self.stalls = stalls
        self.stalls_before = 0.0

    def release(self, now: float) -> None:
        self.deadline = self.clock.deadline_after(now, self.lag)
        self.stalls_before = self.stalls.stalled(now)

    def start(self, written_at: float) -> None:
        self.started = written_at
        self.deadline = self.clock.deadline_after(written_at, self.lag)
        self.stalls_before = self.stalls.stalled(written_at)

    def stalled(self, now: float) -> float:
        """Seconds the server's loop has been late since the turn's clock started."""
        return self.stalls.stalled(now) - self.stalls_before

    def elapsed(self, arrived_at: float) -> float:
        """Thinking time, the server's stalls left out; 0 for a move that arrived before its
        `your_turn` was written."""
        if self.started is None:
            return 0.0
        return max(0.0, arrived_at - self.started - self.stalled(arrived_at))

    def due(self, now: float) -> float:
        """The deadline, moved on by the server's stalls so far."""
        return self.deadline + self.stalled(now)

    def time_left(self, now: float) -> float:
        return max(0.0, min(self.clock.allowance(), self.deadline - now))


@dataclass(eq=False)
class Match:
    id: int
    game: Game[Any, Any]
    options: dict[str, Any]
    control: TimeControl
    sessions: list[Peer]
    """Who plays each seat: replaced when a seat's client reconnects."""
    hints: tuple[bool, bool]
    storage: Storage
    illegal: tuple[str, str] = ("forfeit", "forfeit")
    """What an illegal move costs each seat: the game (`forfeit`) or only the move (`retry`)."""
    grace: float = 10.0
    stalls: StallMeter = field(default_factory=StallMeter)
    """The server's loop lateness, credited to each turn (a meter never started counts none)."""
    max_moves: int = protocol.MAX_ITEMS
    """A game that reaches this many moves is drawn by the referee: `game_over`, `watching` and
    `resumed` carry the whole move list, which a message bounds. Every game's rules end it
    sooner under any option (`Game.max_plies`, checked against this by
    tests/games/test_properties.py), so this is a net for a game whose bound would not fit."""
    state: State[Any] = field(init=False)
    clocks: tuple[SeatClock, SeatClock] = field(init=False)
    moves: list[str] = field(default_factory=list)
    spectators: set[Peer] = field(default_factory=set)
    away: dict[Seat, float] = field(default_factory=dict)
    """Seats whose connection dropped, with the end of their grace period."""
    outcome: Outcome | None = None
    defaulted: tuple[DefaultKind | None, DefaultKind | None] = (None, None)
    """Each seat's default kind, once it has defaulted (the standings count them)."""
    _gate: CommitGate = field(init=False, repr=False)
    """Every frame the match sends: held until the moves it announces are stored."""
    _turn: Turn | None = field(default=None, init=False, repr=False)
    """The move under way; None until the match task has asked for the first one."""
    _early: list[MatchEvent] = field(default_factory=list, init=False, repr=False)
    """Events that came before the first turn, handled as it begins."""
    _alarm: trio.CancelScope = field(default_factory=trio.CancelScope, init=False, repr=False)
    """The match task waits in this scope; the end of the match cancels it. Its deadline is
    never later than the move's (or an away seat's grace period's), but may be earlier: it is
    only ever brought forward, so a move costs no timer update (each would be a trio deadline
    change), and a wake-up that finds the deadline moved on just waits again."""
    _failure: Exception | None = field(default=None, init=False, repr=False)
    _moves_before: int = field(default=0, init=False, repr=False)
    """The moves stored before this run (a tournament game resumed): the gate counts the rest."""
    _snapshot: tuple[tuple[object, ...], protocol.Encoded] | None = field(
        default=None, init=False, repr=False
    )
    """The last `snapshot`, with the move count and players it shows."""
    _shown: tuple[State[Any], protocol.Position] | None = field(
        default=None, init=False, repr=False
    )
    """The position as it stands, with the state it was computed from: built once per move for
    every frame that shows it (the mover's, the opponent's, the spectators', the next turn's)."""
    _hinted: tuple[Sequence[str], Sequence[Any]] = field(default=((), ()), init=False, repr=False)
    """The position's legal moves and their texts, when they went out as hints: a move sent
    back as hinted is known legal, and needs neither parsing nor checking. (Two lists rather
    than a dict: one lookup per move does not repay building a dict of every move.)"""

    def __post_init__(self) -> None:
        self.state = self.game.initial_state(self.options)
        self.clocks = (SeatClock(self.control), SeatClock(self.control))
        self._gate = CommitGate(self.storage, self._storage_failed)

    @property
    def players(self) -> list[str]:
        return [session.name for session in self.sessions]

    def deliver(self, event: MatchEvent) -> None:
        """Handle one event now, in the caller's task (it never blocks); ignored once over."""
        if self.outcome is not None or self._failure is not None:
            return
        if self._turn is None:
            self._early.append(event)
            return
        try:
            result = self._handle(self._turn, event)
            if result is None:
                self._next_turn()
            elif result is not GOES_ON:
                self._end(result)
            else:
                self._set_alarm()
        except Exception as error:  # a bug or a lost write stops this match, not the caller
            self._failure = error
            self._alarm.cancel()
            return
        self._gate.flush()

    def add_spectator(self, session: Peer) -> bool:
        """Show the match so far to a new spectator, who then sees each move as played; False
        (nothing sent) for one that already watches."""
        if session in self.spectators:
            return False
        self.spectators.add(session)
        self._gate.tell(session, self.snapshot())
        self._gate.flush()
        return True

    def snapshot(self) -> protocol.Encoded:
        """The `watching` frame of the match as it stands, built and encoded once per move
        (and per change of a player's name) however many spectators it is shown to."""
        key = (len(self.moves), *self.players)
        if self._snapshot is None or self._snapshot[0] != key:
            self._snapshot = (key, protocol.Encoded(self.watching_message()))
        return self._snapshot[1]

    async def run(self) -> Outcome:
        """Play the match to its end and record the result."""
        logs.event(
            log,
            "match_started",
            match=self.id,
            game=self.game.name,
            players=self.players,
            time=self.control.describe(),
            illegal=self.illegal,
            moves=len(self.moves),  # more than 0: a tournament game resumed after a restart
        )
        for seat, session in enumerate(self.sessions):
            self._gate.tell(session, self._started_message(seat))
            if session.closed:
                self.away[seat] = trio.current_time() + self.grace
        self._moves_before = len(self.moves)
        with self._alarm:
            self._next_turn()
            self._gate.flush()
            early, self._early = self._early, []
            for event in early:
                self.deliver(event)
            await trio.sleep_forever()  # events arrive through `deliver`
        while self.outcome is None and self._failure is None:  # the alarm rang
            assert self._turn is not None
            due = self._due()
            if trio.current_time() >= due:
                self.outcome = self._out_of_time(self._turn.seat)
                break
            with trio.CancelScope(deadline=due) as self._alarm:
                await trio.sleep_forever()
        if self._failure is not None:
            raise self._failure
        assert self.outcome is not None
        return await self._finish(self.outcome)

    def _next_turn(self) -> None:
        """Ask the seat to move, or end the match if the position says it is over."""
        outcome = self.state.outcome()
        if outcome is None and len(self.moves) >= self.max_moves:
            outcome = Outcome.draw(
                f"{len(self.moves)} moves were played, the most a message can carry: drawn"
            )
        if outcome is not None:
            self._end(outcome)
            return
        seat = self.state.turn
        turn = self._turn = Turn(seat, self.clocks[seat], self.sessions[seat].rtt, self.stalls)
        away = seat in self.away
        if not away:
            message = self._your_turn_message(seat, turn)
            self._gate.tell(self.sessions[seat], message, partial(self._turn_started, turn))
        self._gate.on_release(partial(self._turn_released, turn, away))

    def _turn_released(self, turn: Turn, away: bool, now: float) -> None:
        """`your_turn` goes to the connection (or, for a seat away, would): the deadline runs
        from now, and the alarm is brought forward to it (the one timer update of a move)."""
        turn.release(now)
        if away:
            turn.start(now)
        if turn is self._turn and self.outcome is None:
            self._set_alarm()

    def _turn_started(self, turn: Turn, written_at: float) -> None:
        """`your_turn` is on the wire: the move's time counts from now. The alarm stays as it
        is: the deadline only moves later, and an early alarm just finds it and waits again."""
        turn.start(written_at)

    def _due(self) -> float:
        """When the match must act if nothing arrives: the move's deadline or a grace period's
        end."""
        assert self._turn is not None
        due = self._turn.due(trio.current_time())
        return min(due, *self.away.values()) if self.away else due

    def _set_alarm(self) -> None:
        due = self._due()
        if due < self._alarm.deadline:
            self._alarm.deadline = due

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self._alarm.cancel()

    def _out_of_time(self, seat: Seat) -> Outcome:
        now = trio.current_time()
        for gone, until in self.away.items():
            if now >= until:
                return self._default(gone, DefaultKind.CRASH, "disconnected")
        reason = self._timeout_reason(seat)
        if self._turn is not None:  # the final clocks show the time the move used up
            self._turn.clock.charge(self._turn.elapsed(now), self._turn.lag)
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
                self.away[gone] = trio.current_time() + self.grace
            case Reconnected(seat=back, session=session):
                self._take_back(back, session, turn if back == seat else None)
            case Resigned(seat=quitter):
                return Outcome.win(
                    1 - quitter, f"{self.game.seats[quitter]} resigned", Termination.RESIGNATION
                )
            case MoveArrived(seat=other, text=text) if other != seat:
                if self.illegal[other] == "forfeit":
                    return self._default(other, DefaultKind.ILLEGAL, f"move out of turn ({text})")
                self._refuse(other, text, ErrorCode.NOT_YOUR_TURN, "it is not your turn")
            case MoveArrived(text=text, at=at):
                return self._try_move(seat, turn, text, turn.elapsed(at))
        return GOES_ON

    def _take_back(self, seat: Seat, session: Peer, turn: Turn | None) -> None:
        """A reconnected client resumes its seat: the whole match, then its turn if it is one."""
        self.sessions[seat] = session
        self.away.pop(seat, None)
        self._gate.tell(session, self._resumed_message(seat, to_move=turn is not None))
        if turn is not None:
            self._gate.tell(session, self._your_turn_message(seat, turn))

    def _try_move(self, seat: Seat, turn: Turn, text: str, elapsed: float) -> TurnResult:
        try:
            after, notation = self._play_text(text)
        except (InvalidMoveError, IllegalMoveError) as error:
            code = ErrorCode.ILLEGAL_MOVE
            if isinstance(error, InvalidMoveError):
                code = ErrorCode.INVALID_MOVE
            reason = clip(str(error))
            self._refuse(seat, text, code, reason)
            if self.illegal[seat] == "forfeit":
                return self._default(seat, DefaultKind.ILLEGAL, reason)
            return GOES_ON
        charge = turn.clock.charge(elapsed, turn.lag)
        if not charge.in_time:
            return self._default(seat, DefaultKind.TIME, self._timeout_reason(seat))
        self.state = after
        self._hinted = ((), ())
        self.moves.append(notation)
        name = self.game.seats[seat]
        self._gate.depends_on(
            self.storage.record_move(
                self.id, after.ply, name, notation, elapsed, charge.compensation, charge.clock_after
            )
        )
        clocks = self._clocks()
        position = self._position()
        self._gate.tell(
            self.sessions[seat],
            protocol.MoveAccepted(
                match=self.id,
                ply=after.ply,
                move=notation,
                elapsed=elapsed,
                compensation=charge.compensation,
                clocks=clocks,
                position=position,
            ),
        )
        message = protocol.OpponentMoved(
            match=self.id,
            ply=after.ply,
            seat=name,
            move=notation,
            elapsed=elapsed,
            compensation=charge.compensation,
            clocks=clocks,
            position=position,
        )
        # encoded once for all its watchers, not once a connection
        moved = protocol.Encoded(message) if self.spectators else message
        for session in (self.sessions[1 - seat], *self.spectators):
            self._gate.tell(session, moved)
        return None

    def _play_text(self, text: str) -> tuple[State[Any], str]:
        """The position after the move `text` names, and the move's canonical notation, or
        `InvalidMoveError`/`IllegalMoveError`. A text sent back exactly as hinted is known legal
        and canonical already: it is played without parsing or checking."""
        texts, moves = self._hinted
        try:
            move = moves[texts.index(text)]
        except ValueError:
            move, after = self.game.apply_text(self.state, text)
            return after, self.game.format_move(move)
        return self.state.play(move), text

    def _refuse(self, seat: Seat, text: str, code: ErrorCode, reason: str) -> None:
        self._gate.tell(
            self.sessions[seat],
            protocol.MoveRefused(match=self.id, move=text, code=code, reason=reason),
        )

    def _default(self, seat: Seat, kind: DefaultKind, reason: str) -> Outcome:
        """The seat loses by default; `kind` is for standings, `reason` for people. The kind is
        stored with the result, in the same transaction (`Storage.note_default`)."""
        self.storage.note_default(self.id, seat, kind)
        self.defaulted = (kind, None) if seat == 0 else (None, kind)
        seat_name, player = self.game.seats[seat], self.sessions[seat].name
        logs.event(log, "seat_defaulted", match=self.id, seat=seat_name, player=player, kind=kind)
        return lost_by_default(seat, kind, reason)

    def _timeout_reason(self, seat: Seat) -> str:
        """`white ran out of time (10 s per move)`: who, and which limit (the move's when it
        was the shorter)."""
        remaining = self.clocks[seat].remaining
        per_move = self.control.move is not None and (
            remaining is None or self.control.move <= remaining
        )
        return self.control.time_loss(self.game.seats[seat], per_move)

    def _clocks(self) -> list[float] | None:
        if self.control.clock is None:
            return None
        return [clock.remaining or 0.0 for clock in self.clocks]

    def _clocks_ms(self) -> list[int] | None:
        clocks = self._clocks()
        return None if clocks is None else [round(seconds * 1000) for seconds in clocks]

    def _position(self) -> protocol.Position:
        """The position as it stands and the seat to move in it, computed once per state."""
        if self._shown is None or self._shown[0] is not self.state:
            state = self.state
            to_move = None if state.is_over() else self.game.seats[state.turn]
            self._shown = (state, protocol.Position(state.to_data(), to_move))
        return self._shown[1]

    async def _finish(self, outcome: Outcome) -> Outcome:
        """Store the result, then announce it, after every move; or, if a move or the result
        could not be stored, announce the end `UNSTORED` and have it stored when it can be."""
        self.outcome = outcome
        await self._gate.drain()  # the result is announced after every move
        failure = self._gate.lost_write
        if failure is None:
            try:
                await self._store_result(outcome)
            except StorageError as error:
                failure = error
        if failure is not None:
            outcome = self.outcome = UNSTORED
            self._forget_unstored_moves()
            self.storage.finish_unstored(self.id, outcome.reason, len(self.moves))
            log.error("match %d ends: the server could not store it (%s)", self.id, failure)
        winner = None if outcome.winner is None else self.game.seats[outcome.winner]
        logs.event(
            log,
            "match_ended",
            match=self.id,
            result=outcome.result.value,
            winner=winner or "",
            termination=outcome.termination.value,
            moves=len(self.moves),
            reason=outcome.reason,
        )
        over = protocol.GameOver(
            match=self.id,
            result=outcome.result.value,
            winner=winner,
            reason=outcome.reason,
            state=self._position().state,
            moves=list(self.moves),
            termination=outcome.termination.value,
            clocks_ms=self._clocks_ms(),
        )
        for session in (*self.sessions, *self.spectators):
            self._gate.tell(session, over)
        self._gate.flush()  # nothing is held after the drain: sent at once
        return outcome

    async def _store_result(self, outcome: Outcome) -> None:
        winner = None if outcome.winner is None else self.game.seats[outcome.winner]
        await self.storage.finish_match(
            self.id,
            outcome.result.value,
            winner,
            outcome.reason,
            outcome.termination,
            [outcome.score(seat) for seat in (0, 1)],
        )

    def _forget_unstored_moves(self) -> None:
        """Keep only the moves that were stored, in order (all a client was told of)."""
        stored = self._moves_before + self._gate.stored
        if stored < len(self.moves):
            del self.moves[stored:]
            self.state = self.game.replay(self.options, self.moves)

    def _storage_failed(self, error: BaseException) -> None:
        """The commit gate's word that a move could not be stored: the match ends."""
        self.deliver(StorageFailed(error))

    def _seat_view(self, seat: Seat) -> dict[str, Any]:
        """What `match_started` and `resumed` both tell a seat about its match."""
        return {
            "match": self.id,
            "game": self.game.name,
            "seat": self.game.seats[seat],
            "seats": list(self.game.seats),
            "players": self.players,
            "options": self.options,
            "time": self.control.to_wire(),
            "hints": self.hints[seat],
            "illegal": self.illegal[seat],
            "state": self._position().state,
        }

    def _started_message(self, seat: Seat) -> protocol.MatchStarted:
        return protocol.MatchStarted(**self._seat_view(seat))

    def _resumed_message(self, seat: Seat, to_move: bool) -> protocol.Resumed:
        return protocol.Resumed(
            **self._seat_view(seat), moves=list(self.moves), clocks=self._clocks(), to_move=to_move
        )

    def _your_turn_message(self, seat: Seat, turn: Turn) -> protocol.YourTurn:
        legal = None
        if self.hints[seat]:
            moves = self.state.legal_moves()
            legal = self.game.format_moves(moves)
            could_exceed = len(legal) * self.game.max_move_text > MAX_HINT_CHARACTERS
            if could_exceed and sum(map(len, legal)) > MAX_HINT_CHARACTERS:
                legal = None
            else:
                self._hinted = (legal, moves)
        return protocol.YourTurn(
            match=self.id,
            ply=self.state.ply,
            state=self._position().state,
            legal=legal,
            time_left=turn.time_left(trio.current_time()),
            clocks=self._clocks(),
        )

    def listed(self, now: float) -> dict[str, Any]:
        """The match as the lobby listing shows it at `now` (`lobby_listing.matches`): the
        clocks as they stand, the mover's running since its `your_turn` was written. Built
        only when a listing is asked for, never on the per-move path."""
        turn = self._turn
        time_left = clocks = to_move = None
        if turn is not None and self.outcome is None:
            used = turn.elapsed(now)
            to_move = self.game.seats[turn.seat]
            time_left = max(0.0, turn.clock.allowance() - used)
            clocks = self._clocks()
            if clocks is not None:
                clocks[turn.seat] = max(0.0, clocks[turn.seat] - used)
        return {
            "match": self.id,
            "game": self.game.name,
            "seats": list(self.game.seats),
            "players": self.players,
            "ply": self.state.ply,
            "to_move": to_move,
            "time_left": time_left,
            "clocks": clocks,
            "time": self.control.to_wire(),
        }

    def watching_message(self) -> protocol.Watching:
        position = self._position()
        return protocol.Watching(
            match=self.id,
            game=self.game.name,
            seats=list(self.game.seats),
            players=self.players,
            options=self.options,
            time=self.control.to_wire(),
            state=position.state,
            moves=list(self.moves),
            to_move=position.to_move,
        )


def clip(sentence: str, limit: int = 1000) -> str:
    """A sentence short enough for a protocol `reason` field (1024 characters)."""
    return sentence if len(sentence) <= limit else sentence[: limit - 3] + "..."
