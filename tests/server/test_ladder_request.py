"""The `ladder` request over real TCP, on each backend: refused with a sentence for a game with
no ladder here or no such game; answered from the store once a ladder's games are stored, the
table ranked by `mu - 3 sigma`; and the stored ladder read back as the server resumes it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.protocol import ErrorCode
from arbiter.server.storage import ladder_rows
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.ladder_rows import RatingChange
from arbiter.server.storage.leagues import StoredLeagues
from arbiter.server.storage.sql_connection import write_transaction
from arbiter.server.tournaments.ladder_view import table
from arbiter.server.tournaments.server_ladder import resumed
from tests.conftest import BOTH_BACKENDS, HOST, RunningServer

pytestmark = BOTH_BACKENDS

GAME = "kings-court"


async def ask(server: RunningServer, game: str) -> protocol.LadderTable:
    async with await ClientConnection.open(HOST, server.port, "reader") as connection:
        await connection.send(protocol.Ladder(game=game))
        while True:
            answer = await connection.receive()
            if isinstance(answer, protocol.LadderTable):
                return answer


def store_games(db: Path | str) -> None:
    """Two stored ladder games: ann beats bob, then bob and cat draw."""
    connection = open_database(db)
    try:
        ids = []
        with write_transaction(connection):
            for _ in range(2):
                row = connection.execute(
                    "INSERT INTO matches (game, options, time_control, illegal, status,"
                    " started_at) VALUES (?, '{}', ?, 'forfeit,forfeit', 'finished', ?)"
                    " RETURNING id",
                    (GAME, json.dumps({"move": 1.0}), time.time()),
                ).fetchone()
                ids.append(int(row[0]))
        now = time.time()
        ladder_rows.record_game(
            connection,
            GAME,
            [
                RatingChange(ids[0], 0, "ann/a@v1", 1.0, 25.0, 8.33, 27.6, 7.2, now),
                RatingChange(ids[0], 1, "bob/b@v1", 0.0, 25.0, 8.33, 22.4, 7.2, now),
            ],
        )
        ladder_rows.record_game(
            connection,
            GAME,
            [
                RatingChange(ids[1], 0, "bob/b@v1", 0.5, 22.4, 7.2, 23.0, 6.9, now + 1),
                RatingChange(ids[1], 1, "cat/c@v1", 0.5, 25.0, 8.33, 24.1, 7.4, now + 1),
            ],
        )
    finally:
        connection.close()


async def test_a_ladder_is_refused_until_stored_then_answered_from_the_store(
    server: RunningServer,
) -> None:
    with pytest.raises(ServerError) as none:
        await ask(server, GAME)
    assert (none.value.code, none.value.message) == (
        ErrorCode.UNKNOWN_TOURNAMENT,
        "this server keeps no ladder of kings-court",
    )
    with pytest.raises(ServerError) as unknown:
        await ask(server, "chess")
    assert (unknown.value.code, unknown.value.message) == (
        ErrorCode.UNKNOWN_GAME,
        "there is no game 'chess'",
    )
    store_games(server.db)
    answer = await ask(server, GAME)
    assert answer.running is False
    assert [entry["entrant"] for entry in answer.entries] == ["ann/a@v1", "bob/b@v1", "cat/c@v1"]
    first = answer.entries[0]
    assert first["rating"] == pytest.approx(27.6 - 3 * 7.2)
    assert (first["rank"], first["games"], first["active"]) == (1, 1, False)
    assert [entry["games"] for entry in answer.entries] == [1, 2, 1]
    assert answer.entries[2]["last"] == answer.entries[1]["last"] != first["last"]


async def test_a_stored_ladder_is_resumed_with_its_ratings_games_and_colours(
    server: RunningServer,
) -> None:
    store_games(server.db)
    connection = open_database(server.db)
    try:
        stored = ladder_rows.load(connection, GAME)
    finally:
        connection.close()
    ladder = resumed(stored)
    assert {name: (e.skill.mu, e.skill.sigma, e.games) for name, e in ladder.entries.items()} == {
        "ann/a@v1": (27.6, 7.2, 1),
        "bob/b@v1": (23.0, 6.9, 2),
        "cat/c@v1": (24.1, 7.4, 1),
    }
    assert [(g.result.first, g.result.result, g.result.winner) for g in ladder.games] == [
        ("ann/a@v1", "win", 0),
        ("bob/b@v1", "draw", None),
    ]
    lines = table(stored, {"bob/b@v1", "dan/d@v1"}, StoredLeagues({}, {}))
    assert [(line.entrant, line.games, line.active, line.league) for line in lines] == [
        ("ann/a@v1", 1, False, None),
        ("bob/b@v1", 2, True, None),
        ("cat/c@v1", 1, False, None),
        ("dan/d@v1", 0, True, None),
    ]
