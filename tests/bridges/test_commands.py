"""The bridge's agents through the installed commands, as a user runs them: `arbiter referee`,
`bot` and `tournament local` in their own processes, a real server on 127.0.0.1; and a trained
policy seated by a user's own package through the `arbiter.agents` entry point."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

import numpy as np

from arbiter.bridges.pettingzoo_env import Observation, PolicyAgent
from arbiter.games import GAME_NAMES, get_game
from tests.bridges.test_ecosystem_doc import EXAMPLES
from tests.processes import CLI, ROOT, start_server, stop

MOVE_TIME = "0.2"


def popen(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env
    )


def finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return out


@pytest.mark.long
def test_referee_plays_every_game_with_openspiel_mcts() -> None:
    """One game of each, all at once; OpenSpiel's bot white in some and black in others. (Its
    time keeping is test_openspiel_agent's and bench/ecosystem.py's: a loaded machine can make
    any agent lose on time here.)"""
    seats = {
        name: ["openspiel-mcts", "random"][:: 1 if number % 2 else -1]
        for number, name in enumerate(GAME_NAMES)
    }
    referees = {
        name: popen(
            [*CLI, "referee", name, *pair, "--seed", "2", "--move-time", MOVE_TIME, "--json"]
        )
        for name, pair in seats.items()
    }
    for name, referee in referees.items():
        report = json.loads(finish(referee))
        assert list(report["seats"].values()) == seats[name]
        assert report["outcome"]
        assert report["reason"]


def test_bot_plays_openspiel_mcts_on_a_server(tmp_path: Path) -> None:
    server, address = start_server(tmp_path / "bots.db", log=tmp_path / "server-stderr.txt")
    try:
        options = f"--game war-of-life --games 2 --time move={MOVE_TIME} --seed 1".split()
        bots = [
            popen([*CLI, "bot", "--server", address, "--agent", agent, *options])
            for agent in ("openspiel-mcts", "random")
        ]
        lines = finish(bots[0]).splitlines()
        finish(bots[1])
        assert len(lines) == 2
        assert all("openspiel-mcts as " in line for line in lines)
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
    finally:
        stop(server)


def test_a_local_tournament_seats_openspiel_mcts(tmp_path: Path) -> None:
    entrants = ["openspiel-mcts", "random"]
    options = ["--time", f"move={MOVE_TIME}", "--db", str(tmp_path / "local.db")]
    tournament = popen([*CLI, "tournament", "local", "war-of-life", *entrants, *options])
    results = [line for line in finish(tournament).splitlines() if line.startswith("[")]
    assert len(results) == 2
    assert all("local-openspiel-mcts" in line for line in results)


PLUGIN = next(example for example in EXAMPLES if example.startswith("# my_policy.py"))
"""The documented plugin module (docs/ecosystem.md), as a user would copy it."""


def highest_action(observation: Observation) -> int:
    """The plugin's policy: the highest legal action."""
    return int(np.flatnonzero(observation["action_mask"])[-1])


def install_plugin(folder: Path) -> dict[str, str]:
    """A user's package with the documented `arbiter.agents` entry point, as pip would leave
    it in a folder (the module and its dist-info); the environment of a process that has it."""
    (folder / "my_policy.py").write_text(PLUGIN)
    info = folder / "my_policy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-policy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[arbiter.agents]\nmine = my_policy:AGENTS\n")
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def test_a_trained_policy_plays_through_its_own_entry_point(tmp_path: Path) -> None:
    """`arbiter bot --agent my-policy` plays on a server, and (by the referee's record) every
    move of its seat is the policy's."""
    env = install_plugin(tmp_path)
    game = get_game("amazons")
    referee = popen([*CLI, "referee", "amazons", "my-policy", "random", "--json"], env=env)
    server, address = start_server(tmp_path / "policy.db", log=tmp_path / "server-stderr.txt")
    try:
        bots = [
            popen([*CLI, "bot", "--server", address, "--game", "amazons", "--agent", agent], env)
            for agent in ("my-policy", "random")
        ]
        assert finish(bots[0]).startswith("match 1: my-policy as ")
        finish(bots[1])
    finally:
        stop(server)
    report = json.loads(finish(referee))
    state, agent = game.new_game(), PolicyAgent(game, highest_action)
    for number, text in enumerate(report["moves"]):
        move = game.parse_move(text)
        if number % 2 == 0:
            assert move == agent.choose(state, 1.0)
        state = state.play(move)
    assert state.outcome() is not None
