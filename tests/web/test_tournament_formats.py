"""A knockout's tournament page: its format beside the progress, and its bracket as a table
that agrees with the `tournament` message; a match's page, with where its SPRT stands."""

from __future__ import annotations

from functools import partial
from typing import Any

import trio
from playwright.sync_api import Page, expect

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.tournament import request
from arbiter.server.app import admin_token
from tests.web.conftest import WebServer
from tests.web.test_watch import SECONDS


async def run_knockout(port: int, token: str) -> protocol.Tournament:
    """A knockout of three built-in agents, played to its end; its last status."""
    return await run_to_end(port, token, local=["greedy", "random", "random"], format="knockout")


async def run_to_end(port: int, token: str, **fields: Any) -> protocol.Tournament:
    """A tournament `cup` of built-in agents, played to its end; its last status."""
    async with await ClientConnection.open("127.0.0.1", port, "director", token) as director:
        create = protocol.TournamentCreate(
            name="cup",
            game="kings-court",
            options={"no_capture_limit": 6},
            time={"move": 0.5},
            wait=5,
            **fields,
        )
        await request(director, create)
        await request(director, protocol.TournamentStart(tournament="cup"))
        with trio.fail_after(120):
            while True:
                status = await request(director, protocol.TournamentStatus(tournament="cup"))
                if status.status == "finished":
                    return status
                await trio.sleep(0.5)


def test_a_knockouts_page_shows_its_format_and_bracket(web_server: WebServer, page: Page) -> None:
    token = admin_token(web_server.db, "director")
    final = trio.run(run_knockout, web_server.port, token)
    assert final.bracket is not None
    page.goto(f"{web_server.url}/tournament/cup")
    expect(page.locator(".progress")).to_contain_text("kings-court, knockout, finished")
    expect(page.get_by_role("heading", name="Bracket")).to_be_visible(timeout=SECONDS)
    bracket = page.locator("table").nth(1)
    expect(bracket.get_by_role("row")).to_have_count(len(final.bracket) + 1)
    champion = final.bracket[-1]["winner"]
    expect(bracket.get_by_role("row").last).to_contain_text(champion)
    expect(bracket.get_by_role("row").nth(1)).to_contain_text("bye")


def test_a_matchs_page_shows_where_its_sprt_stands(web_server: WebServer, page: Page) -> None:
    token = admin_token(web_server.db, "director")
    terms = {"elo0": 0, "elo1": 400}
    final = trio.run(
        partial(run_to_end, local=["greedy", "random"], format="match", sprt=terms),
        web_server.port,
        token,
    )
    assert final.sprt is not None
    page.goto(f"{web_server.url}/tournament/cup")
    expect(page.locator(".progress")).to_contain_text("kings-court, match, finished")
    llr = f"LLR {final.sprt['llr']:.2f} [-2.94, 2.94]"
    expect(page.locator(".sprt")).to_contain_text("SPRT (elo0=0 elo1=400, alpha 0.05, beta 0.05)")
    expect(page.locator(".sprt")).to_contain_text(llr)
