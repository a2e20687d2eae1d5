"""A server's ladder end to end: three hosted submissions uploaded by three authors, validated,
then paired by the server on its own workers; the games are ordinary matches, the ratings move
and are stored, `arbiter ladder GAME` prints the table over TCP, the page `/ladder/GAME` shows
it with a chart and replay links, and a restarted server goes on from the stored ratings.

On SQLite only: the ladder's storage runs on both backends in its own tests
(tests/server/test_ladder_*.py), and half a minute of workers and a browser twice is more than
the suite can spare."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
import trio
from playwright.sync_api import expect, sync_playwright

from arbiter.server.storage.engine import open_database
from tests.sandbox.helpers import need_bwrap
from tests.tournament.helpers import arbiter, register, text
from tests.web.conftest import CHROMIUM, FLAGS
from tests.workers.conftest import server_with_workers
from tests.workers.hosting import ANY_LEGAL

AUTHORS = ("ann", "bob", "cat")
ENTRANTS = [f"{author}/bot@v1" for author in AUTHORS]
LADDER = (
    *("--worker-slots", "2", "--http", "0", "--hello-timeout", "30"),
    *("--ladder", "kings-court", "--ladder-time", "move=2"),
    *("--ladder-option", "no_capture_limit=24", "--ladder-concurrency", "1"),
)
"""Games kept short by a no-capture limit that random players still reach a result within; a
hello timeout that a sandboxed agent starting on a loaded machine meets."""
GAMES = 3
SECONDS = 240


def ladder_rows(db: Path | str, query: str) -> list[tuple[object, ...]]:
    connection = open_database(db)
    try:
        return [tuple(row) for row in connection.execute(query).fetchall()]
    finally:
        connection.close()


def changes(db: Path | str) -> list[tuple[object, ...]]:
    """Every stored rating change: (match, entrant, mu before, sigma before, mu, sigma, score)."""
    return ladder_rows(
        db,
        "SELECT match_id, entrant, mu_before, sigma_before, mu_after, sigma_after, score"
        " FROM ladder_changes ORDER BY match_id, seat_index",
    )


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        await trio.sleep(0.5)


@pytest.mark.long
async def test_a_server_ladder_plays_rates_stores_and_resumes(
    db: Path | str, tmp_path: Path
) -> None:
    need_bwrap()
    tokens = register(db, *AUTHORS)
    (tmp_path / "bot.py").write_bytes(ANY_LEGAL)
    with server_with_workers(tmp_path, *LADDER, db=db) as (server, port):
        assert server.stdout is not None
        web = server.stdout.readline().split()[-1]
        address = f"127.0.0.1:{port}"
        upload = ["submit", "kings-court", str(tmp_path / "bot.py"), "--server", address]
        for author in AUTHORS:  # all uploaded first: the workers validate them side by side
            text(await arbiter(*upload, "--author", author, token=tokens[author]))
        for author in AUTHORS:
            await until(partial(validated, db, author), f"{author}'s version was not validated")
        await until(
            lambda: (
                {row[1] for row in changes(db)} == set(ENTRANTS) and len(changes(db)) >= 2 * GAMES
            ),
            "the three versions did not all play",
        )
        before = changes(db)
        matches = {row[0] for row in before}
        finished = ladder_rows(db, "SELECT id, status FROM matches WHERE status = 'finished'")
        assert matches <= {row[0] for row in finished}, "ladder games are ordinary matches"
        rated = [row for row in before if any(other[6] for other in before if other[0] == row[0])]
        assert rated, f"no game of {before} had a winner or a draw"
        assert all(row[2:4] != row[4:6] for row in rated), "every rated game moved its ratings"
        table = text(await arbiter("ladder", "kings-court", "--server", address))
        played = {row[1] for row in before}
        for entrant in played:
            assert entrant in table, table
        assert "kings-court ladder (running)" in table
        await trio.to_thread.run_sync(see_the_page, web, sorted(played))
    stored = {entrant: (mu, sigma) for entrant, mu, sigma in ratings(db)}
    count = len(changes(db))
    with server_with_workers(tmp_path, *LADDER, db=db) as (_, port):
        await until(lambda: len(changes(db)) >= count + 2, "no ladder game after the restart")
        table = text(await arbiter("ladder", "kings-court", "--server", f"127.0.0.1:{port}"))
        assert all(entrant in table for entrant in ENTRANTS), table
    resumed: dict[object, tuple[object, object]] = {}
    for _, entrant, mu_before, sigma_before, *_ in changes(db)[count:]:
        resumed.setdefault(entrant, (mu_before, sigma_before))
    for entrant, skill in resumed.items():
        assert skill == pytest.approx(stored.get(entrant, (25.0, 25.0 / 3))), entrant


def validated(db: Path | str, author: str) -> bool:
    """Whether `author`'s version passed its validation game (and failing it is a failure)."""
    [(status, log)] = ladder_rows(
        db, f"SELECT status, validation_log FROM submissions WHERE author = '{author}'"
    )
    assert status != "failed", log
    return status == "ready"


def ratings(db: Path | str) -> list[tuple[object, ...]]:
    return ladder_rows(db, "SELECT entrant, mu, sigma FROM ladder_ratings")


def see_the_page(web: str, played: list[str]) -> None:
    """The ladder's page in a browser: every entrant's line with its uncertainty bar, a chart
    for each that played, and a replay link that opens the match's page."""
    if not CHROMIUM.exists():
        pytest.skip(f"no {CHROMIUM}: apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        try:
            page = browser.new_page()
            page.goto(f"{web}/ladder/kings-court")
            expect(page.locator("main h1")).to_have_text("kings-court ladder")
            expect(page.locator("table.ladder tbody tr")).to_have_count(len(ENTRANTS))
            for entrant in ENTRANTS:
                expect(page.locator(f'tr[data-entrant="{entrant}"]')).to_be_visible()
            expect(page.locator("svg.uncertainty")).to_have_count(len(ENTRANTS))
            expect(page.locator("svg.history")).to_have_count(len(played))
            link = page.locator("a.replay").first
            href = link.get_attribute("href")
            assert href is not None
            assert re.fullmatch(r"/match/\d+", href), href
            link.click()
            expect(page).to_have_url(f"{web}{href}")
            expect(page.locator(".result")).to_contain_text(re.compile(r"\w"), timeout=20_000)
        finally:
            browser.close()
