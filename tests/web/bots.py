"""Two paced random players on a real server, in a thread of their own (the browser tests are
synchronous: Playwright drives chromium from the test's thread)."""

from __future__ import annotations

import random
import threading
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection


class PacedMatch:
    """A match of `game` between two random players that wait `pause` seconds before each
    move, so a page sees the moves arrive one by one. `match` is its id once it started."""

    def __init__(self, port: int, game: str, options: dict[str, Any], pause: float) -> None:
        self.port, self.game, self.options, self.pause = port, game, options, pause
        self.match: int | None = None
        self.started = threading.Event()
        self.moves: list[str] = []
        self.over: protocol.GameOver | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> PacedMatch:
        self._thread.start()
        assert self.started.wait(30), self.error
        return self

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the match did not end in time"
        assert self.error is None, self.error

    def _run(self) -> None:
        try:
            trio.run(self._play_both)
        except BaseException as error:  # reported by `join`
            self.error = error
            self.started.set()

    async def _play_both(self) -> None:
        async with trio.open_nursery() as nursery:
            for seed, name in enumerate(("ada", "bob")):
                nursery.start_soon(self._play, name, seed)

    async def _play(self, name: str, seed: int) -> None:
        rng = random.Random(seed)
        connection = await ClientConnection.open("127.0.0.1", self.port, name)
        seek = protocol.Seek(game=self.game, options=self.options, time={"move": 30})
        await connection.send(seek)
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.MatchStarted):
                self.match = message.match
                self.started.set()
            elif isinstance(message, protocol.MoveAccepted):
                self.moves.append(message.move)
            elif isinstance(message, protocol.YourTurn):
                assert message.legal is not None
                await trio.sleep(self.pause)
                move = rng.choice(message.legal)
                await connection.send(protocol.Move(match=message.match, move=move))
            elif isinstance(message, protocol.GameOver):
                self.over = message
                await connection.aclose()
                return
