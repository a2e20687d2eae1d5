"""`arbiter-server admin ladder start/stop/list` and a class section's ladder, on both backends:
every bad start or stop refused with its sentence and the store unchanged; a section's ladder
started on a stopped server's store, resumed by the server, taking only that section's students,
rated on a table of its own (`arbiter ladder GAME --section`, `/ladder/GAME?section=`), resumed
after a restart and stopped by the admin while the server runs."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.server.app import WebFront, bound_port, serve
from tests.conftest import BOTH_BACKENDS, HOST
from tests.server.test_ladder_pool import (
    GAME,
    TERMS,
    play_ladder,
    recorded,
    refused,
    rows,
    started,
)
from tests.server.test_roster import admin, roster_text
from tests.tournament.helpers import arbiter_here, text

pytestmark = BOTH_BACKENDS

SECTION = "cs101/A"
KEY = f"{GAME}@{SECTION}"


@asynccontextmanager
async def serving(db: Path | str, web: WebFront | None = None) -> AsyncIterator[int]:
    """A server on `db` for the block, stopped at its end: its protocol port."""
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(serve, HOST, 0, db, web=web))
        yield bound_port(listeners)
        nursery.cancel_scope.cancel()


async def enrol(db: Path | str, tmp_path: Path) -> dict[str, str]:
    """The class cs101: ann and bob in section A, cat in B; their tokens."""
    (tmp_path / "cs101.csv").write_text(
        roster_text([("ann", "S1", "A"), ("bob", "S2", "A"), ("cat", "S3", "B")])
    )
    out = tmp_path / "tokens.csv"
    text(await admin(db, "roster", "import", str(tmp_path / "cs101.csv"), "--tokens-out", str(out)))
    lines = [line.split(",") for line in out.read_text().splitlines()[1:]]
    return {fields[0]: fields[-1] for fields in lines}


async def refusal(db: Path | str, *args: str) -> str:
    done = await admin(db, "ladder", *args)
    assert done.returncode == 1, done.stdout
    return done.stderr.decode().removeprefix("arbiter-server admin: ").strip()


async def test_bad_starts_and_stops_are_refused_and_change_nothing(
    db: Path | str, tmp_path: Path
) -> None:
    await enrol(db, tmp_path)
    assert text(await admin(db, "ladder", "start", GAME, *TERMS)) == (
        f"the ladder of {GAME} is running: a running server starts it within seconds\n"
    )
    listed = text(await admin(db, "ladder", "list"))
    assert listed.splitlines()[1:] == [f"{GAME}\trunning\tmove=1\t-\t1\t2"]
    games = "amazons, kings-court, shobu, war-of-life, watch-your-back"
    refusals = {
        ("start", "chess"): f"there is no game 'chess' (games: {games})",
        ("start", GAME): f"the ladder of {GAME} is running already: stop it first to change"
        " its terms",
        ("start", GAME, "--section", "cs101/Z"): "the class cs101 has no section 'Z'"
        " (sections: A, B)",
        ("start", GAME, "--section", "cs999/A"): "no class 'cs999' (classes: cs101)",
        ("start", GAME, "--section", "cs101"): "a section is written CLASS/SECTION, not 'cs101'",
        ("start", GAME, "--section", SECTION, "--time", "move=-1"): "",
        ("start", GAME, "--section", SECTION, "--option", "nope=1"): "",
        ("start", GAME, "--section", SECTION, "--concurrency", "0"): "--concurrency must be at"
        " least 1, not 0",
        ("stop", GAME, "--section", SECTION): f"the ladder of {GAME} in section {SECTION} is not"
        f" running (running: {GAME})",
        ("stop", "chess"): f"there is no game 'chess' (games: {games})",
    }
    for args, sentence in refusals.items():
        said = await refusal(db, *args)
        if sentence:
            assert said == sentence, args
        else:
            assert said, f"{args} was refused without a sentence"
    assert text(await admin(db, "ladder", "list")) == listed, "a refusal changed nothing"
    assert text(await admin(db, "ladder", "stop", GAME)) == (
        f"the ladder of {GAME} is stopped: its games in play end first\n"
    )
    assert await refusal(db, "stop", GAME) == (
        f"the ladder of {GAME} is not running (running: none)"
    )


@pytest.mark.long
async def test_a_sections_ladder_is_started_resumed_and_stopped_by_the_admin(
    db: Path | str, tmp_path: Path, backend: str
) -> None:
    tokens = await enrol(db, tmp_path)
    text(await admin(db, "ladder", "start", GAME, "--section", SECTION, *TERMS))
    web = WebFront(0)
    async with serving(db, web) as port:
        await started(port, SECTION)
        cat = {"name": "cat", "token": tokens["cat"]}
        assert await refused(port, protocol.LadderJoin(game=GAME, section=SECTION), **cat) == (
            "not_allowed",
            f"cat is not a student of the section {SECTION}: its ladder takes only them",
        )
        async with trio.open_nursery() as nursery:
            for name in ("ann", "bob"):
                nursery.start_soon(partial(play_ladder, port, name, tokens[name], 1, SECTION))
        await recorded(db, 1)
        assert rows(db, "SELECT DISTINCT game FROM ladder_changes") == [(KEY,)]
        rated = rows(db, "SELECT entrant, game FROM ladder_ratings ORDER BY entrant")
        assert rated == [("ann", KEY), ("bob", KEY)]
        asked = ("ladder", GAME, "--section", SECTION, "--server", f"{HOST}:{port}")
        shown = text(await arbiter_here(*asked))
        assert f"{GAME} {SECTION} ladder (running)" in shown
        for name in ("ann", "bob"):
            assert name in shown
        assert await refused(port, protocol.Ladder(game=GAME)) == (
            "unknown_tournament",
            f"this server keeps no ladder of {GAME}",
        ), "the section's ratings are its own"
        if backend == "sqlite":
            ours = f"{web.url}/ladder/{GAME}?section={SECTION}"
            page = await trio.to_thread.run_sync(fetch, ours)
            assert f"<h1>{GAME} {SECTION} ladder</h1>" in page
            assert 'data-entrant="ann"' in page
            other = f"{web.url}/ladder/{GAME}?section=cs101/B"
            missing = await trio.to_thread.run_sync(fetch, other)
            assert f"This server keeps no {GAME} cs101/B ladder." in missing
    async with serving(db) as port:
        await started(port, SECTION)  # a restarted server resumes the running ladder
        text(await admin(db, "ladder", "stop", GAME, "--section", SECTION))
        await started(port, SECTION, running=False)
        assert await refused(port, protocol.LadderJoin(game=GAME, section=SECTION), **cat) == (
            "unknown_tournament",
            f"this server runs no ladder of {GAME} in section {SECTION} (running: none)",
        )


def fetch(url: str) -> str:
    """A page's text, whatever its status."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as error:
        return str(error.read().decode())
