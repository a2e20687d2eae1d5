"""Every frame play sends, built here and nowhere else: the handshake's answer, seeks, a seat's
and a spectator's view of a match, each move, and its end.

One builder per message, so a field the protocol gains is added in one place and every path
that sends the message (a live match, a finished one read back, a tournament game its player
missed) sends it alike, in every protocol version its receivers speak. A match is described to
the builders as a `Table`; the per-move builders take plain values, as they run on every move,
and build `protocol.Trusted` frames: every value in them is the server's own, of the right type
(ids, plies, the clock's floats, the rules' move texts and hints, a checked `Position`), so
they are encoded without the checks a message runs on what a peer sends.
The position a frame shows is a `protocol.Position` built once per state (`position_of`) and
shared by every frame that shows it.

Frames of the connection itself (`error`, `ping`, `pong`) are the connection's
(`server.connection.session`); the lobby listing is `server.play.listing`'s and a tournament's
table `server.tournaments.tournament`'s, each built in that one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbiter import protocol
from arbiter.games import GAME_NAMES, Game, Outcome, Seat, State, get_game
from arbiter.protocol import ErrorCode, SeatClock, TimeControl
from arbiter.server.play.defaults import Illegal

SERVER_NAME = "arbiter 0.1.0"


@dataclass(frozen=True, slots=True)
class Table:
    """A match as the messages about it describe it: a seat's view, a spectator's, its end."""

    match: int
    game: Game[Any, Any]
    players: Sequence[str]
    options: dict[str, Any]
    time: dict[str, float]
    """The time control, as the wire carries it (`TimeControl.to_wire`)."""
    position: protocol.Position
    moves: Sequence[str]


@dataclass(frozen=True, slots=True)
class Ending:
    """How a match ended, as `game_over` tells it: from a live match's `Outcome`, or from what
    the store holds of a finished one (`stored`)."""

    result: str
    winner: str | None
    """The winning seat's name, for a win."""
    reason: str
    termination: str | None
    """A `games.Termination` value; None for a game stored before terminations were kept."""
    clocks_ms: list[int] | None = None
    """Each seat's game clock at the end, in whole milliseconds; None without a game clock."""
    judged_by: list[str] | None = None
    """The clock that judged each seat (`wall` or `cpu`); None where it is not known."""

    @classmethod
    def of(
        cls,
        outcome: Outcome,
        seats: Sequence[str],
        clocks_ms: list[int] | None = None,
        judged_by: list[str] | None = None,
    ) -> Ending:
        winner = None if outcome.winner is None else seats[outcome.winner]
        termination = outcome.termination.value
        return cls(outcome.result.value, winner, outcome.reason, termination, clocks_ms, judged_by)


class Positions:
    """One match's positions as its frames show them, and whether each ends the game: worked out
    once per state, the same object for every frame that shows it (the mover's, the opponent's,
    the spectators', the next turn's). The end test is the costlier half of a position, and both
    the frames (who is to move) and the match (is it over) ask it of every new state."""

    __slots__ = ("_game", "_latest")

    def __init__(self, game: Game[Any, Any]) -> None:
        self._game = game
        self._latest: tuple[State[Any], Outcome | None, protocol.Position] | None = None

    def of(self, state: State[Any]) -> protocol.Position:
        return self._judged(state)[2]

    def outcome(self, state: State[Any]) -> Outcome | None:
        """`state.outcome()`, asked once per state."""
        return self._judged(state)[1]

    def _judged(self, state: State[Any]) -> tuple[State[Any], Outcome | None, protocol.Position]:
        latest = self._latest
        if latest is None or latest[0] is not state:
            outcome = state.outcome()
            latest = self._latest = (state, outcome, position_of(self._game, state, outcome))
        return latest


def wire_clocks(control: TimeControl, clocks: Sequence[SeatClock]) -> list[float] | None:
    """Both game clocks' time left as messages carry them (None without a game clock)."""
    if control.clock is None:
        return None
    return [clock.remaining or 0.0 for clock in clocks]


def in_ms(clocks: list[float] | None) -> list[int] | None:
    """Clocks in whole milliseconds, as `game_over` carries them."""
    return None if clocks is None else [round(seconds * 1000) for seconds in clocks]


def position_of(
    game: Game[Any, Any], state: State[Any], outcome: Outcome | None
) -> protocol.Position:
    """The position the rules computed, as frames show it: the state and the seat to move (None
    once the game is over: `outcome` is the state's, which the caller has at hand). A match
    builds one per state and hands the same to every frame."""
    to_move = None if outcome is not None else game.seats[state.turn]
    return protocol.Position(state.to_data(), to_move)


# -- the handshake and seeks -----------------------------------------------------------------


