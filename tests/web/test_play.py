"""Playing in a real browser: a person enters a name, seeks a game (or accepts an open seek from
the lobby) and plays a whole game of each of the five games by clicking squares against a
random player; an illegal move typed in gets the server's sentence; a reloaded page takes its
seat back. The person's moves are chosen by the greedy agent (a short game), then clicked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from arbiter import protocol
from arbiter.agents import make_agent
from arbiter.games import get_game
from arbiter.server.app import admin_token
from tests.web.bots import RandomSeat
from tests.web.conftest import WebServer
from tests.web.test_watch import SECONDS, shots

PERSON = "cleo"
SHORT = {  # options that keep a game short, and how the person gets their match
    "kings-court": ({"no_capture_limit": 6}, "accept"),
    "watch-your-back": ({}, "seek"),
    "war-of-life": ({"seed": 3}, "accept"),
    "amazons": ({}, "seek"),
    "shobu": ({"no_capture_limit": 6}, "accept"),
}
RELOADED_AT = 3
"""The person's move in the Amazons game before which the page is reloaded."""
PERSONS_DEFAULT = {"clock": 600.0, "increment": 5.0}
"""The server's time control for a seek under `illegal: retry` that names none."""
ACCEPTED = {"clock": 300.0, "increment": 2.0}
"""The control of the bot's open seek that the person accepts."""


def clicks(game: str, move: str) -> list[str]:
    """The squares (the boards' `data-square` names) a person clicks to make `move`."""
    return get_game(game).boards.click_names(move)


def enter(page: Page, url: str) -> None:
    page.goto(f"{url}/play")
    page.get_by_label("name").fill(PERSON)
    page.get_by_role("button", name="Enter").click()
    expect(page.get_by_role("heading", name=f"Play as {PERSON}")).to_be_visible(timeout=SECONDS)


def seek(page: Page, game: str, options: dict[str, Any]) -> None:
    page.get_by_label("game", exact=True).select_option(game)
    for name, value in options.items():
        page.get_by_label(name, exact=True).fill(str(value))
    page.get_by_role("button", name="Seek").click()
    expect(page.get_by_text(f"seeking {game}")).to_be_visible(timeout=SECONDS)


def played(page: Page) -> list[str]:
    return [text.split(". ", 1)[1] for text in page.locator(".moves a").all_inner_texts()]


def turn(page: Page) -> str:
    """Wait for the person's turn or the end: "mine" or "over"."""
    page.wait_for_function(
        "() => ['mine', 'over'].includes(document.querySelector('.board-box')?.dataset.turn)",
        timeout=SECONDS,
    )
    return str(page.locator(".board-box").get_attribute("data-turn"))


def play_one_move(page: Page, game: str, options: dict[str, Any], shot: Path | None) -> None:
    """The greedy agent's move in the position on the page, clicked (a screenshot to `shot`
    after the first click, the squares it may go on to marked)."""
    rules = get_game(game)
    moves = played(page)
    state = rules.replay(options, moves)
    move = rules.format_move(make_agent("greedy", rules, 0).choose(state, 1.0))
    path = clicks(game, move)
    board = page.locator("svg.board")
    if not path:
        page.locator(".choices").get_by_role("button", name=move).click()
    for square in path:
        board.locator(f'[data-square="{square}"]').click()
        if shot is not None and square == path[0]:
            page.locator(".board-box").screenshot(path=shot)
    longer = [
        other
        for other in rules.format_moves(state.legal_moves())
        if len(clicks(game, other)) > len(path) and clicks(game, other)[: len(path)] == path
    ]
    if longer:  # a King's Court jump that could go on: its last square again ends it
        board.locator(f'[data-square="{path[-1]}"]').click()
    page.wait_for_function(
        f"() => document.querySelectorAll('.moves a').length > {len(moves)}", timeout=SECONDS
    )
    assert played(page)[len(moves)] == move


def typed_illegal_move_is_refused(page: Page, game: str, options: dict[str, Any]) -> None:
    state = get_game(game).replay(options, played(page))
    text = "a1-a2/a3"  # white's amazons start on d1, g1, a4, j4: a1 is empty
    page.get_by_label("move text").fill(text)
    page.get_by_role("button", name="Send").click()
    reason = state.why_illegal(get_game(game).parse_move(text))
    assert reason
    expect(page.locator("p.error")).to_contain_text(reason, timeout=SECONDS)


@pytest.mark.parametrize("game", SHORT)
def test_a_person_plays_a_whole_game_by_clicks(
    game: str, web_server: WebServer, page: Page, tmp_path: Path
) -> None:
    options, how = SHORT[game]
    enter(page, web_server.url)
    if how == "accept":
        control = ACCEPTED
        bot_seek = protocol.Seek(game=game, options=options, time=control)
        bot = RandomSeat(web_server.port, "rand", bot_seek).start()
        page.get_by_role("button", name="accept rand").click()
    else:
        control = PERSONS_DEFAULT
        seek(page, game, options)
        bot_seek = protocol.Seek(game=game, options=options, time=control, opponent=PERSON)
        bot = RandomSeat(web_server.port, "rand", bot_seek).start()
    expect(page.locator("svg.board")).to_be_visible(timeout=SECONDS)
    minutes = int(control["clock"]) // 60  # the control in force (with an increment)
    clock = re.compile(rf"^({minutes}:0\d|{minutes - 1}:[0-5]\d)")
    expect(page.locator(".player .clock").first).to_have_text(clock, timeout=SECONDS)
    moves_made = 0
    while turn(page) == "mine":
        if game == "amazons" and moves_made == 0:
            typed_illegal_move_is_refused(page, game, options)
        if game == "amazons" and moves_made == RELOADED_AT:
            reload_and_resume(page)
        shot = shots(tmp_path) / f"playing-{game}.png" if moves_made == 1 else None
        play_one_move(page, game, options, shot)
        moves_made += 1
    assert game != "amazons" or moves_made > RELOADED_AT  # (an Amazons game is long enough)
    bot.join(60)
    assert bot.over is not None
    assert played(page) == bot.over.moves
    expect(page.locator(".result")).to_contain_text(bot.over.reason)
    ended_by_the_rules = re.compile(r"^(rule|draw-by-rule|double-forfeit)$")  # the store's kind
    expect(page.locator(".result")).to_have_attribute("data-termination", ended_by_the_rules)
    expect(page.get_by_role("button", name="New game")).to_be_visible()


def reload_and_resume(page: Page) -> None:
    """Reload mid-game: the page says hello with its kept session and takes its seat back."""
    before = played(page)
    page.reload()
    expect(page.locator(".board-box")).to_have_attribute("data-turn", "mine", timeout=SECONDS)
    assert played(page) == before


def test_a_registered_player_enters_with_a_token_that_stays_out_of_urls_and_logs(
    web_server: WebServer, page: Page
) -> None:
    token = admin_token(web_server.db, "dora")
    page.goto(f"{web_server.url}/play")
    page.get_by_label("name").fill("dora")
    page.get_by_label("token").fill("not-" + token)
    page.get_by_role("button", name="Enter").click()
    expect(page.locator("p.error")).to_contain_text("wrong token", timeout=SECONDS)
    page.get_by_label("name").fill("dora")
    page.get_by_label("token").fill(token)
    page.get_by_role("button", name="Enter").click()
    expect(page.get_by_role("button", name="Seek")).to_be_visible(timeout=SECONDS)
    assert token not in page.url
    assert token not in web_server.log.read_text()
