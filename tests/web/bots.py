"""Random players on a real server, each match in a thread of its own (the browser tests are
synchronous: Playwright drives chromium from the test's thread)."""

from __future__ import annotations

import random
import threading
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection


class Threaded:
    """Players in a thread: `match` is their match's id once it started, `moves` the moves
    they played and `over` its end."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.match: int | None = None
        self.started = threading.Event()
        self.seeking = threading.Event()
        self.moves: list[str] = []
        self.over: protocol.GameOver | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the match did not end in time"
        assert self.error is None, self.error

    def _run(self) -> None:
        try:
            trio.run(self._play_all)
        except BaseException as error:  # reported by `join`
            self.error = error
            self.started.set()
            self.seeking.set()

    async def _play_all(self) -> None:
        raise NotImplementedError

    async def _play(self, name: str, seed: int, seek: protocol.Seek, pause: float) -> None:
        """Seek, then play random legal moves (from the hints) until the game is over."""
        rng = random.Random(seed)
        async with await ClientConnection.open("127.0.0.1", self.port, name) as connection:
            await connection.send(seek)
            while True:
                message = await connection.receive()
                if isinstance(message, protocol.Seeking):
                    self.seeking.set()
                elif isinstance(message, protocol.MatchStarted):
                    self.match = message.match
                    self.seeking.set()
                    self.started.set()
                elif isinstance(message, protocol.MoveAccepted):
                    self.moves.append(message.move)
                elif isinstance(message, protocol.YourTurn):
                    assert message.legal is not None
                    await trio.sleep(pause)
                    move = rng.choice(message.legal)
                    await connection.send(protocol.Move(match=message.match, move=move))
                elif isinstance(message, protocol.GameOver):
                    self.over = message
                    return


class PacedMatch(Threaded):
    """A match of `game` between two random players that wait `pause` seconds before each
    move, so a page sees the moves arrive one by one."""

    def __init__(
        self,
        port: int,
        game: str,
        options: dict[str, Any],
        pause: float,
        seeds: tuple[int, int] = (0, 1),
    ) -> None:
        super().__init__(port)
        self.seek = protocol.Seek(game=game, options=options, time={"move": 30})
        self.pause = pause
        self.seeds = seeds

    def start(self) -> PacedMatch:
        self._thread.start()
        assert self.started.wait(30), self.error
        return self

    async def _play_all(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._play, "ada", self.seeds[0], self.seek, self.pause)
            # ada's seek first, so she takes the first seat: her seed plays the first moves
            await trio.to_thread.run_sync(self.seeking.wait, 30)
            nursery.start_soon(self._play, "bob", self.seeds[1], self.seek, self.pause)


class RandomSeat(Threaded):
    """One random player (`seek` as it asks), for a person to play against in a page; `start`
    returns once its seek is open (or its match begun). `moves` are its own."""

    def __init__(self, port: int, name: str, seek: protocol.Seek) -> None:
        super().__init__(port)
        self.name, self.seek = name, seek

    def start(self) -> RandomSeat:
        self._thread.start()
        assert self.seeking.wait(30), self.error
        return self

    async def _play_all(self) -> None:
        await self._play(self.name, 7, self.seek, 0)
