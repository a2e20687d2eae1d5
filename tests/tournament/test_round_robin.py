"""Tournaments over real TCP: the double round robin, its defaults and its standings."""

from __future__ import annotations

import re

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.runner import GameRecord
from arbiter.server.storage.engine import open_read_only
from arbiter.server.storage.records import read_records
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.e2e.helpers import seek
from tests.tournament.helpers import (
    HOST,
    create,
    director,
    finished,
    play_as,
    register,
    start,
    status,
)

ENTRANTS = ["steady", "crasher", "sleeper", "cheater"]


@BOTH_BACKENDS
@pytest.mark.grace(0.2)
async def test_four_player_double_round_robin_with_a_crash_a_timeout_and_an_illegal_move(
    server: RunningServer,
) -> None:
    """Each misbehaving entrant defaults at its first move of every game, so the entrant who
    moves first among two of them defaults, and `steady` (first legal move) wins every game."""
    tokens = register(server.db, *ENTRANTS)
    async with await director(server.port, server.db) as boss:
        created = await create(boss, players=ENTRANTS, time={"move": 1.0}, concurrency=2, wait=10.0)
        assert (created.status, len(created.games)) == ("created", 12)
        await start(boss)
        async with trio.open_nursery() as director_side:
            # the director answers pings while the entrants play, however long a loaded
            # machine makes that, rather than be closed for a ping timeout
            director_side.start_soon(boss.answer_pings)
            with trio.fail_after(60):
                async with trio.open_nursery() as entrants:
                    for name in ENTRANTS:
                        entrants.start_soon(play_as, server.port, name, tokens[name], name)
            director_side.cancel_scope.cancel()
        final = await finished(boss)

    assert final.status == "finished"
    assert [line["player"] for line in final.standings] == [
        "steady", "cheater", "crasher", "sleeper",
    ]  # fmt: skip
    table = {line["player"]: line for line in final.standings}
    assert {name: table[name]["points"] for name in ENTRANTS} == {
        "steady": 6.0, "crasher": 2.0, "sleeper": 2.0, "cheater": 2.0,
    }  # fmt: skip
    none = {"crash": 0, "illegal": 0, "time": 0, "absent": 0}
    assert table["steady"]["defaults"] == none
    assert table["crasher"]["defaults"] == {**none, "crash": 4}
    assert table["sleeper"]["defaults"] == {**none, "time": 4}
    assert table["cheater"]["defaults"] == {**none, "illegal": 4}
    for name in ENTRANTS:
        line = table[name]
        wins = 6 if name == "steady" else 2
        assert (line["games"], line["wins"], line["draws"], line["losses"]) == (6, wins, 0, 0)
        assert line["forfeits"] == 0
    assert table["steady"]["against"] == {other: [1.0, 1.0] for other in ENTRANTS[1:]}
    assert table["crasher"]["against"]["steady"] == [0.0, 0.0]
    assert sorted(table["crasher"]["against"]["sleeper"]) == [0.0, 1.0]
    assert table["steady"]["tiebreak"] == 12.0
    assert table["crasher"]["tiebreak"] == 4.0
    assert table["steady"]["rating"] > table["crasher"]["rating"] + 100
    assert table["crasher"]["rating"] == table["sleeper"]["rating"] == table["cheater"]["rating"]
    assert all(line["margin"] > 0 and line["rated_games"] == 6 for line in final.standings)

    reasons = {
        game["defaults"][game["winner"] == game["first"]]: game["reason"] for game in final.games
    }
    assert reasons["crash"] == "disconnected"
    assert re.fullmatch(r"(white|black) ran out of time \(1 s per move\)", reasons["time"])
    assert reasons["illegal"].startswith("illegal move A1A2")
    assert_at_most_two_at_once(server)


def assert_at_most_two_at_once(server: RunningServer) -> None:
    """`concurrency` capped the games in play: no instant had three matches open."""
    db = open_read_only(server.db)
    try:
        records = list(read_records(db, tournament="cup"))
    finally:
        db.close()
    assert len(records) == 12
    for record in records:
        assert record.ended_at is not None
        overlapping = [
            other
            for other in records
            if other.started_at <= record.started_at < (other.ended_at or 0)
        ]
        assert len(overlapping) <= 2


