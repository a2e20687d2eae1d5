"""A match page shows the hosted agents' logs to their signed-in author (and an admin), and to
nobody else. The log is kept in the store as the server keeps a worker's `host_ended` log
(`storage.seat_logs.keep`); tests/workers/test_hosted_submissions.py covers that path."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from arbiter.server.storage import seat_logs
from arbiter.server.storage.engine import open_database
from tests.tournament.helpers import register
from tests.web.bots import PacedMatch
from tests.web.conftest import WebServer
from tests.web.test_authors import sign_in

LOG = "thinking hard about move 3\nTraceback: nothing, all is well"


def test_the_match_page_shows_an_agents_log_to_its_author_alone(
    page: Page, web_server: WebServer
) -> None:
    tokens = register(web_server.db, "ann", "eve") | register(web_server.db, "boss", role="admin")
    played = PacedMatch(web_server.port, "kings-court", {"no_capture_limit": 6}, pause=0).start()
    played.join(30)
    assert played.match is not None
    connection = open_database(web_server.db)
    try:
        assert seat_logs.keep(connection, "ada", 0.0, "ann", LOG) == [played.match]
    finally:
        connection.close()
    logs = page.locator("section.logs")

    page.goto(f"{web_server.url}/match/{played.match}")
    expect(page.get_by_role("heading", name=f"Match {played.match}")).to_be_visible()
    page.wait_for_load_state("networkidle")
    expect(logs).to_have_count(0)  # a visitor who has not signed in

    for name, shown in (("eve", False), ("ann", True), ("boss", True)):
        sign_in(page, web_server, name, tokens[name])
        page.goto(f"{web_server.url}/match/{played.match}")
        if shown:
            expect(logs).to_contain_text("thinking hard about move 3")
            expect(logs.get_by_role("heading", name="white: ada")).to_be_visible()
        else:
            page.wait_for_load_state("networkidle")
            expect(page.get_by_role("heading", name=f"Match {played.match}")).to_be_visible()
            expect(logs).to_have_count(0)
        page.goto(f"{web_server.url}/agents")
        page.get_by_role("button", name="Sign out").click()
