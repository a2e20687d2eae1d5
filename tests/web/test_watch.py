"""Watching in a real browser: the lobby lists a live match and links to it, its page shows the
moves as they are played, and every game's board is drawn (screenshots for a person to look
at: in $ARBITER_WEB_SHOTS if set, else the test's tmp folder)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from arbiter.client.verdict import verdict
from arbiter.games import get_game
from arbiter.server.web.history import KEPT_PLIES
from tests.web.bots import PacedMatch
from tests.web.conftest import WebServer
from tests.web.test_socket import HELLO, talk

SECONDS = 60_000
"""Playwright's waits, in milliseconds: generous, the machine is shared."""
WATCHED = {"no_capture_limit": 6}
"""The watched game's options: a short no-capture limit ends the paced game in tens of moves
(about a hundred without it), enough to see the page follow it move after move."""


@pytest.mark.long
def test_the_lobby_links_a_live_match_whose_page_shows_each_move(
    web_server: WebServer, page: Page
) -> None:
    page.goto(web_server.url)
    expect(page.get_by_text("No match is being played.")).to_be_visible(timeout=SECONDS)
    match = PacedMatch(web_server.port, "kings-court", WATCHED, pause=0.2).start()
    row = page.get_by_role("row").filter(has_text="ada (white)")
    expect(row).to_contain_text("kings-court", timeout=SECONDS)
    row.get_by_role("link", name=f"#{match.match}").click()
    expect(page).to_have_url(f"{web_server.url}/match/{match.match}")
    board = page.locator(".board-box")
    seen = []
    deadline = time.monotonic() + 120
    while match.over is None and time.monotonic() < deadline:
        ply = board.get_attribute("data-ply")
        if ply is not None and (not seen or seen[-1] != int(ply)):
            seen.append(int(ply))
        time.sleep(0.05)
    match.join(30)
    assert match.over is not None
    expect(page.locator(".result")).to_contain_text(match.over.reason, timeout=SECONDS)
    kinds = re.compile(r"^(rule|draw-by-rule|double-forfeit)$")  # the store's termination kind
    expect(page.locator(".result")).to_have_attribute("data-termination", kinds)
    assert len(seen) >= 4, seen  # the page moved on by itself, move after move
    assert seen == sorted(seen)
    expect(page.locator(".moves a")).to_have_count(len(match.moves))
    assert page.locator(".moves a").all_inner_texts()[-1].endswith(match.moves[-1])
    # the final position drawn is the one the rules reach
    final = get_game("kings-court").replay(WATCHED, match.moves).to_data()["board"]
    cells = page.locator("svg.board .square").evaluate_all(
        "squares => squares.map(s => s.dataset.cell).join('')"
    )
    assert cells == "".join(final)


GAMES = {
    "kings-court": ({"no_capture_limit": 20}, 64),
    "watch-your-back": ({}, 64),
    "war-of-life": ({"seed": 3}, 64),
    "amazons": ({}, 100),
    "shobu": ({"no_capture_limit": 20}, 64),
}


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ARBITER_WEB_SHOTS") or tmp_path / "boards")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("game", GAMES)
def test_every_games_board_is_drawn_with_its_last_move_and_replays(
    game: str, web_server: WebServer, page: Page, tmp_path: Path
) -> None:
    options, squares = GAMES[game]
    match = PacedMatch(web_server.port, game, options, pause=0).start()
    match.join(120)
    assert match.over is not None
    page.goto(f"{web_server.url}/match/{match.match}")
    result = page.locator(".result")
    expect(result).to_contain_text(match.over.reason, timeout=SECONDS)
    # the result reads as every client writes it (client/verdict.py)
    expect(result).to_contain_text(verdict(match.over.result, match.over.winner, match.over.reason))
    board = page.locator(f"svg.board[data-game={game}]")
    expect(board.locator(".square")).to_have_count(squares)
    if match.moves:
        expect(board.locator(".last-move").first).to_be_visible()
    # The page draws once more when the store's termination kind arrives: shoot after that.
    expect(result).to_have_attribute("data-termination", re.compile(r".+"), timeout=SECONDS)
    board.screenshot(path=shots(tmp_path) / f"{game}.png")
    # replay: back to the start, one step on, the slider, a move's own link
    page.get_by_role("button", name="first position").click()
    expect(page.locator(".board-box")).to_have_attribute("data-ply", "0")
    start = get_game(game).initial_state(options)
    assert cells(page) == "".join(rows(start.to_data()))
    page.get_by_role("button", name="next move").click()
    expect(page.locator(".board-box")).to_have_attribute("data-ply", "1")
    page.locator(".moves a").last.click()
    expect(page.locator(".board-box")).to_have_attribute("data-ply", str(len(match.moves)))
    page.get_by_role("slider").fill("1")
    expect(page.locator(".board-box")).to_have_attribute("data-ply", "1")
    assert page.url.endswith("#ply=1")
    page.reload()  # the link of a position is a position
    expect(page.locator(".board-box")).to_have_attribute("data-ply", "1", timeout=SECONDS)


