"""A commit process that stalls or dies under a live match, over real TCP on both stores: stopped
for longer than the move limit, it costs no one time; killed with a batch in flight, it costs a
pause and no move. (A store that refuses writes: tests/server/test_full_disk.py.)"""

from __future__ import annotations

import os
import signal

import trio

from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.e2e.helpers import Dial
from tests.processes import commit_writers
from tests.server.live_match import answer, next_turn, pair, play, resign_and_compare

pytestmark = BOTH_BACKENDS


async def test_a_stopped_commit_process_costs_no_one_time(
    server: RunningServer, dial: Dial
) -> None:
    seated = await pair(dial, {"move": 1.0})
    played: list[str] = []
    await play(seated, played, 2)
    turn = await next_turn(seated[0])
    [writer] = commit_writers(server.db)
    os.kill(writer, signal.SIGSTOP)
    try:
        await answer(seated[0], turn, played)  # stored, and announced, once the process goes on
        await trio.sleep(2.5)  # two and a half move limits
    finally:
        os.kill(writer, signal.SIGCONT)
    await play(seated, played, 6)
    await resign_and_compare(seated, played, server.db)


async def test_a_commit_process_killed_mid_batch_costs_no_move(
    server: RunningServer, dial: Dial
) -> None:
    seated = await pair(dial, {"move": 1.0})
    played: list[str] = []
    await play(seated, played, 2)
    turn = await next_turn(seated[0])
    [writer] = commit_writers(server.db)
    os.kill(writer, signal.SIGSTOP)
    await answer(seated[0], turn, played)  # its batch goes to the stopped process...
    await trio.sleep(0.5)
    os.kill(writer, signal.SIGKILL)  # ...which dies with it unanswered
    await play(seated, played, 6)
    assert commit_writers(server.db) not in ([], [writer])
    await resign_and_compare(seated, played, server.db)
