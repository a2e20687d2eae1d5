"""`arbiter match --server` between a hosted version, run by the server's own workers in the
sandbox, and a connected player: the match is the server's, its games kept with their seats."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import trio

from arbiter.client.connection import ServerError
from arbiter.server.app import open_records, read_records
from tests.sandbox.helpers import need_bwrap
from tests.tournament.helpers import arbiter, director, play_as, register, status, text
from tests.workers.conftest import server_with_workers
from tests.workers.hosting import ANY_LEGAL
from tests.workers.test_hosted_submissions import statuses


@pytest.mark.long
async def test_a_hosted_version_plays_a_match_against_a_connected_player(tmp_path: Path) -> None:
    need_bwrap()
    db = tmp_path / "arbiter.db"
    tokens = register(db, "ann", "ben") | register(db, "boss", role="admin")
    (tmp_path / "ahead.py").write_bytes(ANY_LEGAL)
    with server_with_workers(tmp_path, "--worker-slots", "2") as (_, port):
        where = ["--server", f"127.0.0.1:{port}"]
        submit = ["submit", "kings-court", str(tmp_path / "ahead.py"), *where, "--author", "ann"]
        text(await arbiter(*submit, "--form", "module", token=tokens["ann"]))
        deadline = time.monotonic() + 120
        while statuses(db).get("ahead", ("validating", ""))[0] == "validating":
            assert time.monotonic() < deadline, statuses(db)
            await trio.sleep(0.5)
        assert statuses(db)["ahead"][0] == "ready", statuses(db)
        outputs: dict[str, str] = {}

        async def match() -> None:
            done = await arbiter(
                "match", "ann/ahead", "ben", "--game", "kings-court", "--games", "2",
                "--time", "move=2", "--title", "hm", *where, "--name", "boss",
                token=tokens["boss"], seconds=120,
            )  # fmt: skip
            outputs["match"] = text(done)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(match)
            async with await director(port, db) as watcher:
                with trio.fail_after(30):
                    while True:
                        try:
                            await status(watcher, "hm")
                            break
                        except ServerError:
                            await trio.sleep(0.1)
            nursery.start_soon(play_as, port, "ben", tokens["ben"], "steady", "hm")

    out = outputs["match"]
    assert re.search(r"^pair 1: local-ann\.ahead\.v1\S* [\d½]+-[\d½]+ ben ", out, re.MULTILINE), out
    assert "ann/ahead vs ben: 2 games played" in out
    records = open_records(db)
    try:
        kept = list(read_records(records, tournament="hm"))
    finally:
        records.close()
    assert len(kept) == 2
    assert kept[0].players == list(reversed(kept[1].players))
    assert all(record.defaults == [None, None] for record in kept), kept
