"""The session loop: the server's messages and the keyboard in, the screen and moves out.

One task per connection reads its messages (`ClientConnection.receive` answers pings as it
goes), one task reads the keyboard, and this loop takes their events one at a time, so the table
and the screen are only ever touched by one task. The loop wakes at least every `TICK` seconds to
redraw the clocks. A hot-seat game is two local seats on two connections; a spectator is a
table with no local seat.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Protocol

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ConnectionClosed, ServerError
from arbiter.client.play.commands import Play, Quit, Resign, Say, interpret
from arbiter.client.play.keyboard import END_OF_INPUT, LineEditor, keys
from arbiter.client.play.screen import View
from arbiter.client.play.table import Table
from arbiter.games import Game

TICK = 0.1
"""Seconds between redraws while nothing happens: the clocks show tenths in their last ten
seconds (a redraw that changes nothing writes nothing)."""


class Display(Protocol):
    """Where the session draws: the full screen of a terminal, or plain scrolling output."""

    scrolling: bool
    """True when the display cannot be redrawn (piped output): input is then taken as a
    script, each line when a local seat is to move."""

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def show(self, table: Table, view: View, now: float) -> None: ...

    def typed(self, table: Table, line: str) -> None:
        """A line was taken as input (a scrolling display shows it, as a terminal would)."""

    def farewell(self, table: Table, view: View, now: float) -> None:
        """After the session: the final position and result, left on the terminal."""


@dataclass
class Link:
    """One connection of this terminal: a local seat's, or a spectator's."""

    connection: ClientConnection
    seat: int | None = None
    seek: int | None = None


@dataclass(frozen=True, slots=True)
class Arrived:
    link: Link
    message: protocol.Message


@dataclass(frozen=True, slots=True)
class Lost:
    why: str


@dataclass(frozen=True, slots=True)
class Typed:
    keys: str


Event = Arrived | Lost | Typed


class Session:
    def __init__(
        self, game: Game[Any, Any], display: Display, *, watching: bool = False, delay: float = 0
    ) -> None:
        self.game = game
        self.display = display
        self.table = Table(game, watching=watching)
        self.view = View()
        self.delay = delay
        """Seconds each move stays on screen before the next is shown (watching agents)."""
        self.links: list[Link] = []
        self.failure: str | None = None
        self._editor = LineEditor()
        self._script: deque[str] = deque()
        self._backlog: list[Event] = []
        """Events to take in before the connections' own: a replayed match's moves."""
        self._leaving = False

    # -- before the loop: requests whose answers the loop starts from ----------------------

    async def seek(self, connection: ClientConnection, seek: protocol.Seek) -> None:
        """Seek on `connection` and wait for the answer, so the seats go in the order of the
        seeks (the one who seeks first moves first); errors raise `ServerError`."""
        link = Link(connection)
        self.links.append(link)
        await connection.send(seek)
        while True:
            message = await connection.receive()
            self._take(link, message)
            if isinstance(message, protocol.Seeking | protocol.MatchStarted):
                return

    async def started(self) -> None:
        """Wait for every seek's match to start, so the first screen knows all local seats
        (in a hot-seat game the first seek is paired after the second is sent)."""
        for link in self.links:
            while link.seat is None:
                self._take(link, await link.connection.receive())

    def follow(
        self, connection: ClientConnection, watching: protocol.Watching, *, replay: bool
    ) -> None:
        """Show the match `watching` began (see `start_watching`); with `replay`, from its
        first move, whatever was played already."""
        link = Link(connection)
        self.links.append(link)
        first, *moves = replayed(self.game, watching) if replay else [watching]
        self._take(link, first)
        self._backlog.extend(Arrived(link, move) for move in moves)

    # -- the loop ------------------------------------------------------------------------------

    async def run(self) -> int:
        """Play or watch until the game ends or the player leaves; the exit status."""
        send, events = trio.open_memory_channel[Event](math.inf)
        for queued in self._backlog:
            send.send_nowait(queued)
        async with trio.open_nursery() as nursery:
            for link in self.links:
                nursery.start_soon(self._read, link, send.clone())
            nursery.start_soon(self._type, send.clone())
            with self.display:
                while not self._finished():
                    self.display.show(self.table, self.view, trio.current_time())
                    event: Event | None = None
                    with trio.move_on_after(TICK):  # only the wait: a move is never half sent
                        event = await events.receive()
                    if event is not None:
                        await self._handle(event)
                self.display.show(self.table, self.view, trio.current_time())
            nursery.cancel_scope.cancel()
        self.display.farewell(self.table, self.view, trio.current_time())
        return 0 if self.failure is None else 1

    def _finished(self) -> bool:
        return self._leaving or self.failure is not None or self.table.phase == "over"

    async def _read(self, link: Link, events: trio.MemorySendChannel[Event]) -> None:
        try:
            while True:
                try:
                    message = await link.connection.receive()
                except ServerError as error:
                    message = protocol.Error(code=error.code, message=error.message)
                await events.send(Arrived(link, message))
        except ConnectionClosed as error:
            await events.send(Lost(str(error)))

    async def _type(self, events: trio.MemorySendChannel[Event]) -> None:
        async for typed in keys():
            await events.send(Typed(typed))

    async def _handle(self, event: Event) -> None:
        match event:
            case Arrived(link=link, message=message):
                self._take(link, message)
                moved = isinstance(message, protocol.OpponentMoved | protocol.MoveAccepted)
                if moved and self.delay:
                    self.display.show(self.table, self.view, trio.current_time())
                    await trio.sleep(self.delay)
                await self._run_script()
            case Lost(why=why):
                self.failure = why
                self.view.say(f"connection lost: {why}")
            case Typed(keys=typed):
                await self._typed(typed)

    def _take(self, link: Link, message: protocol.Message) -> None:
        match message:
            case protocol.Seeking(seek=seek):
                link.seek = seek
            case protocol.MatchStarted(seat=seat):
                link.seat, link.seek = self.game.seat_index(seat), None
            case protocol.Error(code=code, message=sentence):
                self.view.say(f"server: {sentence} ({code})")
        note = self.table.apply(message, link.seat, trio.current_time())
        if note is not None:
            self.view.say(note)

    # -- the keyboard ------------------------------------------------------------------------

    async def _typed(self, typed: str) -> None:
        if typed == END_OF_INPUT and self.display.scrolling:
            if not self.table.watching:  # the end of a script: leave when it comes to it
                self._script.append("quit")
            return
        for line in self._editor.feed(typed):
            if self.display.scrolling and not self.table.watching:
                self._script.append(line)
            else:
                await self._line("quit" if line == END_OF_INPUT else line)
        self.view.typing = self._editor.buffer
        await self._run_script()

    async def _run_script(self) -> None:
        """Piped lines wait for a local seat to be asked for a move; lines left at the end of
        the game are not read."""
        while self._script and self.table.to_move:
            await self._line(self._script.popleft())

    async def _line(self, line: str) -> None:
        self.display.typed(self.table, line)
        match interpret(line, self.table):
            case Say(lines=lines):
                self.view.say(*lines)
            case Play(seat=seat, text=text):
                self.view.say()
                self.table.to_move.discard(seat)
                await self._send(seat, protocol.Move(match=self._match(), move=text))
            case Resign(seat=seat):
                self.table.to_move.clear()  # the game is over once the server has the word
                await self._send(seat, protocol.Resign(match=self._match()))
            case Quit():
                await self._quit()
        self.display.show(self.table, self.view, trio.current_time())

    async def _quit(self) -> None:
        """Leave: a game in play is resigned (the loop ends at its `game_over`), a seek is
        cancelled, a spectator just goes."""
        if self.table.phase == "playing" and self.table.local:
            seat = next(iter(self.table.to_move), min(self.table.local))
            self.table.to_move.clear()
            await self._send(seat, protocol.Resign(match=self._match()))
            return
        for link in self.links:
            if link.seek is not None:
                await link.connection.send(protocol.CancelSeek(seek=link.seek))
        self._leaving = True

    async def _send(self, seat: int, message: protocol.Message) -> None:
        link = next(link for link in self.links if link.seat == seat)
        await link.connection.send(message)

    def _match(self) -> int:
        assert self.table.match is not None
        return self.table.match


async def start_watching(connection: ClientConnection, match: int) -> protocol.Watching:
    """Ask to watch `match`; its snapshot names the game (`ServerError` if there is none)."""
    await connection.send(protocol.Watch(match=match))
    while not isinstance(message := await connection.receive(), protocol.Watching):
        pass
    return message


def replayed(game: Game[Any, Any], watching: protocol.Watching) -> list[protocol.Message]:
    """A snapshot as the start of its match and one report per move played since, so a game
    that went faster than it can be watched is still shown from its first move."""
    state = game.initial_state(watching.options)
    steps: list[protocol.Message] = [replace(watching, state=state.to_data(), moves=[])]
    for ply, text in enumerate(watching.moves, start=1):
        seat = game.seats[state.turn]
        state = state.play(game.parse_move(text))
        steps.append(
            protocol.OpponentMoved(match=watching.match, ply=ply, seat=seat, move=text, elapsed=0.0)
        )
    return steps