def welcome(session: str, version: int) -> protocol.Welcome:
    """The answer to a `hello`, in the version it asked for."""
    return protocol.Welcome(version=version, session=session, server=SERVER_NAME)


def games() -> protocol.Games:
    """The answer to `list_games`: every game the server referees."""
    return protocol.Games(games=[describe_game(get_game(name)) for name in GAME_NAMES])


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


def seeking(
    seek: int,
    game: str,
    options: dict[str, Any],
    time: TimeControl,
    opponent: str | None,
) -> protocol.Seeking:
    return protocol.Seeking(
        seek=seek, game=game, options=options, time=time.to_wire(), opponent=opponent
    )


def seek_cancelled(seek: int) -> protocol.SeekCancelled:
    return protocol.SeekCancelled(seek=seek)


# -- a match: seats, spectators, its end -----------------------------------------------------


def _seat_view(table: Table, seat: Seat, hints: bool, illegal: Illegal) -> dict[str, Any]:
    """What `match_started` and `resumed` both tell a seat about its match."""
    return {
        "match": table.match,
        "game": table.game.name,
        "seat": table.game.seats[seat],
        "seats": list(table.game.seats),
        "players": list(table.players),
        "options": table.options,
        "time": table.time,
        "hints": hints,
        "illegal": illegal,
        "state": table.position.state,
    }


def match_started(table: Table, seat: Seat, hints: bool, illegal: Illegal) -> protocol.MatchStarted:
    return protocol.MatchStarted(**_seat_view(table, seat, hints, illegal))


def resumed(
    table: Table,
    seat: Seat,
    hints: bool,
    illegal: Illegal,
    clocks: list[float] | None,
    to_move: bool,
) -> protocol.Resumed:
    return protocol.Resumed(
        **_seat_view(table, seat, hints, illegal),
        moves=list(table.moves),
        clocks=clocks,
        to_move=to_move,
    )


SNAPSHOT_STEP = 256
"""A snapshot's first move is a multiple of this: spectators that know a long game's moves up
to about the same place share one frame."""


def snapshot_start(since: int | None, moves: Sequence[str]) -> int:
    """The first move a snapshot lists for a spectator that knows the moves before `since`."""
    if since is None:
        return 0
    return min(since, len(moves)) // SNAPSHOT_STEP * SNAPSHOT_STEP


def watching(table: Table, moves_from: int = 0) -> protocol.Watching:
    """The snapshot a spectator starts from: the match as it stands, and its moves from number
    `moves_from` on."""
    return protocol.Watching(
        match=table.match,
        game=table.game.name,
        seats=list(table.game.seats),
        players=list(table.players),
        options=table.options,
        time=table.time,
        state=table.position.state,
        moves=list(table.moves[moves_from:]),
        to_move=table.position.to_move,
        moves_from=moves_from,
    )


def game_over(table: Table, ending: Ending) -> protocol.GameOver:
    return protocol.GameOver(
        match=table.match,
        result=ending.result,
        winner=ending.winner,
        reason=ending.reason,
        state=table.position.state,
        moves=list(table.moves),
        termination=ending.termination,
        clocks_ms=ending.clocks_ms,
        judged_by=ending.judged_by,
    )


# -- each move -------------------------------------------------------------------------------


def your_turn(
    match: int,
    ply: int,
    position: protocol.Position,
    legal: list[str] | None,
    time_left: float,
    clocks: list[float] | None,
) -> protocol.Trusted:
    return protocol.Trusted(
        protocol.YourTurn,
        match=match,
        ply=ply,
        state=position.state,
        legal=legal,
        time_left=time_left,
        clocks=clocks,
    )


def move_accepted(
    match: int,
    ply: int,
    move: str,
    elapsed: float,
    compensation: float,
    clocks: list[float] | None,
    position: protocol.Position,
) -> protocol.Trusted:
    return protocol.Trusted(
        protocol.MoveAccepted,
        match=match,
        ply=ply,
        move=move,
        elapsed=elapsed,
        compensation=compensation,
        clocks=clocks,
        position=position,
    )


def opponent_moved(
    seat: str,
    match: int,
    ply: int,
    move: str,
    elapsed: float,
    compensation: float,
    clocks: list[float] | None,
    position: protocol.Position,
) -> protocol.Trusted:
    """Encoded once per version for the opponent and every spectator."""
    return protocol.Trusted(
        protocol.OpponentMoved,
        match=match,
        ply=ply,
        seat=seat,
        move=move,
        elapsed=elapsed,
        compensation=compensation,
        clocks=clocks,
        position=position,
    )


def move_refused(match: int, move: str, code: ErrorCode, reason: str) -> protocol.MoveRefused:
    return protocol.MoveRefused(match=match, move=move, code=code, reason=reason)
