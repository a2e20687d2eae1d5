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
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_round_robin_in_process_counts_every_game(strength: ModuleType) -> None:
    game = get_game("kings-court")
    tallies = strength.round_robin(  # 0.2 s: twice a stall's length
        game, ["random", "alphabeta"], 1, 0.2, seed=1, play=strength.play_in_process
    )
    assert tallies["alphabeta"].games == {"random": 2}
    assert tallies["alphabeta"].points["random"] == 2.0
    assert all(t.time_losses == 0 and t.illegal == 0 for t in tallies.values())
    assert 0 < tallies["alphabeta"].slowest < 1
    search = tallies["alphabeta"].search
    assert search.moves > 0
    assert search.nodes > 0
    assert max(search.depths) >= 1
    assert tallies["alphabeta"].wins == 2
    assert tallies["random"].losses == 2
    table = strength.report(tallies, 0.2, "in process")
    assert "100%" in table
    assert "2 games" in table


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
    assert result.time_loss == 0
    assert result.points == (0.0, 1.0)


def test_each_seat_keeps_its_own_budget_and_overruns_are_counted_without_forfeits(
    strength: ModuleType,
) -> None:
    """bench/versus.py's games: the opponent gets several times the time, and a move over its
    budget is counted, not lost, unless forfeits are asked for."""

    class Slow:
        """Takes 30 ms a move: over a 20 ms budget, within a 100 ms one."""

        def choose(self, state, budget):  # type: ignore[no-untyped-def]
            import time

            time.sleep(0.03)
            return state.legal_moves()[0]

    game = get_game("war-of-life")  # first moves against first moves: 15 plies
    make = lambda name, game, seed: Slow()  # noqa: E731
    counted = strength.play_in_process(game, ("a", "b"), 1, (0.02, 0.1), make, forfeit=False)
    assert counted.time_loss is None
    assert counted.illegal is None
    assert counted.over_time[0] == (counted.plies + 1) // 2
    assert counted.over_time[1] == 0
    assert counted.slowest is not None
    assert counted.slowest[0] > 1 > counted.slowest[1]
    lost = strength.play_in_process(game, ("b", "a"), 1, (0.1, 0.02), make)
    assert lost.time_loss == 1
    assert lost.points == (1.0, 0.0)
    assert lost.over_time == (0, 1)


def test_the_bench_exits_1_when_an_agent_loses_on_time(
    strength: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Sleepy:
        def choose(self, state, budget):  # type: ignore[no-untyped-def]
            import time

            time.sleep(budget * 1.5)
            return state.legal_moves()[0]

    original = strength.build
    monkeypatch.setattr(
        strength,
        "build",
        lambda name, game, seed: Sleepy() if name == "sleepy" else original(name, game, seed),
    )
    argv = ["strength.py", "kings-court", "--agents", "sleepy,random", "--games", "1"]
    monkeypatch.setattr(sys, "argv", [*argv, "--move-time", "0.02"])
    with pytest.raises(SystemExit) as exit_info:
        strength.main()
    assert exit_info.value.code == 1
    out, err = capsys.readouterr()
    assert "| sleepy | 2 | 0 | 0 | 2 | 2 | 0 |" in out
    assert "FAILED: 2 games lost on time" in err


def test_busy_processes_spin_during_the_block_and_are_gone_after(strength: ModuleType) -> None:
    with strength.busy_processes(2) as spinners:
        assert len(spinners) == 2
        assert all(spinner.poll() is None for spinner in spinners)
    assert all(spinner.poll() is not None for spinner in spinners)


def test_vs_pairs_every_agent_with_the_one_opponent(strength: ModuleType) -> None:
    assert strength.pairings(["a", "b", "c"], None) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert strength.pairings(["a", "b"], "z") == [("a", "z"), ("b", "z")]
    game = get_game("war-of-life")
    tallies = strength.round_robin(
        game, ["random"], 1, 0.05, seed=1, play=strength.play_in_process, opponent="land-grab"
    )
    assert tallies["land-grab"].games == {"random": 2}


def test_the_ladder_is_written_into_its_own_part_of_the_section(
    strength: ModuleType, tmp_path: Path
) -> None:
    doc = tmp_path / "agents.md"
    doc.write_text("# Agents\n\n<!-- strength:begin -->\nHow to read it.\n<!-- strength:end -->\n")
    strength.write_table(doc, "shobu", "Shobu, first run.", ["| a |"])
    strength.write_table(doc, "amazons", "Amazons.", ["| b |"])
    strength.write_table(doc, "shobu", "Shobu, second run.", ["| c |"])
    text = doc.read_text()
    assert "How to read it." in text
    assert "first run" not in text
    assert "| a |" not in text
    assert text.index("Amazons.") < text.index("Shobu, second run.") < text.index("| c |")
    assert text.count("<!-- strength:shobu -->") == 1
    assert text.endswith("<!-- strength:end -->\n")
    (tmp_path / "bare.md").write_text("no section\n")
    with pytest.raises(SystemExit, match="no <!-- strength:begin -->"):
        strength.write_table(tmp_path / "bare.md", "shobu", "x", [])


def test_a_game_through_the_real_server_is_judged_by_its_clock(strength: ModuleType) -> None:
    game = get_game("kings-court")
    result = strength.play_on_server(game, ("alphabeta", "random"), 2, 0.2)
    assert result.time_loss is None
    assert result.illegal is None
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


def test_openspiel_mcts_is_openspiels_own_bot_at_amazons_and_the_bridges_elsewhere(
    strength: ModuleType,
) -> None:
    pytest.importorskip("pyspiel")
    from arbiter.bridges.openspiel_agent import OpenSpielMCTS as Bridged

    assert isinstance(
        strength.build("openspiel-mcts", get_game("amazons"), 1), strength.OpenSpielMCTS
    )
    for name in ("kings-court", "war-of-life", "shobu", "watch-your-back"):
        assert isinstance(strength.build("openspiel-mcts", get_game(name), 1), Bridged)
