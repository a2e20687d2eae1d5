"""`arbiter play` and `arbiter watch` run as a person runs them: a real process in an 80x24
pseudo-terminal, keys typed, the screen read back as plain text."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.games import get_game
from tests.conftest import RunningServer
from tests.e2e.helpers import play_randomly, until
from tests.play.helpers import ROOT, Terminal, colour_codes, move_list

KINGS_COURT = get_game("kings-court")
WAR_OF_LIFE = get_game("war-of-life")


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    """Terminals a test opens, closed (their programs killed) whatever happens."""
    opened: list[Terminal] = []
    yield opened
    for terminal in opened:
        terminal.close()


def start(terminals: list[Terminal], *args: str, **kwargs: Any) -> Terminal:
    terminal = Terminal(*args, **kwargs)
    terminals.append(terminal)
    return terminal


def short_kings_court_game() -> list[str]:
    """The shortest of a few seeded random games that gets past the opening into jumps, so the
    typed game is a whole one (it ends by the rules) and quick."""
    games = []
    for seed in range(60):
        rng, state, moves = random.Random(seed), KINGS_COURT.new_game(), []
        while not state.is_over():
            move = state.random_move(rng)
            moves.append(KINGS_COURT.format_move(move))
            state = state.play(move)
        if len(moves) >= 9:
            games.append(moves)
    return min(games, key=len)


def test_a_hot_seat_game_of_kings_court_typed_move_by_move_to_its_end(terminals) -> None:
    moves = short_kings_court_game()
    term = start(terminals, "play", "kings-court", "--vs", "human")
    state = KINGS_COURT.new_game()
    for ply, text in enumerate(moves):
        seat = KINGS_COURT.seats[state.turn]
        term.expect(rf"move {ply + 1}: {seat} to move")
        term.expect(rf"{seat} to play>")
        term.type(text.lower())
        state = state.play(KINGS_COURT.parse_move(text))
        term.expect(rf"last move: {seat} {text}")
    outcome = state.outcome()
    assert outcome is not None
    term.expect(rf"game over after {len(moves)} moves")
    term.expect_words(outcome.reason)
    assert term.wait_exit() == 0
    assert f"last move: {KINGS_COURT.seats[1 - state.turn]} {moves[-1]}" in term.text


def test_a_mistyped_move_is_answered_with_its_message_and_costs_nothing(terminals) -> None:
    term = start(terminals, "play", "kings-court", "--vs", "human")
    term.expect(r"white to play>")
    term.type("b4x4")
    term.expect_words("'b4x4'")
    term.type("b4c5")
    term.expect_words("B4 to C5 is neither a slide (one square up, down, left or right)")
    term.type("a1a3")
    term.expect_words("move 1 must slide a piece into the Court")
    term.type("b4c4")
    term.expect(r"last move: white B4C4")
    term.expect(r"move 2: black to move")
    term.type("quit")
    term.expect(r"white wins: black resigned")
    assert term.wait_exit() == 0


def test_question_mark_lists_the_legal_moves_and_help_explains_the_notation(terminals) -> None:
    term = start(terminals, "play", "kings-court", "--vs", "human")
    term.expect(r"white to play>")
    term.type("?")
    listed = move_list(term.expect(r"8 legal moves for white:\n((?:.+\n)+)").group(1))
    start_moves = KINGS_COURT.new_game().legal_moves()
    assert sorted(listed) == sorted(KINGS_COURT.format_move(m) for m in start_moves)
    term.type("? b6")
    assert move_list(term.expect(r"1 legal move for white starting with b6:\n(.*\n)").group(1)) == [
        "B6C6"
    ]
    term.type("? h8")
    term.expect_words("no legal move for white starts with 'h8'")
    term.type("help")
    term.expect_words(KINGS_COURT.notation_help[:60])
    term.type("")
    term.expect(r"A  B  C  D  E  F  G  H")
    term.type("resign")
    term.expect(r"black wins: white resigned")
    assert term.wait_exit() == 0


def test_a_game_against_random_is_played_to_its_end(terminals) -> None:
    """War of Life: the board before and after the crank on every move, the agent's moves."""
    term = start(terminals, "play", "war-of-life", "--vs", "random", "--seed", "4")
    turn = 1
    while True:
        found = term.expect(rf"move {turn}: blue to move|game over after \d+ moves")
        if found.group().startswith("game over"):
            break
        term.expect(r"blue to play>")
        term.type("?")
        listed = move_list(term.expect(r"\d+ legal moves? for blue:\n((?:.+\n)+)").group(1))
        term.type(listed[0])
        term.expect(rf"blue {listed[0]}, before the crank +after the crank")
        turn += 2
    term.expect(r"(blue|red) wins|draw")
    assert term.wait_exit() == 0


