"""Tournament formats for real: a gauntlet of built-in agents on a server over TCP, checked
against its stored games; refused formats as sentences; a Swiss through `arbiter tournament
local` in a process of its own, read back from its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.client.connection import ServerError
from arbiter.server.app import open_records, read_records, read_tournaments
from tests.conftest import RunningServer
from tests.tournament.helpers import (
    arbiter,
    create,
    director,
    finished,
    register,
    start,
    text,
)


async def test_a_gauntlets_standings_are_its_stored_games(server: RunningServer) -> None:
    async with await director(server.port, server.db) as boss:
        created = await create(
            boss,
            local=["random", "greedy", "random"],
            format="gauntlet",
            challenger="greedy",
            time={"move": 0.5},
        )
        assert created.format == "gauntlet"
        assert created.entrants == ["local-greedy", "local-random", "local-random-2"]
        await start(boss)
        final = await finished(boss, within=90)

    assert [(g["first"], g["second"]) for g in final.games] == [
        ("local-greedy", "local-random"), ("local-random", "local-greedy"),
        ("local-greedy", "local-random-2"), ("local-random-2", "local-greedy"),
    ]  # fmt: skip
    records = open_records(server.db)
    try:
        stored = list(read_records(records, tournament="cup"))
    finally:
        records.close()
    assert sorted(record.id for record in stored) == [g["match"] for g in final.games]
    points: dict[str, float] = {}
    games: dict[str, int] = {}
    for record in stored:
        for player, score in zip(record.players, record.scores, strict=True):
            points[player] = points.get(player, 0.0) + (score or 0.0)
            games[player] = games.get(player, 0) + 1
    table = {line["player"]: line for line in final.standings}
    assert {name: line["points"] for name, line in table.items()} == points
    assert {name: line["games"] for name, line in table.items()} == games
    assert games == {"local-greedy": 4, "local-random": 2, "local-random-2": 2}
    assert set(table["local-greedy"]["against"]) == {"local-random", "local-random-2"}
    assert table["local-random"]["against"].keys() == {"local-greedy"}


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({"format": "ladder"}, "no tournament format 'ladder'"),
        ({"format": "gauntlet"}, "a gauntlet needs a challenger"),
        (
            {"format": "gauntlet", "challenger": "cat"},
            "the challenger 'cat' is not an entrant (ann, ben)",
        ),
        ({"format": "swiss", "rounds": 2}, "a Swiss tournament of 2 entrants has at most 1"),
    ],
)
async def test_a_format_the_server_cannot_play_is_refused_in_a_sentence(
    server: RunningServer, fields: dict[str, object], sentence: str
) -> None:
    register(server.db, "ann", "ben")
    async with await director(server.port, server.db) as boss:
        with pytest.raises(ServerError) as caught:
            await create(boss, players=["ann", "ben"], **fields)
    assert caught.value.code == "bad_tournament"
    assert sentence in caught.value.message


async def test_a_swiss_through_tournament_local(tmp_path: Path) -> None:
    db = tmp_path / "swiss.db"
    done = await arbiter(
        "tournament", "local", "kings-court", "random", "greedy", "random",
        "--format", "swiss", "--rounds", "2", "--time", "move=0.5",
        "--option", "no_capture_limit=6", "--db", str(db),
        seconds=120,
    )  # fmt: skip
    output = text(done)
    assert "swiss standings (finished)" in output
    assert "Bh" in output
    (tournament,) = read_tournaments(db)
    assert (tournament.format, tournament.status, tournament.rounds) == ("swiss", "finished", 2)
    assert sorted({g["round"] for g in tournament.games}) == [1, 2]
    assert all(g["status"] == "finished" for g in tournament.games)
    for round_number in (1, 2):
        playing = [
            p
            for g in tournament.games
            if g["round"] == round_number
            for p in (g["first"], g["second"])
        ]
        assert len(playing) == len(set(playing)) == 2, "one game a round, one bye"
    byes = {line["player"]: line["byes"] for line in tournament.standings}
    assert sorted(byes.values()) == [0, 1, 1], "two byes to two entrants"
    for line in tournament.standings:
        scored = sum(sum(scores) for scores in line["against"].values())
        assert line["points"] == scored + line["byes"]
