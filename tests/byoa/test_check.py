"""`arbiter check`: our own agents pass; a late client and a sloppy-framing client fail the
step that names their fault."""

from __future__ import annotations

import re
import struct
import subprocess
import sys

import pytest
import trio

from arbiter import protocol
from arbiter.client.check import (
    STEP_NAMES,
    CheckPlan,
    Seen,
    Step,
    illegal_move_text,
    judge_full_game,
    judge_move_time,
    run_check,
)
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.games import GAME_NAMES, get_game
from tests.byoa.conftest import PLAYERS, TEMPLATES
from tests.e2e.helpers import play_randomly
from tests.e2e.test_cli import ROOT

LOCAL = ("127.0.0.1", 0)
RESUMING_UNSUPPORTED = "the server does not support resuming"


def _by_name(steps: list[Step]) -> dict[str, Step]:
    return {step.name: step for step in steps}


def _assert_client_and_probes_pass(steps: list[Step]) -> None:
    """Every step passes; reconnect may instead fail as unsupported (a server that does not
    resume), but never for another reason."""
    assert [step.name for step in steps] == list(STEP_NAMES)
    for step in steps[:-1]:
        assert step.passed, step.line()
    reconnect = steps[-1]
    assert reconnect.passed or RESUMING_UNSUPPORTED in reconnect.why, reconnect.line()


@pytest.mark.parametrize(
    ("player", "game"),
    [(str(TEMPLATES / "watch_your_back.py"), "watch-your-back"), ("random", "kings-court")],
)
async def test_check_passes_our_own_agents(player: str, game: str) -> None:
    lines: list[str] = []
    plan = CheckPlan(listen=LOCAL, player=player, game=game, move_time=1.0)
    with trio.fail_after(45):
        steps = await run_check(plan, show=lines.append)
    _assert_client_and_probes_pass(steps)
    assert lines[-1] == f"{sum(s.passed for s in steps)} of 7 steps passed"
    assert [line for line in lines if line.startswith("  ")] == [s.line() for s in steps]


async def test_check_fails_a_client_that_answers_too_late(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_TEST_LATE", "0.95")
    plan = CheckPlan(listen=LOCAL, player=str(PLAYERS / "late_once.py"), move_time=1.0)
    with trio.fail_after(45):
        steps = _by_name(await run_check(plan, show=lambda line: None))
    assert steps["handshake"].passed
    assert steps["framing"].passed
    late = steps["move time"]
    assert not late.passed
    assert re.search(r"move 5 (took 0\.9\d+ s of its 1 s|was never answered)", late.why), late.why


async def test_check_fails_a_client_that_sends_malformed_frames() -> None:
    waiting = trio.Event()
    lines: list[str] = []

    def show(line: str) -> None:
        lines.append(line)
        if line.startswith("waiting"):
            waiting.set()

    steps: list[Step] = []

    async def check() -> None:
        steps.extend(await run_check(CheckPlan(listen=LOCAL, wait=10), show=show))

    with trio.fail_after(45):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(check)
            await waiting.wait()
            host, port = re.search(r"connect to ([\d.]+):(\d+)", lines[-1]).groups()  # type: ignore[union-attr]
            await _sloppy_client(host, int(port))
    by_name = _by_name(steps)
    assert by_name["handshake"].passed
    framing = by_name["framing"]
    assert not framing.passed
    assert "1 bad frame(s)" in framing.why
    assert "bad_msgpack" in framing.why
    assert by_name["full game against random"].passed, "its game itself went fine"


async def _sloppy_client(host: str, port: int) -> None:
    """Shakes hands, sends one frame of broken msgpack, then plays a clean random game."""
    stream = await trio.open_tcp_stream(host, port)
    connection = ClientConnection(stream, "sloppy", "")
    async with connection:
        await connection.send(protocol.Hello(version=protocol.PROTOCOL_VERSION, name="sloppy"))
        assert isinstance(await connection.receive(), protocol.Welcome)
        await stream.send_all(struct.pack(">I", 2) + b"\xc1\xc1")
        with pytest.raises(ServerError, match="bad_msgpack"):
            await connection.receive()
        seek = protocol.Seek(game="watch-your-back", time={"move": 2.0}, hints=True)
        await connection.send(seek)
        assert isinstance(await play_randomly(connection, seed=5), protocol.GameOver)


def test_a_client_that_never_connects_fails_the_handshake_and_what_follows() -> None:
    seen = Seen()
    assert not judge_full_game(seen, game_over_by_rules=False).passed
    assert "never sent a seek" in judge_full_game(seen, False).why
    assert judge_move_time(seen).why == "the client made no move"


def test_move_time_names_the_slowest_move_by_its_share_of_the_time() -> None:
    seen = Seen(move_times=[(1, 0.5, 10.0), (3, 0.95, 1.0), (5, 0.2, 1.0)])
    step = judge_move_time(seen)
    assert not step.passed
    assert step.why.startswith("move 3 took 0.950 s of its 1 s (95%)")
    assert judge_move_time(Seen(move_times=[(1, 0.89, 1.0)])).passed


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_illegal_position_probe_finds_a_well_formed_illegal_move(name: str) -> None:
    game = get_game(name)
    state = game.new_game(fresh_seed=lambda: 11)
    for _ in range(2):
        text = illegal_move_text(game, state.to_data())
        assert state.why_illegal(game.parse_move(text)) is not None
        state = state.play(state.legal_moves()[0])


def test_check_names_a_missing_module_on_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.client.cli", "check", "missing/player.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )
    assert done.returncode == 2
    assert "no Player module file 'missing/player.py'" in done.stderr
