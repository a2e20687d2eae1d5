"""The tournament page after a small tournament (progress, standings, crosstable, the Elo
chart with its margins), and a player's page with their games."""

from __future__ import annotations

from pathlib import Path

import trio
from playwright.sync_api import Page, expect

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.server.app import admin_token
from tests.web.conftest import WebServer
from tests.web.test_watch import SECONDS, shots

ENTRANTS = ["random", "greedy", "random"]
GAMES = 6  # three entrants, each pair twice


async def run_tournament(port: int, token: str) -> protocol.Tournament:
    """Create and start a small tournament of built-in agents; its status once finished."""
    director = await ClientConnection.open("127.0.0.1", port, "director", token)
    create = protocol.TournamentCreate(
        name="spring", game="kings-court", local=ENTRANTS, concurrency=2, wait=5
    )
    await director.send(create, protocol.TournamentStart(tournament="spring"))
    while True:
        with trio.fail_after(120):
            message = await director.receive()
        if isinstance(message, protocol.Tournament) and message.status == "finished":
            await director.aclose()
            return message
        if isinstance(message, protocol.Tournament):
            await trio.sleep(0.5)
            await director.send(protocol.TournamentStatus(tournament="spring"))
        elif isinstance(message, protocol.Error):
            raise AssertionError(message.message)


def test_the_tournament_page_and_a_players_page(
    web_server: WebServer, page: Page, tmp_path: Path
) -> None:
    token = admin_token(web_server.db, "director")
    page.goto(f"{web_server.url}/tournament/spring")
    expect(page.locator(".error")).to_contain_text("spring", timeout=SECONDS)  # not yet
    finished = trio.run(run_tournament, web_server.port, token)
    page.reload()
    expect(page.locator(".progress")).to_contain_text(
        f"finished: {GAMES} of {GAMES} games", timeout=SECONDS
    )
    standings = page.locator("table").nth(0)
    for entry in finished.standings:
        row = standings.get_by_role("row").filter(has_text=entry["player"]).first
        expect(row).to_contain_text(f"{entry['points']:g}")
    crosstable = page.locator("table").nth(1)
    expect(crosstable.get_by_role("row")).to_have_count(len(ENTRANTS) + 1)
    rated = [entry for entry in finished.standings if entry["rating"] is not None]
    expect(page.locator("svg.elo-chart g.elo")).to_have_count(len(rated))
    bars = page.locator("svg.elo-chart line").evaluate_all(
        "lines => lines.map(l => l.x2.baseVal.value - l.x1.baseVal.value)"
    )
    assert all(width > 0 for width in bars), bars  # every margin drawn as a bar
    page.screenshot(path=shots(tmp_path) / "tournament.png", full_page=True)
    games = page.locator("table").nth(2)
    expect(games.get_by_role("link")).to_have_count(GAMES)
    # a player's page, from the standings
    player = finished.standings[0]["player"]
    standings.get_by_role("link", name=player).click()
    expect(page.locator("main h1")).to_have_text(player, timeout=SECONDS)
    expect(page.get_by_text(f"{2 * (len(ENTRANTS) - 1)} games:")).to_be_visible()
    expect(page.locator("main table tr")).to_have_count(2 * (len(ENTRANTS) - 1) + 1)
