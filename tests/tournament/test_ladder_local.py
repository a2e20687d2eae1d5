"""`arbiter ladder local`: built-in agents paired and rated on this machine, through a real server.

The convergence check: a ladder of agents whose order docs/agents.md measured with clear margins
finds that order (Kendall's tau 1.0) and grows surer as it plays. bench/ladder.py measures the
same in every game with more games; here one game, few games, a fast clock.
"""

from __future__ import annotations

import re

import pytest

from arbiter.client.ladder import play_ladder
from arbiter.client.runner import GameRecord
from arbiter.games import get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import Ladder, kendall_tau
from arbiter.server.tournaments.ladder_ratings import Skill
from tests.bench.runs import run_bench
from tests.conftest import TIMED
from tests.tournament.helpers import arbiter, arbiter_here, text

ORDER = ["random", "greedy", "alphabeta-d3"]
"""Weakest first. Alpha-beta at a fixed depth, with a clock it never meets, plays the same on a
loaded machine: a search within a budget plays below greedy when other processes take its CPU."""
GAMES = 12
"""Games in the convergence test's ladder: bench/ladder.py measured King's Court's order found
well before (docs/ladder.md), and a few more keep a slow machine's odd game from deciding."""


@TIMED  # untraced: the coverage tracer would make the searches several times slower
@pytest.mark.long
async def test_a_ladder_of_built_in_agents_finds_their_order_and_grows_surer() -> None:
    sigmas: list[dict[str, float]] = []
    pairs: list[tuple[str, str]] = []

    def watch(number: int, pair: tuple[str, str], record: GameRecord, ladder: Ladder) -> None:
        pairs.append(pair)
        sigmas.append({name: entry.skill.sigma for name, entry in ladder.entries.items()})

    ladder = await play_ladder(
        get_game("kings-court"),
        ORDER,
        games=GAMES,
        seed=3,
        time=TimeControl.parse("move=2"),
        on_game=watch,
    )
    ranking = [entry.name for entry in reversed(ladder.table())]
    assert kendall_tau(ranking, ORDER) == 1.0, ladder.table()
    assert sum(entry.games for entry in ladder.table()) == 2 * GAMES
    assert all(first != second for first, second in pairs)
    for name in ORDER:  # each entrant's uncertainty, at its games, falls from the prior
        own = [step[name] for step in sigmas]
        assert own[-1] < own[len(own) // 2] < Skill().sigma


async def test_the_command_prints_each_game_and_the_table() -> None:
    done = await arbiter(
        "ladder", "local", "kings-court", "--agents", "random,greedy", "--games", "2",
        "--seed", "5", "--time", "move=0.05", "--per-hour", "2",
    )  # fmt: skip
    out = text(done)
    games = re.findall(r"^\[(\d)/2\] (\w+) vs (\w+): (1-0|0-1|½-½|0-0), ", out, re.MULTILINE)
    assert [number for number, *_ in games] == ["1", "2"]
    assert {(first, second) for _, first, second, _ in games} == {
        ("random", "greedy"),
        ("greedy", "random"),
    }  # the pair's colours split, one game each way
    assert "kings-court ladder: 2 games" in out
    rows = re.findall(
        r"^\s+(\d)\s+(\w+)\s+(-?\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d)\s+2\s*$", out, re.MULTILINE
    )
    assert [rank for rank, *_ in rows] == ["1", "2"]
    assert {name for _, name, *_ in rows} == {"random", "greedy"}


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["shobu", "--agents", "random,nosuch"], "no built-in agent 'nosuch' for shobu (agents: "),
        (["shobu", "--agents", "random"], "a ladder needs two agents or more, not 1"),
        (["shobu", "--agents", "random,greedy,random"], "entered once: random repeated"),
        (["shobu", "--agents", "random,greedy", "--games", "0"], "a whole number of at least 1"),
        (["nogame", "--agents", "random,greedy"], "invalid choice: 'nogame'"),
    ],
    ids=["unknown agent", "one agent", "repeated agent", "no games", "unknown game"],
)
async def test_bad_input_gets_a_sentence_and_plays_nothing(args: list[str], sentence: str) -> None:
    done = await arbiter_here("ladder", "local", *args)
    assert done.returncode == 2
    assert sentence in done.stderr.decode()
    assert done.stdout == b""


@pytest.mark.long
def test_the_bench_recovers_the_order_and_says_after_how_many_games() -> None:
    done = run_bench(
        "ladder.py", "--only", "kings-court", "--games", "10", "--time", "move=0.05",
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    measured = r"^\| kings-court \| random < greedy < alphabeta \| move=0.05 \| 10 \| (\d+) \| "
    row = re.search(measured, done.stdout, re.MULTILINE)
    assert row is not None, done.stdout
    assert 1 <= int(row[1]) <= 10
