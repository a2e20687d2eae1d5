"""A watch of a match that does not exist, or will never be shown, is refused without a read
of the store (whose queries every hello with a token waits behind): shown on a real SQLite
store whose one query slot the test holds, so any read would hang."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import trio

from arbiter import protocol
from arbiter.server.storage.sql_store import SQLStorage
from tests.server.memory import FORFEITS, Client, connect, lobby_on_file, pair, writing_to


async def refused(client: Client, match_id: int) -> None:
    await client.send(protocol.Watch(match=match_id))
    error = await client.expect(protocol.Error)
    assert (error.code, error.match) == (protocol.ErrorCode.UNKNOWN_MATCH, match_id)


async def test_ids_above_the_highest_handed_out_are_refused_without_a_read(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    async with lobby_on_file(tmp_path / "arbiter.db") as lobby:
        _, _, match = await pair(lobby, nursery, time={"move": 60.0})
        cat = await connect(lobby, nursery, "cat")
        storage = cast(SQLStorage, lobby.storage)
        async with storage._query_lock:  # no query can run until the block ends
            with trio.fail_after(2):
                for match_id in (match.id + 1, 99, 2**53):
                    await refused(cat, match_id)
                await cat.send(protocol.Watch(match=match.id))  # in play: no read either
                assert (await cat.expect(protocol.Watching)).match == match.id
        _, _, second = await pair(lobby, nursery, names=("dan", "eve"))
        assert second.id == match.id + 1
        record = await storage.load_match(second.id)  # the new highest is known, and read
        assert record is not None
        assert record.players == ["dan", "eve"]


async def test_an_aborted_match_is_read_once_then_refused_from_memory(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    db = tmp_path / "arbiter.db"
    async with writing_to(db) as storage:  # a casual match the last run left in play
        aborted = await storage.create_match(
            "kings-court", {}, {"move": 5.0}, FORFEITS, ["white", "black"], ["a", "b"]
        )
    async with lobby_on_file(db) as lobby:  # opening the store aborts it
        cat = await connect(lobby, nursery, "cat")
        await refused(cat, aborted)
        dan = await connect(lobby, nursery, "dan")
        async with cast(SQLStorage, lobby.storage)._query_lock:
            with trio.fail_after(2):
                await refused(dan, aborted)
