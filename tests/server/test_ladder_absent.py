"""An absent ladder seat defaults, over real TCP on both backends: a server with no worker can
never host its leagues' boss, so a joined bot paired with it wins by default after the ladder's
wait, rated, its game an ordinary recorded match; two bosses that both never come are a double
forfeit, stored, that rates nobody."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import trio

from arbiter.server.storage import leagues
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.leagues import League, LeagueSet
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.server.test_ladder_pool import GAME, TERMS, play_ladder, recorded, rows, started
from tests.server.test_roster import admin
from tests.tournament.helpers import register, text

pytestmark = BOTH_BACKENDS

SECONDS = 30


def set_bosses(db: Path | str, *bosses: str) -> None:
    """The game's leagues, one per boss, lowest first: each boss an entrant of the ladder."""
    named = tuple(League(f"L{n}", boss, "ABCD"[n]) for n, boss in enumerate(bosses))
    with closing(open_database(db)) as connection:
        leagues.store(connection, LeagueSet(GAME, "", named, 0.9))


async def test_a_bot_paired_with_a_seat_that_never_comes_wins_by_default(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "ann")
    set_bosses(server.db, "random")
    text(await admin(server.db, "ladder", "start", GAME, *TERMS))
    await started(server.port)
    with trio.fail_after(SECONDS):
        [record] = await play_ladder(server.port, "ann", tokens["ann"], games=1)
    absent = record.players[1 - record.players.index("ann")]
    assert absent.startswith("ladder-boss.random")
    assert record.result == "win"
    assert record.winner == record.seat
    assert record.reason == f"{absent} did not come within 2 s"
    assert record.moves == []
    await recorded(server.db, 1)
    [stored] = rows(
        server.db, "SELECT status, result, termination FROM matches WHERE id = ?", record.match
    )
    assert stored == ("finished", "win", "absent")
    changes = rows(
        server.db,
        "SELECT entrant, score, mu_before, mu_after FROM ladder_changes WHERE match_id = ?"
        " ORDER BY entrant",
        record.match,
    )
    assert [row[:2] for row in changes] == [("ann", 1.0), ("boss:random", 0.0)]
    (_, _, ann_before, ann_after), (_, _, boss_before, boss_after) = changes
    assert ann_after > ann_before, "the present side is rated a win"
    assert boss_after < boss_before, "the absent side is rated a loss"


async def test_two_seats_that_never_come_rate_nobody(server: RunningServer) -> None:
    set_bosses(server.db, "random", "greedy")
    text(await admin(server.db, "ladder", "start", GAME, *TERMS))
    found = await finished_matches(server.db)
    [(result, termination, reason)] = found
    assert (result, termination) == ("both_forfeit", "absent")
    assert reason == "neither player came to play within 2 s"
    await trio.sleep(0.5)  # a rating change would be stored with the match's end
    assert rows(server.db, "SELECT * FROM ladder_changes") == []
    assert rows(server.db, "SELECT * FROM ladder_ratings") == []


async def finished_matches(db: Path | str) -> list[tuple[object, ...]]:
    """The finished matches' result, termination and reason, once there is one."""
    deadline = trio.current_time() + SECONDS
    query = "SELECT result, termination, reason FROM matches WHERE status = 'finished'"
    while not (found := rows(db, query)):
        assert trio.current_time() < deadline, "no ladder game ended"
        await trio.sleep(0.2)
    return found
