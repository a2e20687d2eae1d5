"""Player modules (the original referee's `Player` API) through the adapter: translation,
isolation, crashes, and whole games through a real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.agents import make_agent
from arbiter.client.connection import ClientConnection
from arbiter.client.player_module import (
    ActionError,
    PlayerAgent,
    PlayerCrashed,
    action_from_move,
    is_module_path,
    move_from_action,
    phase_turns,
    play_seat,
    run_player_bot,
)
from arbiter.client.referee import referee
from arbiter.client.runner import GameRecord, run_bot
from arbiter.games import GAME_NAMES, get_game
from arbiter.games.watch_your_back import PASS, WatchYourBackState
from tests.byoa.conftest import PLAYERS, TEMPLATES
from tests.conftest import RunningServer
from tests.e2e.helpers import replay

WYB = get_game("watch-your-back")
ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "arbiter.client.cli"]

# -- translation, as the original referee did it ---------------------------------------------


def test_turns_count_moves_within_the_phase() -> None:
    assert phase_turns(WYB, WatchYourBackState(0, 0, ply=0)) == 0
    assert phase_turns(WYB, WatchYourBackState(0, 0, ply=23)) == 23
    moving = WatchYourBackState.from_rows(
        """
        X------X
        -O---O--
        --------
        --------
        --------
        --------
        -@---@--
        X------X
        """,
        ply=24,
    )
    assert phase_turns(WYB, moving) == 0
    assert phase_turns(WYB, WatchYourBackState(moving.white, moving.black, ply=31)) == 7


def test_turns_count_every_move_in_the_other_games() -> None:
    kings_court = get_game("kings-court")
    state = kings_court.new_game()
    for _ in range(3):
        state = state.play(state.legal_moves()[0])
    assert phase_turns(kings_court, state) == 3


@pytest.mark.parametrize(
    ("action", "move"),
    [
        ((3, 4), (3, 4)),
        ([3, 4], (3, 4)),
        (((1, 2), (1, 3)), ((1, 2), (1, 3))),
        ([[1, 2], [1, 4]], ((1, 2), (1, 4))),
        (None, PASS),
    ],
)
def test_watch_your_back_actions_are_the_original_tuples(action: object, move: object) -> None:
    assert move_from_action(WYB, action) == move


@pytest.mark.parametrize("action", [(8, 1), (1,), "3,4", ((1, 2), (1, 3), (1, 4)), True, 7])
def test_a_watch_your_back_answer_that_is_no_action_is_refused(action: object) -> None:
    with pytest.raises(ActionError, match="not a Watch Your Back! action"):
        move_from_action(WYB, action)


def test_update_receives_the_original_action_or_none_for_a_forfeit() -> None:
    assert action_from_move(WYB, PASS) is None
    assert action_from_move(WYB, ((1, 2), (1, 3))) == ((1, 2), (1, 3))
    assert action_from_move(WYB, WYB.parse_move("3,4")) == (3, 4)


def test_other_games_speak_notation_both_ways() -> None:
    amazons = get_game("amazons")
    move = move_from_action(amazons, "D1-D7/G7")
    assert amazons.format_move(move) == "d1-d7/g7"
    assert action_from_move(amazons, move) == "d1-d7/g7"
    with pytest.raises(ActionError, match="not a move in"):
        move_from_action(amazons, ("d1", "d7"))
    with pytest.raises(ActionError, match="'d1-d7'"):
        move_from_action(amazons, "d1-d7")


def test_module_paths_are_told_from_agent_names() -> None:
    assert is_module_path("my_agent.py")
    assert is_module_path("players/greedy")
    assert not is_module_path("greedy")


# -- the module's process: answers, crashes, hangs, prints ------------------------------------


def _first_action(path: Path, budget: float = 5.0) -> object:
    agent = PlayerAgent(path, WYB)
    try:
        return agent.choose(WYB.new_game(), budget)
    finally:
        agent.close()


def test_an_exception_is_a_crash_carrying_the_modules_own_traceback(
    write_module: Callable[[str], Path],
) -> None:
    path = write_module(
        """
        class Player:
            def __init__(self, colour):
                self.colour = colour

            def action(self, turns):
                return {}[self.colour]

            def update(self, action):
                pass
        """
    )
    with pytest.raises(PlayerCrashed) as crash:
        _first_action(path)
    assert "crashed in action(0): KeyError: 'white'" in str(crash.value)
    report = crash.value.report()
    assert f'File "{path}", line 6, in action' in report
    assert "player_module.py" not in report, "the adapter's own frames are noise to a student"


def test_a_module_that_hangs_is_stopped_when_its_time_is_up(
    write_module: Callable[[str], Path],
) -> None:
    path = write_module(
        """
        import time

        class Player:
            def __init__(self, colour):
                pass

            def action(self, turns):
                time.sleep(60)
        """
    )
    with pytest.raises(PlayerCrashed, match="no answer before its time ran out"):
        _first_action(path, budget=0.2)


@pytest.mark.parametrize(
    ("source", "complaint"),
    [
        (
            "import os\nclass Player:\n    def __init__(self, c):\n        os._exit(3)",
            "exit code 3",
        ),
        (
            "import sys\nclass Player:\n    def __init__(self, c):\n        sys.exit(2)",
            "SystemExit",
        ),
        ("def helper():\n    pass", "defines no Player class"),
        ("class Player(:\n    pass", "SyntaxError"),
    ],
)
def test_a_module_that_dies_or_cannot_load_is_a_crash(
    write_module: Callable[[str], Path], source: str, complaint: str
) -> None:
    with pytest.raises(PlayerCrashed, match=complaint):
        _first_action(write_module(source))


def test_prints_and_input_cannot_reach_the_pipe(write_module: Callable[[str], Path]) -> None:
    path = write_module(
        """
        import os

        class Player:
            def __init__(self, colour):
                print("debugging output", flush=True)
                os.write(1, b"raw bytes on fd 1\\n")

            def action(self, turns):
                try:
                    return input()
                except EOFError:  # stdin is empty, never the adapter's pipe
                    return (3, 4)
        """
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from tests.byoa.test_player_module import _first_action; from pathlib import Path;"
            f"print('answer', _first_action(Path({str(path)!r})))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answer (3, 4)"
    assert "debugging output" in done.stderr
    assert "raw bytes on fd 1" in done.stderr


# -- whole games through a real server --------------------------------------------------------


async def test_a_player_module_plays_a_full_game_through_the_server(
    quick_server: RunningServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("ARBITER_TEST_LOG", str(log))
    records: list[GameRecord] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await _module_seat_first(nursery, quick_server, PLAYERS / "recorder.py", records)
    mine, theirs = sorted(records, key=lambda r: r.players[r.seats.index(r.seat)] != "recorder")
    assert mine.seat == "white"
    assert mine.moves == theirs.moves
    assert replay("watch-your-back", {}, mine.moves).outcome() is not None
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0] == ["init", "white"]
    actions = [call for call in calls if call[0] == "action"]
    updates = [call for call in calls if call[0] == "update"]
    moves = [WYB.parse_move(text) for text in mine.moves]
    assert [_as_move(call[2]) for call in actions] == moves[0::2]
    assert [_as_move(call[1]) for call in updates] == moves[1::2], "every opponent move, once"
    assert [call[1] for call in actions] == _white_turns(len(moves))


def _as_move(action: object) -> object:
    return PASS if action is None else move_from_action(WYB, action)


def _white_turns(plies: int) -> list[int]:
    """White's `turns` as the original referee passed them: counted afresh in each phase."""
    return [ply if ply < 24 else ply - 24 for ply in range(0, plies, 2)]


