"""One match: the task that owns a game's authoritative state from first move to result.

Everything that can happen to a match arrives in its inbox (a move, a resignation, a
disconnect), so one task decides in one order and no lock is needed. A move is checked by the
game's own rules, stored, and only then announced, so a restarted server never knows less than a
client was told.

Thinking time runs from the moment `your_turn` has been written to the mover's socket until the
move frame has arrived whole (DESIGN.md). The writer task stamps the first instant, the reader
the second; the deadline is a cancel scope, never a polling loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

import protocol
from games import Game, IllegalMoveError, InvalidMoveError, Outcome, Seat, State
from protocol import ErrorCode
from server.session import Session
from server.timecontrol import TimeControl

if TYPE_CHECKING:
    from server.storage import Storage


MAX_HINT_CHARACTERS = 32 * 1024
"""Hints are left out (legal = None) beyond this: a contrived King's Court position can have
225,000 jump routes, and `your_turn` must fit a 64 KiB frame. Real positions stay far below (an
Amazons opening lists 2,176 moves in about 20 KB)."""


class MoveClock:
    """One move's time: started by the writer when `your_turn` is on the wire.

    The match waits in `waiting`, a cancel scope whose deadline the writer moves to
    `written + limit` (no extra wake-up of the match task per move). Until then the deadline is
    `limit` after the frame was queued, so a client that does not read cannot stall the match.
    """

    __slots__ = ("limit", "started", "waiting")

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.started: float | None = None
        self.waiting = trio.move_on_after(limit)

    def start(self, written_at: float) -> None:
        self.started = written_at
        self.waiting.deadline = written_at + self.limit

    def elapsed(self, arrived_at: float) -> float:
        """Thinking time; 0 for a move that arrived before its `your_turn` was written."""
        return 0.0 if self.started is None else max(0.0, arrived_at - self.started)

    def in_time(self, arrived_at: float) -> bool:
        return self.elapsed(arrived_at) <= self.limit


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


MatchEvent = MoveArrived | Resigned | Disconnected


@dataclass(eq=False)
class Match:
    id: int
    game: Game[Any, Any]
    options: dict[str, Any]
    time_control: TimeControl
    sessions: tuple[Session, Session]
    hints: tuple[bool, bool]
    storage: Storage
    state: State[Any] = field(init=False)
    moves: list[str] = field(default_factory=list)
    spectators: set[Session] = field(default_factory=set)
    outcome: Outcome | None = None

    def __post_init__(self) -> None:
        self.state = self.game.initial_state(self.options)
        self._inbox, self._events = trio.open_memory_channel[MatchEvent](float("inf"))

    @property
    def players(self) -> list[str]:
        return [session.name for session in self.sessions]

    def deliver(self, event: MatchEvent) -> None:
        """Hand an event to the match task (never blocks)."""
        if self.outcome is None:
            self._inbox.send_nowait(event)

    async def run(self) -> Outcome:
        """Play the match to its end and record the result."""
        for seat, session in enumerate(self.sessions):
            session.send(self._started_message(seat))
        outcome = self._default_if_gone()
        while outcome is None:
            outcome = self.state.outcome() or await self._play_turn()
        await self._finish(outcome)
        return outcome

    def _default_if_gone(self) -> Outcome | None:
        for seat, session in enumerate(self.sessions):
            if session.closed:
                return self._default(seat, "disconnected")
        return None

    async def _play_turn(self) -> Outcome | None:
        """Ask the seat to move and wait for it: None when a move was accepted, else the end."""
        seat = self.state.turn
        clock = MoveClock(self.time_control.move)
        self.sessions[seat].send(self._your_turn_message(seat), clock.start)
        with clock.waiting:
            event = await self._events.receive()
        if clock.waiting.cancelled_caught:
            return self._default(seat, self._timeout_reason())
        if isinstance(event, Disconnected):
            return self._default(event.seat, "disconnected")
        if isinstance(event, Resigned):
            return Outcome.win(1 - event.seat, f"{self.game.seats[event.seat]} resigned")
        if event.seat != seat:
            return self._default(event.seat, f"move out of turn ({event.text})")
        if not clock.in_time(event.at):
            return self._default(seat, self._timeout_reason())
        return await self._take_move(seat, event.text, clock.elapsed(event.at))

    async def _take_move(self, seat: Seat, text: str, elapsed: float) -> Outcome | None:
        try:
            move, after = self.game.apply_text(self.state, text)
        except (InvalidMoveError, IllegalMoveError) as error:
            code = ErrorCode.INVALID_MOVE
            if isinstance(error, IllegalMoveError):
                code = ErrorCode.ILLEGAL_MOVE
            self.sessions[seat].send(
                protocol.MoveRefused(match=self.id, move=text, code=code, reason=str(error))
            )
            return self._default(seat, str(error))
        notation = self.game.format_move(move)
        self.state = after
        self.moves.append(notation)
        await self.storage.record_move(self.id, after.ply, self.game.seats[seat], notation, elapsed)
        self.sessions[seat].send(
            protocol.MoveAccepted(match=self.id, ply=after.ply, move=notation, elapsed=elapsed)
        )
        moved = protocol.OpponentMoved(
            match=self.id, ply=after.ply, seat=self.game.seats[seat], move=notation, elapsed=elapsed
        )
        self.sessions[1 - seat].send(moved)
        for spectator in self.spectators:
            spectator.send(moved)
        return None

    def _default(self, seat: Seat, reason: str) -> Outcome:
        return Outcome.win(1 - seat, reason)

    def _timeout_reason(self) -> str:
        return f"time limit exceeded ({self.time_control.move:.1f} s)"

    async def _finish(self, outcome: Outcome) -> None:
        self.outcome = outcome
        winner = None if outcome.winner is None else self.game.seats[outcome.winner]
        await self.storage.finish_match(
            self.id,
            outcome.result.value,
            winner,
            outcome.reason,
            [outcome.score(seat) for seat in (0, 1)],
        )
        over = protocol.GameOver(
            match=self.id,
            result=outcome.result.value,
            winner=winner,
            reason=outcome.reason,
            state=self.state.to_data(),
            moves=list(self.moves),
        )
        for session in (*self.sessions, *self.spectators):
            session.send(over)

    def _started_message(self, seat: Seat) -> protocol.MatchStarted:
        return protocol.MatchStarted(
            match=self.id,
            game=self.game.name,
            seat=self.game.seats[seat],
            seats=list(self.game.seats),
            players=self.players,
            options=self.options,
            time=self.time_control.to_wire(),
            hints=self.hints[seat],
            state=self.state.to_data(),
        )

    def _your_turn_message(self, seat: Seat) -> protocol.YourTurn:
        legal = None
        if self.hints[seat]:
            legal = [self.game.format_move(move) for move in self.state.legal_moves()]
            if sum(map(len, legal)) > MAX_HINT_CHARACTERS:
                legal = None
        return protocol.YourTurn(
            match=self.id,
            ply=self.state.ply,
            state=self.state.to_data(),
            legal=legal,
            time_left=self.time_control.move,
        )

    def watching_message(self) -> protocol.Watching:
        return protocol.Watching(
            match=self.id,
            game=self.game.name,
            seats=list(self.game.seats),
            players=self.players,
            options=self.options,
            time=self.time_control.to_wire(),
            state=self.state.to_data(),
            moves=list(self.moves),
        )
