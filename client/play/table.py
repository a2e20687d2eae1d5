"""One match as this terminal knows it, kept up to date from the server's messages.

Pure: the session loop hands in each message with the local time and the seat of the connection
it came on; the screen reads the result. Each move comes with the position the server computed
(protocol version 2), which is shown as it came; the position before the last move is kept for
drawings that need it (War of Life's board before the crank). In a hot-seat game both seats'
connections report every move; a move is applied once, by its ply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arbiter import protocol
from arbiter.client.play.boards import Position
from arbiter.client.play.clocks import Clocks
from arbiter.client.verdict import verdict
from arbiter.games import Game, GameError, State, Termination
from arbiter.protocol import TimeControl, TimeControlError


def ran_out(control: TimeControl | None, over: protocol.GameOver, seat: int) -> str | None:
    """Which limit `seat` ran out of ("move" or "clock"), or None when the game did not end on
    time, so the clock can show 0: `game_over`'s termination says it was time, and its final
    clocks say whether the game clock was the one spent."""
    if control is None or over.termination != TIME_LOSS:
        return None
    if over.clocks_ms is not None and over.clocks_ms[seat] == 0 and control.clock is not None:
        return "clock"
    return "move" if control.move is not None else None


TIME_LOSS = Termination.TIME.value


def control_of(time: dict[str, float]) -> TimeControl | None:
    """The time control of a match's `time` map (None if this client cannot read it)."""
    try:
        return TimeControl.from_wire(time) if time else None
    except TimeControlError:
        return None


@dataclass
class Table:
    game: Game[Any, Any]
    watching: bool = False
    phase: str = "connecting"
    """connecting, seeking, playing or over."""
    match: int | None = None
    players: list[str] = field(default_factory=lambda: ["", ""])
    local: set[int] = field(default_factory=set)
    """Seats typed at this terminal: one against an opponent, both in a hot-seat game."""
    to_move: set[int] = field(default_factory=set)
    """Local seats holding an unanswered `your_turn`."""
    control: TimeControl | None = None
    clocks: Clocks = field(default_factory=lambda: Clocks(None))
    state: State[Any] | None = None
    before: State[Any] | None = None
    last_move: str | None = None
    mover: int | None = None
    result: str | None = None

    @property
    def seats(self) -> tuple[str, str]:
        return self.game.seats

    def position(self) -> Position | None:
        if self.state is None:
            return None
        before = None if self.before is None else self.before.to_data()
        return Position(self.seats, self.state.to_data(), before, self.last_move, self.mover)

    def seat_to_move(self) -> int | None:
        """The seat whose turn it is, while the game goes on."""
        if self.phase != "playing" or self.state is None:
            return None
        turn: int = self.state.turn
        return turn

    def apply(self, message: protocol.Message, seat: int | None, now: float) -> str | None:
        """Take in a message that came on the connection playing `seat` (None: a spectator's).

        Returns a sentence for the screen when the message needs one (a refused move).
        """
        match message:
            case protocol.Seeking(time=time):
                self.phase, self.control = "seeking", control_of(time)
            case protocol.MatchStarted():
                self._started(message, now)
            case protocol.Watching():
                self._watching(message, now)
            case protocol.YourTurn() if seat is not None:
                self._your_turn(message, seat, now)
            case protocol.MoveAccepted() if seat is not None:
                self._moved(message, seat, now)
            case protocol.OpponentMoved(seat=name):
                self._moved(message, self.seats.index(name), now)
            case protocol.MoveRefused(reason=reason) if seat is not None:
                self.to_move.add(seat)
                return f"refused: {reason}"
            case protocol.GameOver():
                self._over(message, now)
        return None

    def _begin(
        self, match: int, players: list[str], time: dict[str, float], data: Any, now: float
    ) -> None:
        """A match is on: its clock runs for the seat to move (a local seat's `your_turn`
        then gives the exact figure)."""
        self.match, self.players, self.phase = match, list(players), "playing"
        self.control = control_of(time)
        self.clocks = Clocks.fresh(self.control)
        self.state = self.game.state_from_data(data)
        if (seat := self.seat_to_move()) is not None:
            self.clocks.start(seat, now)

    def _started(self, message: protocol.MatchStarted, now: float) -> None:
        if self.match != message.match:
            self._begin(message.match, message.players, message.time, message.state, now)
        self.local.add(self.seats.index(message.seat))

    def _watching(self, message: protocol.Watching, now: float) -> None:
        self._begin(message.match, message.players, message.time, message.state, now)
        if message.moves:
            self.clocks.remaining = [None, None]  # spent before we came: unknown until a report
        self._recall(message.options, message.moves)

    def _recall(self, options: dict[str, Any], moves: list[str]) -> None:
        """The last move and the position before it, replayed from the start: a match joined
        late is drawn like one followed from its first move."""
        if not moves:
            return
        try:
            state = self.game.initial_state(options)
            for text in moves[:-1]:
                state = state.play(self.game.parse_move(text))
        except GameError:
            return
        self.before, self.last_move, self.mover = state, moves[-1], state.turn

    def _your_turn(self, message: protocol.YourTurn, seat: int, now: float) -> None:
        if self.state is None or self.state.ply != message.ply:
            self.state = self.game.state_from_data(message.state)
        self.to_move.add(seat)
        self.clocks.start(seat, now, message.time_left, message.clocks)

    def _moved(
        self, message: protocol.MoveAccepted | protocol.OpponentMoved, seat: int, now: float
    ) -> None:
        self.to_move.discard(seat)
        if self.state is None or message.ply != self.state.ply + 1:
            return  # seen already: the other seat's connection of a hot-seat game reported it
        self.before = self.state
        self.state = self.after(message)
        self.last_move, self.mover = message.move, seat
        clocks = message.clocks
        if not self.state.is_over():
            self.clocks.moved(clocks, self.state.turn, now)
            return
        self.clocks.stop(now)
        if clocks is not None:
            self.clocks.remaining = list(clocks)

    def after(self, message: protocol.MoveAccepted | protocol.OpponentMoved) -> State[Any]:
        """The position after a move: as the server sent it, or, for a message that carries
        none (built for version 1), played here."""
        assert self.state is not None
        if message.position is not None:
            sent: State[Any] = self.game.state_from_data(message.position.state)
            return sent
        return self.state.play(self.game.parse_move(message.move))

    def _over(self, message: protocol.GameOver, now: float) -> None:
        if self.phase == "over":
            return
        final = self.game.state_from_data(message.state)
        if self.state is not None and final.ply == self.state.ply + 1 and message.moves:
            self.before, self.last_move, self.mover = self.state, message.moves[-1], self.state.turn
        self.state, self.phase = final, "over"
        self.result = verdict(message.result, message.winner, message.reason)
        self.to_move.clear()
        loser = self.clocks.running
        limit = None if loser is None else ran_out(self.control, message, loser)
        self.clocks.stop(now, limit)
