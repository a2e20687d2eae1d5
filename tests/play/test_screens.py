"""Each game's screen at 80x24 as plain text (what a terminal without colour shows), pinned by
snapshot files in tests/play/snapshots/. After a deliberate change of the drawing, rewrite them
with `ARBITER_UPDATE_SNAPSHOTS=1 pytest tests/play/test_screens.py` and read the diff."""

from __future__ import annotations

import os
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from arbiter import protocol
from arbiter.client.play.boards import drawing_for
from arbiter.client.play.boards.grid import picture_lines
from arbiter.client.play.commands import Say, interpret
from arbiter.client.play.screen import View, report_lines, screen_lines
from arbiter.client.play.table import Table
from arbiter.games import GAME_NAMES, get_game
from tests.play.tables import table_after

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("ARBITER_UPDATE_SNAPSHOTS") == "1"
WIDTH, HEIGHT = 80, 24
NOW = 30.0
"""The screen's clock reading: the match started at 0, the last report came at 10."""
KINGS_COURT_GAME = [
    "G3F3", "B5C5", "B6C6", "H3G3", "D2D3", "A6B6", "C6D6",
    "C8C6", "B4B5", "G6F6", "B5B4", "G3E3C3", "D6E6", "C2D2",
]  # fmt: skip
WATCH_YOUR_BACK_GAME = [
    "1,2", "6,6", "5,4", "1,3", "3,3", "4,7", "3,4", "5,7", "5,0", "0,2", "7,4", "6,4",
    "5,5", "2,4", "7,1", "1,7", "7,5", "3,7", "1,4", "4,3", "4,2", "6,5", "4,1", "7,6",
    "7,4-7,6", "3,7-2,7", "5,0-4,0",
]  # fmt: skip


def answer(line: str, table: Table) -> tuple[str, ...]:
    action = interpret(line, table)
    assert isinstance(action, Say)
    return action.lines


def plain(lines: list[Text]) -> str:
    return "\n".join(line.plain.rstrip() for line in lines) + "\n"


def check_snapshot(name: str, lines: list[Text]) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    text = plain(lines)
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no snapshot {path.name}: run with ARBITER_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(), f"the screen differs from {path.name}:\n{text}"


def screen(table: Table, view: View | None = None) -> list[Text]:
    lines = screen_lines(table, view or View(), WIDTH, HEIGHT, NOW)
    assert len(lines) == HEIGHT
    assert all(line.cell_len <= WIDTH for line in lines)
    return lines


def test_kings_court_after_a_double_jump() -> None:
    table = table_after("kings-court", KINGS_COURT_GAME)
    check_snapshot("kings-court", screen(table, View(typing="c3c5")))


def test_kings_court_opening_with_the_legal_moves_listed() -> None:
    table = table_after("kings-court", [])
    view = View()
    view.say(*answer("?", table))
    check_snapshot("kings-court-moves", screen(table, view))


def test_kings_court_help_takes_the_boards_place() -> None:
    table = table_after("kings-court", [], local=(0, 1), players=("ann", "ann"))
    view = View()
    view.say(*answer("help", table))
    check_snapshot("kings-court-help", screen(table, view))


def test_kings_court_game_over() -> None:
    table = table_after("kings-court", KINGS_COURT_GAME[:4])
    game = get_game("kings-court")
    state = game.new_game()
    for text in KINGS_COURT_GAME[:4]:
        state = state.play(game.parse_move(text))
    table.apply(
        protocol.GameOver(
            match=3,
            result="win",
            winner="black",
            reason="white resigned",
            state=state.to_data(),
            moves=KINGS_COURT_GAME[:4],
        ),
        0,
        20.0,
    )
    check_snapshot("kings-court-over", screen(table))


def test_watch_your_back_in_the_moving_phase() -> None:
    table = table_after("watch-your-back", WATCH_YOUR_BACK_GAME, local=(1,))
    check_snapshot("watch-your-back", screen(table))


def test_war_of_life_shows_the_board_before_and_after_the_crank() -> None:
    game = get_game("war-of-life")
    start = game.initial_state(game.resolve_options({"seed": 7}))
    first = game.format_move(start.legal_moves()[0])
    table = table_after("war-of-life", [first], local=(1,), options={"seed": 7})
    check_snapshot("war-of-life", screen(table))


def test_amazons_with_a_long_list_of_moves_cut_to_the_screen() -> None:
    table = table_after("amazons", ["d1-d7/g7", "g10-g8/i10"])
    view = View(typing="? a4")
    view.say(*answer("?", table))
    check_snapshot("amazons-moves", screen(table, view))
    check_snapshot("amazons", screen(table))


def test_shobu_shows_four_boards_by_owner_and_colour() -> None:
    table = table_after("shobu", ["bda1 wla1 n2", "wlb4 bdc4 s1"])
    check_snapshot("shobu", screen(table))


def test_a_spectator_joining_late_sees_the_last_move() -> None:
    game = get_game("kings-court")
    state = game.new_game()
    for text in KINGS_COURT_GAME:
        state = state.play(game.parse_move(text))
    table = Table(game, watching=True)
    table.apply(
        protocol.Watching(
            match=3,
            game="kings-court",
            seats=list(game.seats),
            players=["ann", "bob"],
            options={"no_capture_limit": 50},
            time={"move": 10.0},
            state=state.to_data(),
            moves=KINGS_COURT_GAME,
        ),
        None,
        NOW,
    )
    check_snapshot("kings-court-watching", screen(table))


def test_the_scrolling_report_is_the_screen_without_input() -> None:
    table = table_after("war-of-life", [], options={"seed": 7})
    check_snapshot("war-of-life-report", report_lines(table, WIDTH, NOW))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(GAME_NAMES), st.integers(0, 10**6), st.integers(0, 120))
def test_every_screen_fits_80_by_24_with_the_whole_board(name: str, seed: int, plies: int) -> None:
    """Any position of any game, with or without a message: nothing is cut off the board."""
    game = get_game(name)
    state = game.new_game(lambda: seed)
    rng = random.Random(seed)
    moves = []
    while len(moves) < plies and not state.is_over():
        move = state.random_move(rng)
        moves.append(game.format_move(move))
        state = state.play(move)
    seeds = {option.name: seed for option in game.options if option.is_seed}
    table = table_after(name, moves, local=(0, 1), options=seeds)
    position = table.position()
    assert position is not None
    board = plain(picture_lines(drawing_for(name).picture(position), game.seats))
    message = View()
    message.say("illegal move: " + "x" * 150)
    for view in (View(), message):
        text = plain(screen(table, view))
        assert all(row in text for row in board.splitlines())
