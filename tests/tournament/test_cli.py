"""The commands as a director, a team and a curious student type them: separate processes."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
import trio

from arbiter.server.storage.engine import open_read_only
from arbiter.server.storage.records import read_records
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.tournament.helpers import arbiter, register, text


@pytest.mark.long
@BOTH_BACKENDS
async def test_create_start_play_and_read_the_standings_from_the_command_line(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "ann", "ben")
    boss = register(server.db, "boss", role="admin")["boss"]
    where = ["--server", f"{server.host}:{server.port}"]
    created = await arbiter(
        "tournament", "create", "cup", "--game", "kings-court", "--players", "ann,ben",
        "--time", "move=1", "--option", "no_capture_limit=6", "--rounds", "2",
        *where, "--name", "boss", token=boss,
    )  # fmt: skip
    assert text(created) == "created cup: 2 entrants, 4 games\n"
    assert "started cup: 4 games" in text(
        await arbiter("tournament", "start", "cup", *where, "--name", "boss", token=boss)
    )
    results: dict[str, str] = {}

    async def play(name: str) -> None:
        done = await arbiter(
            "tournament", "play", "cup", "--agent", "random", "--seed", "1", *where,
            "--name", name, token=tokens[name],
        )  # fmt: skip
        results[name] = text(done)

    async with trio.open_nursery() as teams:
        teams.start_soon(play, "ann")
        teams.start_soon(play, "ben")
    for name in ("ann", "ben"):
        lines = results[name].splitlines()
        assert len(lines) == 5
        assert lines[-1] == f"{name}: no game left in cup (4 played here)"
        assert all(line.startswith("match ") for line in lines[:4])
    standings = text(await arbiter("tournament", "standings", "cup", *where))
    assert "cup: standings (finished)" in standings
    assert "crosstable" in standings
    assert "ann" in standings
    assert "ben" in standings
    status = text(await arbiter("tournament", "status", "cup", "--follow", *where))
    assert "cup: standings (finished)" in status


@BOTH_BACKENDS
async def test_a_seat_needs_a_token_and_a_wrong_one_is_refused(server: RunningServer) -> None:
    register(server.db, "ann")
    where = ["--server", f"{server.host}:{server.port}"]
    play = ["tournament", "play", "cup", "--agent", "random", *where, "--name", "ann"]
    missing = await arbiter(*play)  # ARBITER_TOKEN is set, but empty: that is no token
    assert missing.returncode == 2
    assert b"needs its token" in missing.stderr
    wrong = await arbiter(*play, token="not-the-token")
    assert wrong.returncode == 1
    assert b"wrong token for 'ann'" in wrong.stderr


async def test_a_local_tournament_runs_built_in_agents_and_prints_the_standings() -> None:
    done = await arbiter(
        "tournament", "local", "kings-court", "random", "greedy", "random",
        "--time", "move=1", "--option", "no_capture_limit=6", "--concurrency", "2",
    )  # fmt: skip
    output = text(done)
    assert "local: standings (finished)" in output
    for name in ("local-random", "local-greedy", "local-random-2"):
        assert f" {name} " in output
    rows = [line.split() for line in output.splitlines() if len(line.split()) == 12]
    games = {row[1]: row[3] for row in rows if row[0].isdigit()}
    assert games == {"local-random": "4", "local-greedy": "4", "local-random-2": "4"}


@BOTH_BACKENDS
async def test_a_local_tournament_keeps_its_records_in_the_store_db_names(db: Path | str) -> None:
    done = await arbiter(
        "tournament", "local", "kings-court", "random", "greedy",
        "--time", "move=1", "--option", "no_capture_limit=6", "--db", str(db),
    )  # fmt: skip
    assert "local: standings (finished)" in text(done)
    with closing(open_read_only(db)) as store:
        records = list(read_records(store, tournament="local"))
    assert len(records) == 2
    assert {r.status for r in records} == {"finished"}
    assert records[0].players == records[1].players[::-1], "one game from each seat"
