"""Hosted seats over real TCP: a server, a real `arbiter worker` process, its agents' processes,
and a connected player challenging `hosted:AGENT`.

A hosted seat is judged on CPU seconds: sleeping costs it nothing (up to the wall-clock
watchdog), burning CPU costs it its moves, and the CPU figure comes from the worker alone. The
worker ends a move the moment it has spent its CPU allowance, so a burner loses on CPU time even
on a machine too loaded for it to burn faster than the watchdog's wall clock runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from tests.e2e.test_versions import RawClient
from tests.processes import CLI, ROOT, start_server, stop
from tests.workers.hosting import GAME, PROGRAM, challenge, hosting, program

BURN_FOR_EVER = 600.0
"""A burner's seconds of CPU a move: it never moves by itself, so only its worker's word that
the move is out of CPU time can end its turn before the watchdog."""
SHORT = "move=0.25"
"""A short CPU allowance for the burner: its watchdog (1.75 s of wall time) fires first only on
a machine that gives it under a seventh of a core, so the outcome does not depend on the load."""


class Address(NamedTuple):
    """Where `RawClient.hello` connects."""

    host: str
    port: int


def exported(db: Path) -> list[dict[str, object]]:
    done = subprocess.run(
        [*CLI, "export", "--db", str(db)], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


async def test_a_hosted_seat_plays_a_whole_game_against_a_connected_player(
    tmp_path: Path,
) -> None:
    with hosting(tmp_path) as server:
        with trio.fail_after(60):
            over, theirs = await challenge(server.port, "random", "move=2")
        assert over.termination in ("rule", "draw-by-rule", "double-forfeit"), over.reason
        assert theirs > 0
        assert over.judged_by == ["wall", "cpu"]  # alice sought first: white, on the wall clock
        [record] = exported(server.db)
        assert record["players"] == ["alice", "hosted-random-1"]
        assert record["clocks"] == ["wall", "cpu"]
        moves = record["moves"]
        assert isinstance(moves, list)
        assert all((move["cpu"] is None) == (move["seat"] == "white") for move in moves)


@pytest.mark.long
async def test_sleeping_costs_a_cpu_clock_nothing(tmp_path: Path) -> None:
    """1.5 s of sleep a move on a 1 s CPU allowance is in time (the watchdog is at 4 s)."""
    with hosting(tmp_path, program("sleep", 1.5)) as server:
        with trio.fail_after(60):
            over, theirs = await challenge(server.port, "sleep", "move=1", resign_after=2)
        assert theirs == 2
        assert over.termination == "resignation", over.reason


async def test_an_agent_slow_to_start_still_plays(tmp_path: Path) -> None:
    """The server hears a hosted agent's hello within its hello deadline (5 s) of the agent's
    first word, not of the sandbox's start: an interpreter that takes 7 s to start on a loaded
    machine still plays."""
    with hosting(tmp_path, program("late", 7.0)) as server:
        with trio.fail_after(60):
            over, theirs = await challenge(server.port, "late", "move=2", resign_after=2)
        assert theirs == 2
        assert over.termination == "resignation", over.reason


@pytest.mark.long
async def test_an_agent_asleep_past_the_watchdog_loses_on_time(tmp_path: Path) -> None:
    with hosting(tmp_path, program("sleep", 8.0)) as server:  # past the watchdog and stalls
        with trio.fail_after(60):
            over, theirs = await challenge(server.port, "sleep", "move=1")
        assert theirs == 0
        assert over.termination == "time"
        assert over.winner == "white"
        assert "watchdog (4 s for 1 CPU seconds)" in over.reason


def offered(name: str, kind: str, seconds: float) -> str:
    """`--program NAME=COMMAND` for hosted_program.py's `kind` under the agent name `name`."""
    return f"{name}={sys.executable} {PROGRAM} {kind} {seconds}"


