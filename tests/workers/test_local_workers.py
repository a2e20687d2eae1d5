"""`arbiter-server --workers N`: the server's own workers host its tournament's built-in agents,
with no client online once the director has started it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import trio

from arbiter.server.app import open_records, read_records, read_tournaments
from tests.tournament.helpers import QUICK, create, director, start


async def test_two_local_workers_play_a_tournament_of_built_in_agents(
    tmp_path: Path, with_workers: tuple[subprocess.Popen[str], int]
) -> None:
    db, log = tmp_path / "arbiter.db", tmp_path / "server.log"
    _, port = with_workers
    with trio.fail_after(30):
        async with await director(port, db) as connection:
            local = ["random", "greedy"]
            await create(connection, time={"move": 1.0}, local=local, options=QUICK)
            await start(connection)
    deadline = time.monotonic() + 90  # the director is gone: nobody else is online
    while (tournament := read_tournaments(db)[0]).status != "finished":
        assert time.monotonic() < deadline, tournament.games
        await trio.sleep(0.2)
    assert [game["status"] for game in tournament.games] == ["finished", "finished"]
    assert all(game["defaults"] == [None, None] for game in tournament.games), tournament.games
    assert log.read_text().count("seat_hosted") >= 2
    records = open_records(db)
    try:
        played = list(read_records(records, tournament="cup"))
    finally:
        records.close()
    assert [record.clocks for record in played] == [["cpu", "cpu"]] * 2
    assert all(move.cpu is not None for record in played for move in record.moves)
