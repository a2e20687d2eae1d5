"""Each game's board as the web page draws it, for a few positions of seeded random games,
pinned pixel for pixel by golden screenshots in tests/web/boards/: the boards look the same
whatever the drawing code does. The page's own scripts draw in a real chromium, served over
TCP from server/web/static by a throwaway HTTP server. After a deliberate change of the look,
rewrite them with `ARBITER_UPDATE_SNAPSHOTS=1 pytest tests/web/test_board_pictures.py` and look
at the pictures."""

from __future__ import annotations

import functools
import http.server
import json
import os
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from arbiter.games import GAME_NAMES, get_game

GOLDEN = Path(__file__).parent / "boards"
STATIC = Path(__file__).parents[2] / "server" / "web" / "static"
UPDATE = os.environ.get("ARBITER_UPDATE_SNAPSHOTS") == "1"
PLIES = (0, 1, 2, 30, 160)
HARNESS = """<!doctype html><html><head><link rel="stylesheet" href="/style.css"></head>
<body><div class="board-box" id="box"></div></body></html>"""


def positions(name: str) -> Iterator[tuple[int, dict[str, Any], str | None]]:
    """A seeded random game's positions at `PLIES` (fewer if it ends first), each with the move
    that led to it."""
    game = get_game(name)
    rng = random.Random(5)
    state = game.new_game(lambda: 5)
    move = None
    for ply in range(max(PLIES) + 1):
        if ply in PLIES:
            yield ply, state.to_data(), move
        if state.is_over():
            return
        chosen = state.random_move(rng)
        move = game.format_move(chosen)
        state = state.play(chosen)


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/harness.html":
            body = HARNESS.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reports what matters."""


@pytest.fixture(scope="module")
def static_url() -> Iterator[str]:
    handler = functools.partial(Handler, directory=str(STATIC))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def draw(page: Page, name: str, data: dict[str, Any], move: str | None) -> None:
    """The page's scripts draw the position into the box, from what the server sends a page:
    the game's description of its boards, the state and the last move's squares."""
    boards = get_game(name).boards
    marked = boards.square_names(move) if move else []
    page.evaluate(
        """async ([game, boards, data, marked]) => {
            const { drawBoard } = await import("/boards.js");
            document.getElementById("box").innerHTML = drawBoard(game, boards, data, marked);
        }""",
        [name, boards.to_data(), data, marked],
    )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_web_board_looks_as_its_golden_screenshots(
    name: str, page: Page, static_url: str
) -> None:
    page.goto(f"{static_url}/harness.html")
    differ = []
    for ply, data, move in positions(name):
        draw(page, name, data, move)
        shot = page.locator("svg.board").screenshot()
        path = GOLDEN / f"{name}-{ply}.png"
        if UPDATE:
            path.write_bytes(shot)
        assert path.exists(), (
            f"no golden screenshot {path.name}: run with ARBITER_UPDATE_SNAPSHOTS=1"
        )
        if shot != path.read_bytes():
            differ.append(path.name)
    assert not differ, f"the board differs from {differ} ({json.dumps(name)})"