def test_two_agents_are_watched_from_the_first_move_to_the_end(terminals) -> None:
    term = start(
        terminals, "watch", "--vs", "random", "greedy", "kings-court", "--seed", "2", "--delay", "0"
    )
    term.expect(r"King's Court \| match 1 \| move=10 \| watching")
    term.expect(r"move 1: white to move")
    term.expect(r"last move: white [A-H][1-8][A-H][1-8]")
    term.expect(r"game over after \d+ moves")
    assert term.wait_exit() == 0


def test_without_colour_the_screen_keeps_its_marks(terminals) -> None:
    term = start(terminals, "play", "kings-court", "--vs", "human", env={"NO_COLOR": "1"})
    term.expect(r"white to play>")
    term.type("b4c4")
    term.expect(r"4  b \[\.\]\[w\] \+  \+  \+  b  w  4")
    term.type("quit")
    assert term.wait_exit() == 0
    assert colour_codes(term.raw) == []


def test_with_colour_the_seats_have_distinct_colours(terminals) -> None:
    term = start(terminals, "play", "kings-court", "--vs", "human")
    term.expect(r"white to play>")
    term.type("quit")
    assert term.wait_exit() == 0
    assert {"97", "33"} <= set(colour_codes(term.raw))  # bright white and yellow pieces


def piped(*args: str, typed: str) -> subprocess.CompletedProcess[str]:
    """`arbiter ARGS` with `typed` on standard input and its output captured (not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "arbiter.client.cli", *args],
        input=typed,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_piped_input_is_a_script_and_the_output_has_no_escape_codes() -> None:
    """Not a terminal: each line waits for a local seat's turn, the screen is printed plainly."""
    script = "\n".join(["?", "b4c4", "g4f4", "c4d4", "g6f6", "resign"]) + "\n"
    done = piped("play", "kings-court", "--vs", "human", typed=script)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "8 legal moves for white:" in done.stdout
    assert "black to play> g4f4" in done.stdout
    assert "last move: black G6F6" in done.stdout
    assert done.stdout.rstrip().splitlines()[-1].strip().startswith("white root") or (
        "black wins: white resigned" in done.stdout
    )


async def test_play_on_a_server_and_watch_the_match_there(server: RunningServer) -> None:
    """A person seeks on a server and meets a bot; a spectator on another terminal watches."""
    address = f"{server.host}:{server.port}"
    person = Terminal(
        "play", "kings-court", "--server", address, "--name", "ann", "--time", "move=30"
    )
    spectator: Terminal | None = None
    try:
        await trio.to_thread.run_sync(person.expect, r"seeking an opponent")
        bot = await ClientConnection.open(server.host, server.port, "bot")
        async with bot:
            await bot.send(protocol.Seek(game="kings-court", time={"move": 30.0}, illegal="retry"))
            started = await until(bot, protocol.MatchStarted)
            await trio.to_thread.run_sync(person.expect, r"white to play>")
            spectator = Terminal("watch", str(started.match), "--server", address)
            await trio.to_thread.run_sync(spectator.expect, r"ann.*bot")
            person.type("b4c4")
            await trio.to_thread.run_sync(spectator.expect, r"last move: white B4C4")
            person.type("quit")
            over = await play_randomly(bot, seed=1)
            assert isinstance(over, protocol.GameOver)
            assert over.reason == "white resigned"
            await trio.to_thread.run_sync(spectator.expect, r"black wins: white resigned")
            assert await trio.to_thread.run_sync(person.wait_exit) == 0
            assert await trio.to_thread.run_sync(spectator.wait_exit) == 0
    finally:
        person.close()
        if spectator is not None:
            spectator.close()


def test_against_an_agent_you_may_take_the_second_seat() -> None:
    command = ["play", "war-of-life", "--vs", "random", "--seat", "red", "--seed", "5"]
    done = piped(*command, typed="resign\n")
    assert done.returncode == 0, done.stderr
    assert "you play red" in done.stdout
    assert "last move: blue " in done.stdout, "the agent, first to move, moved first"
    assert "blue wins: red resigned" in done.stdout


def test_a_crashing_player_module_loses_and_its_report_follows_the_game() -> None:
    module = "tests/byoa/players/crash_mid_game.py"  # crashes on its fourth turn
    command = ["play", "watch-your-back", "--vs", module, "--seat", "black"]
    done = piped(*command, typed="0,1\n0,2\n0,3\n0,4\n")
    assert done.returncode == 1
    assert "black wins: disconnected" in done.stdout
    assert "crashed in action(6): KeyError" in done.stderr