async def _module_seat_first(
    nursery: trio.Nursery, server: RunningServer, path: Path, records: list[GameRecord]
) -> None:
    """The module's seat, then `random`'s once the module's seek is open: the module is white."""
    sought = trio.Event()
    nursery.start_soon(_module_seat, server, path, records, sought)
    await sought.wait()
    nursery.start_soon(_random_seat, server, records)


async def _module_seat(
    server: RunningServer, path: Path, records: list[GameRecord], sought: trio.Event
) -> None:
    def hook(message: protocol.Message) -> None:
        if isinstance(message, protocol.Seeking):
            sought.set()

    records += await run_player_bot(
        server.host, server.port, "watch-your-back", path, name=path.stem, on_message=hook
    )


async def _random_seat(server: RunningServer, records: list[GameRecord]) -> None:
    records += await run_bot(
        server.host,
        server.port,
        "watch-your-back",
        lambda game, _: make_agent("random", game, 3),
        name="random",
    )


async def test_a_module_raising_mid_game_loses_by_crash_with_the_traceback_reported(
    quick_server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    records: list[GameRecord] = []
    crashes: list[PlayerCrashed] = []

    sought = trio.Event()

    async def crashing_seat() -> None:
        with pytest.raises(PlayerCrashed) as crash:
            await _module_seat(quick_server, PLAYERS / "crash_mid_game.py", records, sought)
        crashes.append(crash.value)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(crashing_seat)
            await sought.wait()
            nursery.start_soon(_random_seat, quick_server, records)
    (survivor,) = records
    assert (survivor.result, survivor.winner) == ("win", "black"), "the crashed seat defaulted"
    assert len(survivor.moves) == 6, "white crashed on its fourth action"
    stderr = capsys.readouterr().err
    assert "crash_mid_game.py crashed in action(6): KeyError" in stderr
    assert "in count_enemies" in stderr
    assert "no board cell for turn 6" in stderr
    assert crashes[0].report() in stderr


async def test_play_seat_hands_the_runner_hook_every_message_too(
    quick_server: RunningServer,
) -> None:
    seen: list[str] = []
    records: list[GameRecord] = []

    sought = trio.Event()

    def hook(message: protocol.Message) -> None:
        seen.append(message.TYPE)
        if isinstance(message, protocol.Seeking):
            sought.set()

    async def module_seat() -> None:
        async with await ClientConnection.open(quick_server.host, quick_server.port, "m") as conn:
            agent = PlayerAgent(TEMPLATES / "watch_your_back.py", WYB)
            records.append(await play_seat(conn, WYB, agent, on_message=hook))

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(module_seat)
            await sought.wait()
            nursery.start_soon(_random_seat, quick_server, records)
    assert seen[0] == "seeking"
    assert seen[-1] == "game_over"
    assert "opponent_moved" in seen
    assert records[0].moves == records[1].moves


@pytest.mark.parametrize("name", GAME_NAMES)
async def test_every_template_is_a_working_random_player(name: str) -> None:
    template = TEMPLATES / f"{name.replace('-', '_')}.py"
    with trio.fail_after(60):
        record = await referee(name, (str(template), "random"), seed=4, time_control="move=5")
    assert record.players[0] == template.stem
    final = replay(name, _options(name, 4), record.moves)
    assert final.outcome() is not None, "the game ran to its end by the rules"


def _options(name: str, seed: int) -> dict[str, object]:
    game = get_game(name)
    return game.resolve_options({option.name: seed for option in game.options if option.is_seed})


def test_referee_takes_module_paths_for_both_seats_and_keeps_prints_off_stdout() -> None:
    done = subprocess.run(
        [
            *CLI,
            "referee",
            "watch-your-back",
            str(PLAYERS / "recorder.py"),
            "agents/templates/watch_your_back.py",
            "--seed",
            "1",
            "--json",
            "--no-sandbox",  # the recorder logs where its environment says; a sandbox clears it
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "ARBITER_TEST_LOG": os.devnull},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["seats"] == {
        "white": str(PLAYERS / "recorder.py"),
        "black": "agents/templates/watch_your_back.py",
    }
    assert report["outcome"] in {"win", "draw"}
    assert len(report["moves"]) >= 24


def test_bot_refuses_a_missing_module_and_agent_with_player_together() -> None:
    base = [*CLI, "bot", "--server", "127.0.0.1:1", "--game", "watch-your-back"]
    missing = subprocess.run([*base, "--player", "nowhere.py"], capture_output=True, text=True)
    assert missing.returncode == 2
    assert "no Player module at 'nowhere.py'" in missing.stderr
    both = subprocess.run(
        [*base, "--player", "a.py", "--agent", "random"], capture_output=True, text=True
    )
    assert both.returncode == 2
    assert "not allowed with argument" in both.stderr
