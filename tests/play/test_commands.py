"""What a typed line asks for: moves are checked with the game's rules before anything is sent."""

from __future__ import annotations

from arbiter import protocol
from arbiter.client.play.commands import CLEAR, Play, Quit, Resign, Say, help_lines, interpret
from arbiter.client.play.table import Table
from arbiter.games import get_game
from tests.play.tables import table_after

KINGS_COURT = get_game("kings-court")


def said(line: str, table: Table) -> str:
    action = interpret(line, table)
    assert isinstance(action, Say), action
    return "\n".join(action.lines)


def test_a_move_is_sent_in_canonical_notation_whatever_its_case_and_spaces() -> None:
    table = table_after("kings-court", [])
    assert interpret("  b4c4 ", table) == Play(0, "B4C4")
    assert interpret("B4c4", table) == Play(0, "B4C4")


def test_a_mistyped_move_is_answered_with_the_parse_error_quoting_it() -> None:
    answer = said("b4x4", table_after("kings-court", []))
    assert "'b4x4'" in answer.splitlines()[0]
    assert "? lists the legal moves" in answer


def test_an_illegal_move_is_answered_with_the_games_own_sentence() -> None:
    table = table_after("kings-court", ["B4C4", "G4F4", "C4D4", "G6F6"])
    state = KINGS_COURT.new_game()
    for text in ["B4C4", "G4F4", "C4D4", "G6F6"]:
        state = state.play(KINGS_COURT.parse_move(text))
    reason = state.why_illegal(KINGS_COURT.parse_move("D4D6"))
    assert reason == "no jump from D4 over D5: D5 is empty"
    assert said("d4d6", table).splitlines()[0] == f"illegal move D4D6: {reason}"


def test_a_move_longer_than_any_legal_one_is_refused_unparsed() -> None:
    answer = said("b4" * 500, table_after("kings-court", []))
    assert "longer than any King's Court move" in answer


def test_question_mark_lists_every_legal_move_sorted() -> None:
    lines = said("?", table_after("kings-court", [])).splitlines()
    assert lines == ["8 legal moves for white:", "B4C4  B6C6  C7C6  D2D3  E7E6  F2F3  G3F3  G5F5"]


def test_question_mark_with_a_square_lists_the_moves_starting_there() -> None:
    table = table_after("kings-court", [])
    assert said("? b4", table).splitlines() == ["1 legal move for white starting with b4:", "B4C4"]
    assert said("?B6", table).splitlines()[1] == "B6C6"
    assert "no legal move for white starts with 'a1'" in said("? a1", table)


def test_moves_are_listed_with_numbers_read_as_numbers() -> None:
    listed = said("? a4-a1", table_after("amazons", [])).splitlines()[1].split("  ")
    assert listed[:3] == ["a4-a1/a2", "a4-a1/a3", "a4-a1/a4"]
    assert listed.index("a4-a1/i9") < listed.index("a4-a1/j10")


def test_a_shobu_move_with_spaces_is_one_move() -> None:
    table = table_after("shobu", [])
    assert interpret("BDA1  WLA1 N2", table) == Play(0, "bda1 wla1 n2")
    assert "bda1 wla1 n2" in said("? bda1 w", table).splitlines()[1].split("  ")


def test_help_explains_the_notation_with_a_move_legal_now() -> None:
    table = table_after("kings-court", ["B4C4"], local=(0, 1))
    lines = help_lines(table)
    assert KINGS_COURT.notation_help in lines
    first = said("?", table).splitlines()[1].split()[0]
    assert f"For example: {first}" in lines
    assert f"? {first[:2]} those starting with {first[:2]}" in lines[-1]
    assert said("HELP", table) == "\n".join(lines)


def test_help_for_a_game_not_started_takes_its_example_from_a_start() -> None:
    table = Table(get_game("war-of-life"))
    assert any(line.startswith("For example: ") and "-" in line for line in help_lines(table))


def test_no_move_is_sent_when_it_is_not_your_turn() -> None:
    table = table_after("kings-court", ["B4C4"])
    assert said("g4f4", table) == "it is black's turn (random is thinking), not yours"


def test_a_move_waits_for_the_servers_your_turn() -> None:
    """Between the opponent's move and our `your_turn` the position is known but the server
    has not asked yet: nothing is sent."""
    table = table_after("kings-court", [], local=(0,))
    table.to_move.clear()
    assert said("b4c4", table) == "a moment: the server has not asked for white's move yet"


def test_a_spectator_and_a_finished_game_play_no_move() -> None:
    watching = Table(KINGS_COURT, watching=True)
    assert said("b4c4", watching) == "you are watching: there is no move to play"
    assert said("b4c4", Table(KINGS_COURT)) == "the game has not started yet"
    table = table_after("kings-court", [])
    table.phase = "over"
    assert said("b4c4", table) == "the game is over"
    assert said("?", table) == "the game is over"
    assert said("resign", table) == "the game is over"


def test_resign_quit_and_an_empty_line() -> None:
    table = table_after("kings-court", ["B4C4"], local=(0, 1))
    assert interpret("resign", table) == Resign(1)
    assert interpret("Quit", table) == interpret("exit", table) == Quit()
    assert interpret("   ", table) is CLEAR


def test_resigning_against_a_thinking_opponent_resigns_your_seat() -> None:
    table = table_after("kings-court", ["B4C4"], local=(0,))
    assert interpret("resign", table) == Resign(0)


def test_a_refused_move_gives_the_turn_back() -> None:
    table = table_after("kings-court", [])
    table.to_move.discard(0)
    note = table.apply(
        protocol.MoveRefused(match=3, move="B4C4", code="illegal_move", reason="too late"), 0, 1.0
    )
    assert note == "refused: too late"
    assert interpret("b4c4", table) == Play(0, "B4C4")
