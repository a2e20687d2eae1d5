"""Hostile agents as hosted seats: a real server, a real worker, each agent in the real sandbox,
all attacking it at once on their first turn while two connected players play beside them.

Each hostile seat loses by a recorded default whose sentence names the limit it reached, and the
match beside them goes on with its moves answered promptly: nothing outside the sandboxes
notices."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from tests.sandbox.helpers import need_bwrap
from tests.workers.hosting import GAME, hosting

HOSTILE = Path(__file__).with_name("hostile_program.py")
ENDINGS = {
    "fork": "crash: process limit 32 reached",
    "allocate": "crash: memory limit 512 MiB exceeded",
    "write": "crash: disk limit exceeded (files up to 16 MiB",
    "print": "crash: output limit 1 MiB exceeded",
    "parent": "SIGKILL",
    "segfault": "crash: killed by SIGSEGV",
    "sleep": "passed the wall-clock watchdog (4 s for 1 CPU seconds)",
    "ponder": "black ran out of time (1 s per move of CPU time: its move used",
}
"""What each attack's default says."""
BESIDE = {"no_capture_limit": 1000}
"""The match beside them: long enough to outlast every attack."""
PACE = 0.02
"""Seconds the players beside wait before each move, so that their game outlasts the attacks."""
SLOW_ANSWER = 1.0
"""Seconds within which the match beside gets every move answered, on a loaded machine: an
event loop held up by the attacks would miss it by far."""


def offered(kind: str) -> str:
    return f"{kind}={sys.executable} {HOSTILE} {kind}"


async def attacked(port: int, kind: str, over: dict[str, protocol.GameOver]) -> None:
    """Challenge `hosted:KIND` as white, moving at once, until the game ends."""
    async with await ClientConnection.open("127.0.0.1", port, f"victim-{kind}") as connection:
        control = {"move": 1.0}
        await connection.send(protocol.Seek(game=GAME, time=control, opponent=f"hosted:{kind}"))
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.GameOver):
                over[kind] = message
                return
            if isinstance(message, protocol.YourTurn) and message.legal:
                await connection.send(protocol.Move(match=message.match, move=message.legal[0]))


async def beside(port: int, answers: list[float], stop: trio.Event) -> protocol.GameOver:
    """Two connected players in one match, each moving after `PACE`, adding to `answers` the seconds
    each move took to be accepted; ann resigns at her first turn once `stop` is set."""
    ann = await ClientConnection.open("127.0.0.1", port, "ann")
    bob = await ClientConnection.open("127.0.0.1", port, "bob")
    ended: list[protocol.GameOver] = []

    async def play(connection: ClientConnection, resigns: bool) -> None:
        sent = 0.0
        while not isinstance(message := await connection.receive(), protocol.GameOver):
            if isinstance(message, protocol.MoveAccepted):
                answers.append(trio.current_time() - sent)
            if isinstance(message, protocol.YourTurn) and message.legal:
                if resigns and stop.is_set():
                    await connection.send(protocol.Resign(match=message.match))
                else:
                    await trio.sleep(PACE)
                    sent = trio.current_time()
                    move = protocol.Move(match=message.match, move=message.legal[0])
                    await connection.send(move)
        ended.append(message)

    async with ann, bob:
        time = {"move": 5.0}
        await ann.send(protocol.Seek(game=GAME, time=time, options=BESIDE, hints=True))
        assert isinstance(await ann.receive(), protocol.Seeking)
        await bob.send(protocol.Seek(game=GAME, time=time, options=BESIDE, hints=True))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, ann, True)
            nursery.start_soon(play, bob, False)
    return ended[0]


@pytest.mark.long
async def test_hostile_seats_lose_naming_their_limit_and_the_match_beside_goes_on(
    tmp_path: Path,
) -> None:
    need_bwrap()
    kinds = list(ENDINGS)
    programs = [offered(kind) for kind in kinds]
    with hosting(tmp_path, *programs, slots=len(kinds)) as server:
        over: dict[str, protocol.GameOver] = {}
        answers: list[float] = []
        stop = trio.Event()
        beside_over: list[protocol.GameOver] = []
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:

                async def watched() -> None:
                    beside_over.append(await beside(server.port, answers, stop))

                nursery.start_soon(watched)
                async with trio.open_nursery() as attacks:
                    for kind in kinds:
                        attacks.start_soon(attacked, server.port, kind, over)
                stop.set()
    for kind, ending in ENDINGS.items():
        game = over[kind]
        assert game.winner == "white", (kind, game.reason)
        assert ending in game.reason, (kind, game.reason)
        on_time = kind in ("sleep", "ponder")
        assert game.termination == ("time" if on_time else "disconnect"), game
    [after] = beside_over
    assert after.termination == "resignation", after.reason
    assert len(answers) > 20
    assert max(answers) < SLOW_ANSWER, (max(answers), statistics.median(answers))