async def lose_by_burning(port: int) -> None:
    """Challenge the burner on `SHORT`: it loses on CPU time on its first move, having used
    about its allowance (the worker looked in time), well before the watchdog."""
    with trio.fail_after(60):
        over, theirs = await challenge(port, "burn", SHORT)
    assert theirs == 0
    assert over.termination == "time"
    assert over.winner == "white"
    used = re.fullmatch(
        r"black ran out of time \(0\.25 s per move of CPU time: its move used (\S+) CPU seconds\)",
        over.reason,
    )
    assert used is not None, over.reason
    assert 0.25 <= float(used[1]) < 0.25 + 0.2  # shown to two places


@pytest.mark.long
async def test_burning_cpu_past_the_allowance_loses_on_time_in_cpu_seconds(
    tmp_path: Path,
) -> None:
    with hosting(tmp_path, program("burn", BURN_FOR_EVER)) as server:
        await lose_by_burning(server.port)


@contextlib.contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` processes that keep a core busy each, for as long as the block runs."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


@pytest.mark.long
async def test_on_a_loaded_machine_a_burner_loses_on_cpu_and_a_thinker_in_time_plays(
    tmp_path: Path,
) -> None:
    """Three busy loops beside the two cores' other work: the burner still loses on CPU time,
    not on the watchdog, and an agent that uses a fifth of its allowance a move plays on."""
    programs = program("burn", BURN_FOR_EVER), offered("thinker", "burn", 0.1)
    with hosting(tmp_path, *programs) as server, busy_loops(3):
        await lose_by_burning(server.port)
        with trio.fail_after(60):
            over, theirs = await challenge(server.port, "thinker", "move=0.5", resign_after=3)
        assert theirs == 3
        assert over.termination == "resignation", over.reason


async def test_a_forged_cpu_figure_is_overwritten_by_the_worker(tmp_path: Path) -> None:
    """The agent burns 0.3 s a move and says its move cost 0 CPU seconds; the record holds
    what the worker measured."""
    with hosting(tmp_path, program("forge", 0.3)) as server:
        with trio.fail_after(60):
            over, theirs = await challenge(server.port, "forge", "move=1", resign_after=2)
        assert (theirs, over.termination) == (2, "resignation"), over.reason
        [record] = exported(server.db)
        moves = record["moves"]
        assert isinstance(moves, list)
        black = [move["cpu"] for move in moves if move["seat"] == "black"]
        assert len(black) == 2
        assert all(0.25 <= cpu < 1.0 for cpu in black), black


async def test_a_connected_player_may_not_say_what_its_moves_cost(tmp_path: Path) -> None:
    with hosting(tmp_path) as server:
        with trio.fail_after(30):
            alice = await ClientConnection.open("127.0.0.1", server.port, "alice")
            bob = await ClientConnection.open("127.0.0.1", server.port, "bob")
            async with alice, bob:
                await alice.send(protocol.Seek(game=GAME, time={"move": 5.0}))
                assert isinstance(await alice.receive(), protocol.Seeking)  # she is white
                await bob.send(protocol.Seek(game=GAME, time={"move": 5.0}))
                while not isinstance(turn := await alice.receive(), protocol.YourTurn):
                    pass
                assert turn.legal
                await alice.send(protocol.Move(match=turn.match, move=turn.legal[0], cpu=0.0))
                with pytest.raises(Exception, match="only the worker hosting a seat"):
                    await alice.receive()
                await alice.send(protocol.OutOfCpu(match=turn.match, cpu=9.0))
                with pytest.raises(ServerError, match="only the worker hosting a seat says its"):
                    await alice.receive()
                await alice.send(protocol.Move(match=turn.match, move=turn.legal[0]))
                assert isinstance(await alice.receive(), protocol.MoveAccepted)  # it goes on


async def test_a_worker_killed_mid_game_loses_its_seat_and_no_move(tmp_path: Path) -> None:
    """SIGKILL of the worker: its seat defaults with "worker lost" at once; every move either
    side was told of is in the record."""
    with hosting(tmp_path, program("sleep", 0.3)) as server:
        with trio.fail_after(60):
            alice = await ClientConnection.open("127.0.0.1", server.port, "alice")
            async with alice:
                time = {"move": 5.0}
                await alice.send(protocol.Seek(game=GAME, time=time, opponent="hosted:sleep"))
                seen = 0
                while True:
                    message = await alice.receive()
                    if isinstance(message, protocol.OpponentMoved | protocol.MoveAccepted):
                        seen += 1
                    if isinstance(message, protocol.OpponentMoved) and seen == 4:
                        os.kill(server.worker.pid, signal.SIGKILL)
                    if isinstance(message, protocol.YourTurn) and message.legal:
                        move = protocol.Move(match=message.match, move=message.legal[0])
                        await alice.send(move)
                    if isinstance(message, protocol.GameOver):
                        break
        assert message.termination == "disconnect"
        assert message.winner == "white"
        assert message.reason == "black: worker lost"
        [record] = exported(server.db)
        assert len(record["moves"]) == seen == len(message.moves)  # type: ignore[arg-type]


async def test_a_version_1_client_meets_a_hosted_agent_and_nothing_new(tmp_path: Path) -> None:
    with hosting(tmp_path) as server:
        with trio.fail_after(60):
            address = Address("127.0.0.1", server.port)
            old = await RawClient.hello(address, "oldie", 1)  # type: ignore[arg-type]
            await old.send(type="seek", game=GAME, time={"move": 2.0}, opponent="hosted:random")
            over = await old.play()
            await old.stream.aclose()
    assert over["result"] in ("win", "draw", "both_forfeit")
    for frame in old.frames:
        kind = protocol.MESSAGE_TYPES[frame["type"]]
        assert set(frame) - {"type"} <= set(kind._NAMES[1]), frame
    assert "judged_by" not in over
    assert "clocks_ms" not in over


async def test_a_version_1_move_cannot_carry_a_cpu_figure(tmp_path: Path) -> None:
    with hosting(tmp_path) as server:
        with trio.fail_after(30):
            address = Address("127.0.0.1", server.port)
            old = await RawClient.hello(address, "oldie", 1)  # type: ignore[arg-type]
            await old.send(type="move", match=1, move="B6C6", cpu=0.0)
            refused = await old.read()
            await old.send(type="out_of_cpu", match=1, cpu=2.0)
            unknown = await old.read()
            await old.stream.aclose()
    assert refused["type"] == "error"
    assert refused["code"] == "unknown_field", refused
    assert unknown["type"] == "error"
    assert unknown["code"] == "needs_version", unknown


async def test_a_challenge_to_an_agent_the_worker_cannot_run_is_withdrawn(
    tmp_path: Path,
) -> None:
    with hosting(tmp_path) as server:
        with trio.fail_after(30):
            async with await ClientConnection.open("127.0.0.1", server.port, "alice") as alice:
                time = {"move": 1.0}
                await alice.send(protocol.Seek(game=GAME, time=time, opponent="hosted:nosuch"))
                assert isinstance(await alice.receive(), protocol.Seeking)
                with pytest.raises(ServerError, match="no agent 'nosuch' on this worker"):
                    await alice.receive()


async def test_a_challenge_to_a_hosted_agent_with_no_worker_is_refused(tmp_path: Path) -> None:
    server, address = start_server(tmp_path / "arbiter.db")
    try:
        port = int(address.rsplit(":", 1)[1])
        with trio.fail_after(30):
            async with await ClientConnection.open("127.0.0.1", port, "alice") as alice:
                time = {"move": 1.0}
                await alice.send(protocol.Seek(game=GAME, time=time, opponent="hosted:random"))
                with pytest.raises(ServerError, match="no worker has a free slot"):
                    await alice.receive()
    finally:
        stop(server)