@BOTH_BACKENDS
async def test_an_absent_player_defaults_after_the_wait_and_the_present_one_moves_on(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "here", "away")
    records: list[GameRecord] = []
    seeking = trio.Event()

    def hear(message: protocol.Message) -> None:
        if isinstance(message, protocol.Seeking):
            seeking.set()

    async def here() -> None:
        records.extend(
            await play_as(server.port, "here", tokens["here"], "steady", on_message=hear)
        )

    async with await director(server.port, server.db) as boss:
        await create(boss, players=["here", "away"], wait=1.0)
        with trio.fail_after(20):
            async with trio.open_nursery() as entrants:
                entrants.start_soon(here)
                await seeking.wait()  # `here` is there before its first game is due
                await start(boss)
        final = await status(boss)
    assert [record.summary() for record in records] == [
        "white wins: away did not come within 1 s",
        "black wins: away did not come within 1 s",
    ]
    assert [record.moves for record in records] == [[], []]
    table = {line["player"]: line for line in final.standings}
    assert (table["here"]["points"], table["here"]["wins"]) == (2.0, 2)
    assert table["away"]["defaults"]["absent"] == 2
    assert table["away"]["points"] == 0.0
    assert table["here"]["rated_games"] == 0, "a game nobody played is not rated"


@BOTH_BACKENDS
async def test_nobody_comes_both_forfeit_and_the_tournament_still_ends(
    server: RunningServer,
) -> None:
    register(server.db, "one", "two")
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["one", "two"], wait=0.1, concurrency=2)
        await start(boss)
        with trio.fail_after(10):
            final = await finished(boss)
    assert [game["result"] for game in final.games] == ["both_forfeit", "both_forfeit"]
    assert [game["defaults"] for game in final.games] == [["absent", "absent"]] * 2
    assert [line["points"] for line in final.standings] == [0.0, 0.0]


@BOTH_BACKENDS
async def test_a_kept_seek_waits_for_the_start_and_is_never_paired_casually(
    server: RunningServer,
) -> None:
    """Entrants may connect before the director starts; their seeks wait for the tournament."""
    tokens = register(server.db, "early", "late")
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["early", "late"], wait=10.0)
        async with trio.open_nursery() as entrants:
            entrants.start_soon(play_as, server.port, "early", tokens["early"], "steady")
            entrants.start_soon(play_as, server.port, "late", tokens["late"], "steady")
            await trio.sleep(0.3)
            assert (await status(boss)).status == "created"
            await start(boss)
        final = await finished(boss)
    assert final.status == "finished"
    assert sum(line["points"] for line in final.standings) <= 2.0
    assert all(game["match"] is not None for game in final.games)


@BOTH_BACKENDS
async def test_a_seek_no_game_needs_is_withdrawn_and_later_ones_are_casual(
    server: RunningServer,
) -> None:
    """`ann` seeks three times at once (on her one connection: a newer one with her token would
    replace it): her two games (`ben` never comes) take the two oldest seeks; the third is
    withdrawn once no game is left to take it, and a seek after that is an ordinary casual one."""
    tokens = register(server.db, "ann", "ben")
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["ann", "ben"], wait=0.3)
        ann = await ClientConnection.open(HOST, server.port, "ann", tokens["ann"])
        for _ in range(3):
            assert isinstance(await seek(ann), protocol.Seeking)
        await start(boss)
        started, over, withdrawn = set(), set(), []
        with trio.fail_after(10):  # her two games and the withdrawal: in no fixed order
            while len(over) < 2 or not withdrawn:
                message = await ann.receive()
                if isinstance(message, protocol.MatchStarted):
                    started.add(message.match)
                elif isinstance(message, protocol.GameOver):
                    assert message.reason.startswith("ben did not come")
                    over.add(message.match)
                elif isinstance(message, protocol.SeekCancelled):
                    withdrawn.append(message.seek)
        assert len(started) == 2
        assert over == started
        assert withdrawn == [3]
        assert isinstance(await seek(ann), protocol.Seeking)
        casual = await ClientConnection.open(HOST, server.port, "guest")
        assert (await seek(casual)).players == ["ann", "guest"]
        for connection in (ann, casual):
            await connection.aclose()
