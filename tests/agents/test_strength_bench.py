"""`bench/strength.py`: games in process and through a real server, and the OpenSpiel bridge."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arbiter.games import get_game

BENCH = Path(__file__).resolve().parents[2] / "bench" / "strength.py"


@pytest.fixture(scope="module")
def strength() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_strength", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_round_robin_in_process_counts_every_game(strength: ModuleType) -> None:
    game = get_game("kings-court")
    tallies = strength.round_robin(
        game, ["random", "alphabeta"], 1, 0.05, seed=1, play=strength.play_in_process
    )
    assert tallies["alphabeta"].games == {"random": 2}
    assert tallies["alphabeta"].points["random"] == 2.0
    assert all(t.time_losses == 0 and t.illegal == 0 for t in tallies.values())
    assert 0 < tallies["alphabeta"].slowest < 1
    table = strength.report(tallies, 0.05, "in process")
    assert "100%" in table and "2 games" in table


def test_an_agent_over_its_time_loses_the_game(strength: ModuleType) -> None:
    class Sleepy:
        def choose(self, state, budget):  # type: ignore[no-untyped-def]
            import time

            time.sleep(budget * 1.2)
            return state.legal_moves()[0]

    game = get_game("kings-court")
    original = strength.build
    strength.build = lambda name, game, seed: (
        Sleepy() if name == "sleepy" else original(name, game, seed)
    )
    try:
        result = strength.play_in_process(game, ("sleepy", "random"), 1, 0.02)
    finally:
        strength.build = original
    assert result.time_loss == 0 and result.points == (0.0, 1.0)


def test_a_game_through_the_real_server_is_judged_by_its_clock(strength: ModuleType) -> None:
    game = get_game("kings-court")
    result = strength.play_on_server(game, ("alphabeta", "random"), 2, 0.2)
    assert result.time_loss is None and result.illegal is None
    assert result.points == (1.0, 0.0), result.reason


def test_openspiel_squares_are_numbered_from_the_top_row(strength: ModuleType) -> None:
    assert strength.OpenSpielMCTS.action(30) == 60  # a4: row 6 from the top, column 0
    assert strength.OpenSpielMCTS.action(3) == 93  # d1
    assert all(
        strength.OpenSpielMCTS.square(strength.OpenSpielMCTS.action(s)) == s for s in range(100)
    )


def test_openspiel_follows_our_game_and_answers_legally(strength: ModuleType) -> None:
    pytest.importorskip("pyspiel")
    game = get_game("amazons")
    state = game.new_game()
    state = state.play(game.parse_move("d1-d7/g7"))  # the bot plays black: it must catch up
    bot = strength.OpenSpielMCTS(game, seed=1)
    move = bot.choose(state, 0.3)
    assert state.why_illegal(move) is None
    after = state.play(move).play(game.parse_move("g1-g4/g1"))  # and keeps up with the game
    assert after.why_illegal(bot.choose(after, 0.3)) is None
