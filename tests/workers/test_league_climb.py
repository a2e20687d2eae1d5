"""Leagues on a server's ladder, end to end over real TCP: the bosses of a game's leagues are
entrants of its ladder, hosted on the server's own workers and rated like everyone; a strong
hosted submission climbs from the lowest league past the weak boss above it, and `arbiter
ladder GAME` shows each entrant's league."""

from __future__ import annotations

import time
from contextlib import closing
from functools import partial
from pathlib import Path

import pytest
import trio

from arbiter.server.storage import ladder_rows, leagues
from arbiter.server.storage.engine import open_database
from arbiter.server.tournaments.ladder_ratings import Skill
from arbiter.server.tournaments.leagues import Placement, placements
from tests.sandbox.helpers import need_bwrap
from tests.server.test_roster import admin
from tests.tournament.helpers import arbiter, register, text
from tests.workers.conftest import server_with_workers
from tests.workers.test_server_ladder import SECONDS, until, validated

STRONG_MODULE = b"""
from arbiter.agents import make_agent


class Strong:
    def __init__(self, game, seed=None):
        self.agent = make_agent("alphabeta-d3", game, seed)

    def choose(self, state, budget):
        return self.agent.choose(state, budget)
"""
"""A submission that searches three plies: far above `greedy`, which looks one ahead."""
LEAGUES = ("--league", "Bronze=random:D", "--league", "Silver=greedy:C", "--confidence", "0.75")
LADDER = (
    *("--worker-slots", "2", "--hello-timeout", "30"),
    *("--ladder", "kings-court", "--ladder-time", "move=2"),
    *("--ladder-option", "no_capture_limit=30"),
)


def placed(db: Path | str) -> dict[str, Placement]:
    with closing(open_database(db)) as connection:
        ladder = ladder_rows.load(connection, "kings-court")
        stored = leagues.load(connection, "kings-court")
    skills = {rating.entrant: Skill(rating.mu, rating.sigma) for rating in ladder.ratings}
    return placements(skills, stored)


@pytest.mark.long
async def test_a_strong_submission_climbs_past_the_weak_boss(tmp_path: Path) -> None:
    need_bwrap()
    db = tmp_path / "arbiter.db"
    token = register(db, "ann")["ann"]
    text(await admin(db, "league", "set", "kings-court", *LEAGUES))
    (tmp_path / "strong.py").write_bytes(STRONG_MODULE)
    with server_with_workers(tmp_path, *LADDER, db=db) as (_, port):
        address = f"127.0.0.1:{port}"
        upload = ["submit", "kings-court", str(tmp_path / "strong.py"), "--server", address]
        text(await arbiter(*upload, "--author", "ann", token=token))
        await until(partial(validated, db, "ann"), "the strong version was not validated")
        table = text(await arbiter("ladder", "kings-court", "--server", address))
        assert "boss:random" in table, table
        assert "boss:greedy" in table, table
        assert "Bronze" in table, table  # everyone starts in the lowest league
        await until(
            lambda: placed(db).get("ann/strong@v1") == Placement("Silver", "C"),
            "the strong version did not climb past greedy",
        )
        # The ladder plays on meanwhile, and a league follows the latest rating: a lost game
        # can drop the version back for a while, so the table is read until it shows Silver.
        deadline = time.monotonic() + SECONDS
        while (shown := await league_shown(address)) != "Silver":
            assert time.monotonic() < deadline, f"the ladder's table shows {shown}"
            await trio.sleep(0.5)


async def league_shown(address: str) -> str:
    """The league `arbiter ladder` gives the strong version (its row is cut to the width)."""
    table = text(await arbiter("ladder", "kings-court", "--server", address))
    line = next(row for row in table.splitlines() if "ann/strong@" in row)
    return line.split()[-1]
