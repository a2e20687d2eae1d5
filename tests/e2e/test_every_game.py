"""Every registered game, played whole through the server by two `random` bots over TCP."""

from __future__ import annotations

import json
import sqlite3

import pytest
import trio

from arbiter.agents import make_agent
from arbiter.client.runner import run_bot
from arbiter.games import GAME_NAMES, get_game
from tests.conftest import RunningServer
from tests.e2e.helpers import replay
from tests.e2e.test_cli import CLI, run


@pytest.mark.parametrize("name", GAME_NAMES)
async def test_two_random_bots_finish_a_game_and_the_record_replays(
    server: RunningServer, name: str
) -> None:
    records = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for seat_seed in (1, 2):
                nursery.start_soon(
                    lambda seat_seed=seat_seed: run_bot(
                        server.host,
                        server.port,
                        name,
                        lambda game, n, s=seat_seed: make_agent("random", game, s),
                        name=f"random-{seat_seed}",
                        on_result=records.append,
                    )
                )
    assert len(records) == 2
    assert records[0].moves == records[1].moves
    with sqlite3.connect(server.db) as db:
        (options,) = db.execute("SELECT options FROM matches").fetchone()
    final = replay(name, json.loads(options), records[0].moves)
    outcome = final.outcome()
    assert outcome is not None
    assert outcome.reason == records[0].reason


@pytest.mark.parametrize("name", GAME_NAMES)
def test_referee_json_reports_a_result_for_every_game(name: str) -> None:
    done = run([*CLI, "referee", name, "random", "random", "--seed", "2", "--json"])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["game"] == name
    assert list(report["seats"]) == list(get_game(name).seats)
    assert report["outcome"] in {"win", "draw", "both_forfeit"}
    assert report["reason"]