def test_a_double_forfeit_reads_as_every_client_writes_it(
    web_server: WebServer, page: Page
) -> None:
    """King's Court with a no-capture limit of 1: the second move, which cannot capture yet,
    forfeits both seats."""
    match = PacedMatch(web_server.port, "kings-court", {"no_capture_limit": 1}, pause=0).start()
    match.join(60)
    assert match.over is not None
    assert match.over.result == "both_forfeit"
    page.goto(f"{web_server.url}/match/{match.match}")
    expected = verdict(match.over.result, match.over.winner, match.over.reason)
    assert expected.startswith("both forfeit: ")
    expect(page.locator(".result")).to_contain_text(expected, timeout=SECONDS)


SHRUNK = [
    "########",
    "#X----X#",
    "#-O--@-#",
    "#------#",
    "#--@---#",
    "#------#",
    "#X----X#",
    "########",
]


def test_watch_your_backs_shrunk_edges_and_new_corners_are_drawn(
    web_server: WebServer, page: Page, tmp_path: Path
) -> None:
    """A position after the first shrink (a random game rarely lives that long)."""
    page.goto(web_server.url)
    boards = get_game("watch-your-back").boards
    markup = page.evaluate(
        "async ([boards, rows, marked]) => (await import('/static/boards.js'))"
        ".drawBoard('watch-your-back', boards, {board: rows, ply: 160}, marked)",
        [boards.to_data(), SHRUNK, boards.square_names("2,2-3,2")],
    )
    page.set_content(f"<div>{markup}</div>")
    board = page.locator("svg.board")
    assert cells(page) == "".join(SHRUNK)
    removed = board.locator(".square[data-cell='#'] rect").first
    corner = board.locator(".square[data-cell='X'] rect").first
    assert removed.get_attribute("fill") != corner.get_attribute("fill")
    expect(board.locator(".last-move")).to_have_count(2)
    board.screenshot(path=shots(tmp_path) / "watch-your-back-shrunk.png")


def rows(data: dict[str, object]) -> list[str]:
    if "boards" in data:  # Shobu, in the order the page draws its boards
        boards = data["boards"]
        assert isinstance(boards, dict)
        return [
            row
            for name in ("white-dark", "white-light", "black-dark", "black-light")
            for row in boards[name]
        ]
    board = data["board"]
    assert isinstance(board, list)
    return board


def cells(page: Page) -> str:
    return str(
        page.locator("svg.board .square").evaluate_all(
            "squares => squares.map(s => s.dataset.cell).join('')"
        )
    )


def test_a_long_game_is_shown_from_its_latest_positions_in_bounded_bytes(
    web_server: WebServer, page: Page
) -> None:
    """A Shobu game longer than `KEPT_PLIES` (these seeds play 290 moves): the page is sent its
    last `KEPT_PLIES` positions and the moves into them, not every move, and shows the game
    from there."""
    options = {"no_capture_limit": 1000}
    match = PacedMatch(web_server.port, "shobu", options, pause=0, seeds=(6, 7)).start()
    match.join(300)
    plies = len(match.moves)
    assert plies > KEPT_PLIES, plies
    page.goto(web_server.url)
    watch = {"type": "watch", "match": match.match}
    watching = next(m for m in talk(page, [HELLO, watch], 3) if m["type"] == "watching")
    assert len(watching["states"]) == KEPT_PLIES
    assert watching["states_from"] == plies - KEPT_PLIES + 1
    assert watching["squares_from"] == watching["states_from"] - 1
    assert len(watching["move_squares"]) == KEPT_PLIES
    assert watching["moves_from"] == watching["squares_from"]
    assert watching["moves"] == match.moves[watching["moves_from"] :]
    assert len(json.dumps(watching)) < KEPT_PLIES * 500
    page.goto(f"{web_server.url}/match/{match.match}")
    assert match.over is not None
    expect(page.locator(".result")).to_contain_text(match.over.reason, timeout=SECONDS)
    board = page.locator(".board-box")
    expect(board).to_have_attribute("data-ply", str(plies))
    page.get_by_role("button", name="first position").click()
    expect(board).to_have_attribute("data-ply", str(plies - KEPT_PLIES + 1))
    into_first = get_game("shobu").boards.square_names(match.moves[plies - KEPT_PLIES])
    marked = board.locator(".square:has(.last-move)")
    expect(marked).to_have_count(len(into_first))
    assert sorted(marked.evaluate_all("gs => gs.map(g => g.dataset.square)")) == sorted(into_first)
    expect(page.get_by_text("a long game")).to_be_visible()
    first_listed = plies - KEPT_PLIES + 1
    listed = page.locator(".moves a")
    expect(listed).to_have_count(KEPT_PLIES)
    expect(listed.first).to_have_text(f"{first_listed}. {match.moves[first_listed - 1]}")
    final = get_game("shobu").replay(options, match.moves).to_data()
    page.get_by_role("button", name="latest position").click()
    assert cells(page) == "".join(rows(final))
