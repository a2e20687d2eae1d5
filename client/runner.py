"""The agent runner: seek a match, answer every `your_turn` with the agent's move, report the end.

The agent runs on a worker thread, so a thinking agent never stops this connection from reading
(pings keep being answered) and, in-process with a server, never stalls the server's clocks.
When the server accepts a move it says how long the move took by its clock; what `choose` did
not spend of that (the round trip, the hand-offs) is reported to the agents' `Lateness`, so
their reserve covers it on the next moves.

A seek can wait a long time (nobody else seeks that game, or only with another time control),
so `waiting_lines` tells a person what the bot waits for, and when it is paired.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio

from arbiter import protocol
from arbiter.agents import Agent, lifecycle
from arbiter.agents.search.clock import LATENESS
from arbiter.client.connection import ClientConnection, ConnectionClosed
from arbiter.client.verdict import verdict
from arbiter.games import Game, describe_options, get_game
from arbiter.protocol import TimeControl

MessageHook = Callable[[protocol.Message], None]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game as one player saw it."""

    match: int
    game: str
    seat: str
    seats: list[str]
    players: list[str]
    result: str
    winner: str | None
    reason: str
    moves: list[str]

    def summary(self) -> str:
        """`white wins: ...`, `draw: ...` or `both forfeit: ...`: the referee's last line."""
        return verdict(self.result, self.winner, self.reason)


async def play_one(
    connection: ClientConnection,
    game: Game[Any, Any],
    agent: Agent,
    *,
    options: dict[str, Any] | None = None,
    time_control: dict[str, Any] | None = None,
    opponent: str | None = None,
    on_message: MessageHook | None = None,
) -> GameRecord:
    """Seek one game (only against `opponent`, if named), play it with `agent`, and return its
    record.

    The agent's lifecycle (`agents.lifecycle`) runs around the game: `load` before the seek,
    `observe` on every message (after `on_message`), `finish` after the game, `close` always.
    """
    hooks = lifecycle(agent)
    try:
        await trio.to_thread.run_sync(hooks.load, abandon_on_cancel=True)
        seek = protocol.Seek(
            game=game.name,
            options=options or {},
            time=time_control or {},
            hints=False,
            opponent=opponent,
        )
        await connection.send(seek)
        record = await _play(connection, game, agent, hooks.observe, on_message)
        await trio.to_thread.run_sync(hooks.finish, abandon_on_cancel=True)
        return record
    finally:
        hooks.close()


async def _play(
    connection: ClientConnection,
    game: Game[Any, Any],
    agent: Agent,
    observe: Callable[[object], None],
    on_message: MessageHook | None,
) -> GameRecord:
    started: protocol.MatchStarted | None = None
    thought = 0.0
    """Seconds `choose` took over our last move, to compare with the server's measure."""
    while True:
        message = await connection.receive()
        if on_message is not None:
            on_message(message)
        observe(message)
        match message:
            case protocol.MatchStarted():
                started = message
            case protocol.YourTurn(match=match_id, state=data, time_left=budget):
                state = game.state_from_data(data)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(connection.answer_pings)
                    began = time.perf_counter()
                    move = await trio.to_thread.run_sync(
                        agent.choose, state, budget, abandon_on_cancel=True
                    )
                    thought = time.perf_counter() - began
                    nursery.cancel_scope.cancel()
                await connection.send(protocol.Move(match=match_id, move=game.format_move(move)))
            case protocol.MoveAccepted(elapsed=elapsed):
                LATENESS.outside(elapsed - thought)
            case protocol.GameOver():
                if started is None:
                    raise ConnectionClosed("game over before the match started")
                return GameRecord(
                    match=message.match,
                    game=game.name,
                    seat=started.seat,
                    seats=started.seats,
                    players=started.players,
                    result=message.result,
                    winner=message.winner,
                    reason=message.reason,
                    moves=message.moves,
                )


async def run_bot(
    host: str,
    port: int,
    game_name: str,
    make_agent: Callable[[Game[Any, Any], int], Agent],
    *,
    name: str,
    games: int = 1,
    time_control: dict[str, Any] | None = None,
    token: str | None = None,
    opponent: str | None = None,
    on_result: Callable[[GameRecord], None] | None = None,
    on_message: MessageHook | None = None,
    tls: ssl.SSLContext | None = None,
    ladder: LadderEntry | None = None,
    play: Callable[..., Awaitable[GameRecord]] = play_one,
) -> list[GameRecord]:
    """Connect once and play `games` games in a row, a fresh agent for each.

    `token` is a registered player's secret: with it the games can be tournament games, and
    with `ladder` ladder games (the bot joins the server's ladder of the game first, and each
    seek waits for the ladder to pair it); with `opponent` every seek is a challenge to that
    player; with `tls` the connection is TLS. `play` plays each game, `play_one`'s way by
    default (a Player module's runner wraps it).
    """
    game = get_game(game_name)
    records = []
    async with await ClientConnection.open(host, port, name, token=token, tls=tls) as connection:
        if ladder is not None:
            await join_ladder(connection, game_name, ladder, on_message)
        for number in range(games):
            record = await play(
                connection,
                game,
                make_agent(game, number),
                time_control=time_control,
                opponent=opponent,
                on_message=on_message,
            )
            records.append(record)
            if on_result is not None:
                on_result(record)
    return records


@dataclass(frozen=True, slots=True)
class LadderEntry:
    """Which of the server's ladders of the game a bot joins: the game's own, or a class's
    section's (`CLASS/SECTION`)."""

    section: str | None = None


async def join_ladder(
    connection: ClientConnection, game: str, ladder: LadderEntry, on_message: MessageHook | None
) -> None:
    """Join the server's ladder of `game`; `ServerError` with the server's sentence if the
    server refuses (no such ladder running, not a registered player, not of that section)."""
    await connection.send(protocol.LadderJoin(game=game, section=ladder.section))
    while True:
        message = await connection.receive()
        if on_message is not None:
            on_message(message)
        if isinstance(message, protocol.LadderJoined):
            return


def waiting_lines(say: Callable[[str], None]) -> MessageHook:
    """A message hook that tells a person, through `say`, what a bot is waiting for: the seek
    it opened (its id, game, options, time control and challenged player), then whom it was
    paired with."""

    def hook(message: protocol.Message) -> None:
        match message:
            case protocol.Seeking():
                say(waiting_line(message))
            case protocol.LadderJoined(game=game, section=section, joined=True):
                which = game if section is None else f"{game} {section}"
                say(f"in the {which} ladder: each game waits for the ladder to pair it")
            case protocol.MatchStarted(match=match_id, seat=seat, seats=seats, players=players):
                opponent = players[1 - seats.index(seat)]
                say(f"paired: match {match_id} against {opponent}, playing {seat}")

    return hook


def waiting_line(seeking: protocol.Seeking) -> str:
    """`waiting for an opponent: seek 3, kings-court, default options, move=10`."""
    control = TimeControl.from_wire(seeking.time).describe()
    line = (
        f"waiting for an opponent: seek {seeking.seek}, {seeking.game},"
        f" {describe_options(seeking.options)}, {control}"
    )
    return line if seeking.opponent is None else f"{line}, only {seeking.opponent}"
