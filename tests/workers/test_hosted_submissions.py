"""Submissions hosted end to end: uploaded with `arbiter submit`, validated by the server's own
worker in the sandbox against `random`, marked `ready` (or `failed` with a log saying why),
then challenged by name with nobody but the challenger online."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio

from arbiter.server.storage.engine import open_database
from tests.processes import ROOT
from tests.sandbox.helpers import need_bwrap
from tests.tournament.helpers import arbiter, register, text
from tests.workers.conftest import server_with_workers
from tests.workers.hosting import ANY_LEGAL

SLOTS = 3
"""Slots per worker: the three versions' validation games (two seats each) are played at once."""
CRASHER = b"""
import sys


class Player:
    def __init__(self, colour):
        sys.exit("no board today")
"""


def statuses(db: Path) -> dict[str, tuple[str, str]]:
    connection = open_database(db)
    try:
        rows = connection.execute("SELECT name, status, validation_log FROM submissions")
        return {name: (status, log or "") for name, status, log in rows.fetchall()}
    finally:
        connection.close()


def seats(db: Path, match: int) -> set[tuple[str, str]]:
    """Who played `match`, and on which clock."""
    connection = open_database(db)
    try:
        rows = connection.execute(
            "SELECT players.name, results.clock FROM results"
            " JOIN players ON players.id = results.player_id WHERE results.match_id = ?",
            (match,),
        )
        return {(name, clock) for name, clock in rows.fetchall()}
    finally:
        connection.close()


@pytest.mark.long
async def test_submissions_are_validated_in_the_sandbox_and_play_a_challenge(
    tmp_path: Path,
) -> None:
    need_bwrap()
    with server_with_workers(tmp_path, "--worker-slots", str(SLOTS)) as (_, port):
        await submit_validate_and_challenge(tmp_path, port)


async def submit_validate_and_challenge(tmp_path: Path, port: int) -> None:
    """The test's steps against the server at `port` (its store `tmp_path/arbiter.db`)."""
    db = tmp_path / "arbiter.db"
    token = register(db, "ann")["ann"]
    server = ["--server", f"127.0.0.1:{port}"]
    (tmp_path / "ahead.py").write_bytes(ANY_LEGAL)
    c_folder = tmp_path / "c-bot"
    c_folder.mkdir()
    (c_folder / "client.c").write_bytes((ROOT / "examples" / "c-client" / "client.c").read_bytes())
    (tmp_path / "crasher.py").write_bytes(CRASHER)

    async def submit(path: str, form: str | None) -> None:
        flags = ["--form", form] if form else []
        command = ["submit", "kings-court", str(tmp_path / path), *server, "--author", "ann"]
        text(await arbiter(*command, *flags, token=token))

    # One after another, as one author uploads: a registered name has one live connection, so a
    # second upload's hello would close the first mid-upload (which would end with the server's
    # `session_replaced` sentence, tests/client/test_replaced.py).
    for path, form in (("ahead.py", "module"), ("c-bot", None), ("crasher.py", "player")):
        await submit(path, form)
    deadline = time.monotonic() + 180
    while True:
        found = statuses(db)
        if len(found) == 3 and "validating" not in {status for status, _ in found.values()}:
            break
        assert time.monotonic() < deadline, found
        await trio.sleep(0.5)
    assert found["ahead"][0] == "ready", found
    assert found["c-bot"][0] == "ready", found
    assert found["crasher"][0] == "failed"
    assert "no board today" in found["crasher"][1], found["crasher"]
    played = await arbiter(
        "bot",
        "--agent",
        "random",
        "--name",
        "visitor",
        "--game",
        "kings-court",
        *server,
        "--opponent",
        "hosted:ann/c-bot",
        "--time",
        "move=10",
        seconds=120,
    )
    match = int(text(played).split(":")[0].removeprefix("match "))
    assert seats(db, match) == {("visitor", "wall"), ("ann.c-bot.v1-1", "cpu")}

    # the hosted seat's output, kept with the match when its worker reports the hosting's end
    others = register(db, "bob") | register(db, "boss", role="admin")
    deadline = time.monotonic() + 30
    while (
        shown := await arbiter("logs", str(match), *server, "--author", "ann", token=token)
    ).returncode:
        assert "no hosted seat of yours" in shown.stderr.decode(), shown
        assert time.monotonic() < deadline, shown
        await trio.sleep(0.5)
    assert "ann.c-bot.v1-1 (ann)" in text(shown)
    assert "connected (protocol 2); seeking kings-court" in text(shown)
    admin = await arbiter("logs", str(match), *server, "--author", "boss", token=others["boss"])
    assert text(admin) == text(shown)
    refused = await arbiter("logs", str(match), *server, "--author", "bob", token=others["bob"])
    assert refused.returncode == 1
    assert f"match {match} has no hosted seat of yours" in refused.stderr.decode()
    guest = await arbiter("logs", str(match), *server, "--author", "visitor")
    assert "logs needs a registered name" in guest.stderr.decode(), guest
