"""King's Court: every rule, ruling and example of docs/games/kings-court.md as a test.

Positions are built from the game's own text form with `board(...)`: 8 rows, top row (row 8)
first, `w` white, `b` black, `.` empty, spaces ignored for readability. The Court is C3-F6, the
middle four columns of rows 3-6. Unless a test says otherwise a position is at ply 10 (past the
opening) with white to move. `reference_moves` is a second, deliberately naive reading of the
rules (coordinates and explicit path checks, no bitboards) that the engine is compared with.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.games import (
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    Result,
    StateDataError,
)
from arbiter.games.kings_court import GAME, MAX_MOVE_TEXT, KingsCourtState

WHITE, BLACK = 0, 1


def board(*rows: str, **kwargs: Any) -> KingsCourtState:
    return KingsCourtState.from_rows(rows, **kwargs)


def texts(state: KingsCourtState) -> set[str]:
    return {GAME.format_move(move) for move in state.legal_moves()}


def play(state: KingsCourtState, *moves: str) -> KingsCourtState:
    for text in moves:
        _, state = GAME.apply_text(state, text)
    return state


def why(state: KingsCourtState, text: str) -> str | None:
    return state.why_illegal(GAME.parse_move(text))


def start() -> KingsCourtState:
    return GAME.new_game()


# -- the naive second reading of the rules ----------------------------------------------------

Sq = tuple[int, int]
"""(column, row), both from 0: A1 is (0, 0)."""

STEPS = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def name(square: Sq) -> str:
    return "ABCDEFGH"[square[0]] + str(square[1] + 1)


def in_court(square: Sq) -> bool:
    return 2 <= square[0] <= 5 and 2 <= square[1] <= 5


def reference_moves(state: KingsCourtState) -> set[str]:
    """Every legal move, read straight off the rules' wording; slow and simple on purpose."""
    data = state.to_data()
    grid = {(c, r): data["board"][7 - r][c] for c in range(8) for r in range(8)}
    me, them = ("w", "b") if state.turn == WHITE else ("b", "w")
    ply = data["ply"]
    mine = {sq for sq, cell in grid.items() if cell == me}
    if ply >= 2 and not any(in_court(sq) for sq in mine):
        return set()  # the player to move has lost their last Court piece
    if data["since_capture"] > data["no_capture_limit"]:
        return set()
    moves: set[str] = set()

    def keeps_court(origin: Sq, end: Sq) -> bool:
        return ply < 2 or any(in_court(sq) for sq in (mine - {origin}) | {end})

    for origin in mine:
        for direction, (dc, dr) in STEPS.items():
            to = (origin[0] + dc, origin[1] + dr)
            if grid.get(to) != ".":
                continue
            if ply < 2 and not in_court(to):
                continue
            if ply == 1 and direction != OPPOSITE[data["first_direction"]]:
                continue
            if keeps_court(origin, to):
                moves.add(name(origin) + name(to))
        if ply >= 4:
            cells = dict(grid)
            cells[origin] = "."
            walk_jumps([origin], [], cells, them, keeps_court, moves)
    return moves


def walk_jumps(
    path: list[Sq],
    captures: list[bool],
    cells: dict[Sq, str],
    them: str,
    keeps_court: Callable[[Sq, Sq], bool],
    moves: set[str],
) -> None:
    here = path[-1]
    for dc, dr in STEPS.values():
        over = (here[0] + dc, here[1] + dr)
        land = (here[0] + 2 * dc, here[1] + 2 * dr)
        if land not in cells or cells[over] == "." or cells[land] != ".":
            continue
        if len(path) >= 2 and land == path[-2]:
            continue  # never straight back
        longer, caps = [*path, land], [*captures, cells[over] == them]
        # a square passed twice needs a capture among the jumps between the two visits
        if any(longer[i] == land and not any(caps[i:]) for i in range(len(longer) - 1)):
            continue
        after = dict(cells)
        if cells[over] == them:
            after[over] = "."
        if keeps_court(path[0], land):
            moves.add("".join(name(sq) for sq in longer))
        walk_jumps(longer, caps, after, them, keeps_court, moves)


# -- metadata and options ---------------------------------------------------------------------


def test_identity_seats_and_option() -> None:
    assert GAME.name == "kings-court"
    assert GAME.title == "King's Court"
    assert GAME.seats == ("white", "black")
    (option,) = GAME.options
    assert (option.name, option.default, option.minimum) == ("no_capture_limit", 50, 1)
    assert GAME.new_game(no_capture_limit=7).no_capture_limit == 7


@pytest.mark.parametrize("value", [0, -3, "50", True, 2.5])
def test_bad_no_capture_limit_is_refused(value: Any) -> None:
    with pytest.raises(OptionError, match="no_capture_limit"):
        GAME.new_game(no_capture_limit=value)


def test_unknown_option_is_refused() -> None:
    with pytest.raises(OptionError, match="size"):
        GAME.new_game(size=10)


# -- the start --------------------------------------------------------------------------------


def test_start_is_the_checkerboard_outside_an_empty_court() -> None:
    assert start().rows() == [
        "bwbwbwbw",
        "wbwbwbwb",
        "bw....bw",
        "wb....wb",
        "bw....bw",
        "wb....wb",
        "bwbwbwbw",
        "wbwbwbwb",
    ]


def test_start_counts_and_first_player_owns_a1() -> None:
    state = start()
    assert state.rows()[7][0] == "w"  # A1
    assert state.turn == WHITE
    assert state.ply == 0
    assert state.since_capture == 0
    assert [state.piece_count(s) for s in (WHITE, BLACK)] == [24, 24]
    assert [state.court_count(s) for s in (WHITE, BLACK)] == [0, 0]
    assert state.outcome() is None


# -- the opening ------------------------------------------------------------------------------


def test_white_has_exactly_the_eight_opening_slides_of_the_seed() -> None:
    moves = start().legal_moves()
    assert len(moves) == 8
    assert {GAME.format_move(m) for m in moves} == {
        "D2D3",  # up
        "F2F3",  # up
        "B4C4",  # right
        "B6C6",  # right
        "C7C6",  # down
        "E7E6",  # down
        "G3F3",  # left
        "G5F5",  # left
    }


def test_b4c4_is_answered_only_by_g4f4_or_g6f6() -> None:
    assert texts(play(start(), "B4C4")) == {"G4F4", "G6F6"}


@pytest.mark.parametrize(
    ("first", "answers"),
    [
        ("D2D3", {"D7D6", "F7F6"}),
        ("F2F3", {"D7D6", "F7F6"}),
        ("C7C6", {"C2C3", "E2E3"}),
        ("E7E6", {"C2C3", "E2E3"}),
        ("B4C4", {"G4F4", "G6F6"}),
        ("B6C6", {"G4F4", "G6F6"}),
        ("G3F3", {"B3C3", "B5C5"}),
        ("G5F5", {"B3C3", "B5C5"}),
    ],
)
def test_move_two_slides_into_the_court_in_the_opposite_direction(
    first: str, answers: set[str]
) -> None:
    assert texts(play(start(), first)) == answers


def test_move_two_in_the_wrong_direction_is_refused_with_the_direction() -> None:
    state = play(start(), "B4C4")
    assert why(state, "B3C3") == "move 2 must slide left, opposite to move 1 (right)"
    with pytest.raises(IllegalMoveError, match="B3C3"):
        state.apply(GAME.parse_move("B3C3"))


def test_move_one_cannot_be_a_jump() -> None:
    assert why(start(), "C1C3") == "move 1 must slide a piece into the Court"


def test_move_one_must_end_in_the_court() -> None:
    holed = board(
        "bwbwbwbw",
        "wbwbwbwb",
        "bw....bw",
        "wb....wb",
        "bw....bw",
        "wb....wb",
        "bwbwbwbw",
        "w.wbwbwb",
        ply=0,
    )
    assert why(holed, "A1B1") == "move 1 must slide a piece into the Court"
    assert "A1B1" not in texts(holed)


def test_moves_three_and_four_are_slides_anywhere_and_jumps_begin_at_move_five() -> None:
    third = play(start(), "B4C4", "G4F4")
    assert "G3G4" in texts(third)  # a slide outside the Court
    assert why(third, "C1C3") == "moves 3 and 4 must be slides; jumps begin at move 5"
    assert all(len(m) == 2 for m in third.legal_moves())
    fourth = play(third, "G3G4")
    assert all(len(m) == 2 for m in fourth.legal_moves())
    fifth = play(fourth, "G6F6")
    assert "C1C3" in texts(fifth)
    assert fifth.why_illegal(GAME.parse_move("C1C3")) is None


def test_court_rule_holds_on_move_three() -> None:
    third = play(start(), "B4C4", "G4F4")
    assert why(third, "C4B4") == "the move leaves white with no piece in the Court"


def test_no_court_loss_before_the_end_of_move_two() -> None:
    after_one = play(start(), "B4C4")
    assert after_one.court_count(BLACK) == 0
    assert after_one.outcome() is None


def test_move_two_is_remembered_through_the_data_form() -> None:
    after_one = play(start(), "G5F5")
    data = msgpack.unpackb(msgpack.packb(after_one.to_data()))
    assert data["first_direction"] == "left"
    assert texts(GAME.state_from_data(data)) == {"B3C3", "B5C5"}
    assert play(after_one, "B3C3").first_direction is None


# -- jumps and the null-move rule -------------------------------------------------------------


def ring(a2: str = "w", b3: str = "w", c2: str = "w", b1: str = "w") -> KingsCourtState:
    """White's A1 ringed by A2, B3, C2 and B1 round the empty A3, C3 and C1 (the seed's example).

    D4 and E5 keep white and black in the Court.
    """
    return board(
        "........",
        "........",
        "........",
        "....b...",
        "...w....",
        f".{b3}......",
        f"{a2}.{c2}.....",
        f"w{b1}......",
    )


def test_a1a3_is_legal_over_an_own_piece() -> None:
    state = ring()
    assert "A1A3" in texts(state)
    after = play(state, "A1A3")
    assert after.piece_count(WHITE) == state.piece_count(WHITE)
    assert after.rows()[5][0] == "w"
    assert after.rows()[6][0] == "w"


def test_a1a3a1_is_illegal() -> None:
    state = ring()
    assert "A1A3A1" not in texts(state)
    assert why(state, "A1A3A1") == "A3A1 goes straight back to the square it just left"


def test_a1a3a1_is_illegal_even_after_capturing_a2() -> None:
    state = ring(a2="b")
    assert "A1A3" in texts(state)
    assert "A1A3A1" not in texts(state)
    assert why(state, "A1A3A1") == "A3A1 goes straight back to the square it just left"


@pytest.mark.parametrize("text", ["A1A3A1A3", "A1A3A1A3A1A3A1A3A1A3"])
def test_repeating_a1a3_is_illegal(text: str) -> None:
    state = ring()
    assert text not in texts(state)
    assert why(state, text) is not None


def test_a1a3c3c1a1_is_illegal_when_all_four_are_the_movers() -> None:
    state = ring()
    assert {"A1A3C3C1", "A1C1C3A3"} <= texts(state)
    assert "A1A3C3C1A1" not in texts(state)
    assert why(state, "A1A3C3C1A1") == (
        "the jump C1A1 comes back to A1 without a capture since the piece was last there"
    )


@pytest.mark.parametrize("opponent", ["a2", "b3", "c2", "b1"])
def test_a1a3c3c1a1_is_legal_when_one_of_the_four_is_the_opponents(opponent: str) -> None:
    state = ring(**{opponent: "b"})
    assert "A1A3C3C1A1" in texts(state)
    assert why(state, "A1A3C3C1A1") is None
    after = play(state, "A1A3C3C1A1")
    assert after.rows()[7][0] == "w"  # back on A1
    assert after.piece_count(BLACK) == state.piece_count(BLACK) - 1
    assert after.since_capture == 0


def test_a_captured_piece_is_gone_for_the_rest_of_the_move() -> None:
    state = ring(b1="b")
    assert "A1C1C3A3A1" in texts(state)  # back on A1: B1 was captured on the way
    assert "A1C1C3A3A1C1" not in texts(state)
    assert why(state, "A1C1C3A3A1C1") == "no jump from A1 over B1: B1 is empty"


def test_every_valid_prefix_of_a_jump_sequence_is_its_own_move() -> None:
    state = ring(b1="b")
    assert {"A1C1", "A1C1C3", "A1C1C3A3", "A1C1C3A3A1"} <= texts(state)


def test_a_jump_needs_an_empty_landing_square() -> None:
    state = board(
        "........",
        "........",
        "........",
        "....b...",
        "...w....",
        "........",
        "........",
        "wbw.....",
    )
    assert "A1C1" not in texts(state)
    assert why(state, "A1C1") == "no jump from A1 to C1: C1 is occupied"


def test_a_jump_over_an_empty_square_names_it() -> None:
    state = board(
        "........",
        "........",
        "........",
        "....b...",
        ".w.w....",
        "........",
        "........",
        "........",
    )
    assert why(state, "B4D4") == "no jump from B4 over C4: C4 is empty"
    assert why(state, "B4B6") == "no jump from B4 over B5: B5 is empty"


def test_no_legal_move_leaves_the_board_unchanged() -> None:
    for text in texts(ring()):
        assert play(ring(), text).rows() != ring().rows()


# -- the Court --------------------------------------------------------------------------------

LONE = (
    "........",
    "........",
    ".....b..",  # F6: black's Court piece
    ".b......",  # B5: black, captured on the way back in
    "w.......",  # A4
    ".ww.....",  # B3, and C3: white's only Court piece
    "........",
    "........",
)


def lone() -> KingsCourtState:
    return board(*LONE)


def test_the_last_court_piece_cannot_slide_out() -> None:
    state = lone()
    assert {"C3C4", "C3D3"} <= texts(state)
    assert "C3C2" not in texts(state)
    assert why(state, "C3C2") == "the move leaves white with no piece in the Court"


def test_the_last_court_piece_may_leave_mid_jump_and_come_back() -> None:
    state = lone()
    moves = texts(state)
    assert "C3A3A5C5" in moves
    assert not {"C3A3", "C3A3A5"} & moves  # they end outside the Court
    assert why(state, "C3A3") == "the move leaves white with no piece in the Court"
    after = play(state, "C3A3A5C5")
    assert after.court_count(WHITE) == 1
    assert after.piece_count(BLACK) == 1


def test_with_two_court_pieces_one_may_leave() -> None:
    state = board(*LONE[:4], "w..w....", *LONE[5:])  # D4 too
    assert {"C3C2", "C3A3"} <= texts(state)


def test_capturing_the_last_court_piece_wins_at_once() -> None:
    state = board(
        "b.......",
        "........",
        "........",
        "........",
        "..wb....",
        "........",
        "........",
        "........",
    )
    after = play(state, "C4E4")
    outcome = after.outcome()
    assert outcome is not None
    assert outcome.result is Result.WIN
    assert outcome.winner == WHITE
    assert outcome.reason == "black has no piece in the Court"
    assert after.legal_moves() == []
    assert after.why_illegal(GAME.parse_move("A8A7")) == "the game is over"


# -- no legal move, the no-capture limit, and the order of the end checks ---------------------

# Black's only piece, D4, is walled in once white plays E3E4: four white neighbours, and white
# pieces on the four squares beyond them, so no slide and no jump.
CAGE = (
    "........",
    "........",
    "...w....",
    "...w....",
    ".wwb.w..",
    "...ww...",
    "...w....",
    "........",
)


def test_a_player_with_no_legal_move_loses() -> None:
    before = board(*CAGE)
    assert texts(before)
    assert before.outcome() is None
    after = play(before, "E3E4")
    assert after.legal_moves() == []
    outcome = after.outcome()
    assert outcome is not None
    assert outcome.result is Result.WIN
    assert outcome.winner == WHITE
    assert outcome.reason == "black has no legal move"
    assert after.why_illegal(GAME.parse_move("D4E4")) == "the game is over"


BOXED_IN = (
    "........",
    "........",
    "........",
    "........",
    "..b.....",
    ".bwb....",
    "..b.....",
    "........",
)
"""White's only piece could jump (C3C5 and three more) but not slide: before move 5, when jumps
begin, it has no move."""


def test_regression_a_jump_before_move_five_is_not_a_legal_move_for_the_end_check() -> None:
    state = board(*BOXED_IN, ply=2)
    assert state.legal_moves() == []
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner == BLACK
    assert outcome.reason == "white has no legal move"
    assert why(state, "C3C5") == "the game is over"


def test_the_no_capture_limit_ends_before_no_legal_move_is_judged() -> None:
    state = board(*CAGE, ply=60, since_capture=50)
    outcome = play(state, "E3E4").outcome()
    assert outcome is not None
    assert outcome.result is Result.BOTH_FORFEIT
    assert outcome.reason == "51 moves without a capture"


def test_court_loss_is_judged_before_no_legal_move() -> None:
    state = board(
        "........",
        "........",
        "........",
        "........",
        "..wb....",
        "........",
        "........",
        "........",
    )
    outcome = play(state, "C4E4").outcome()  # black has no piece at all: no move either
    assert outcome is not None
    assert outcome.reason == "black has no piece in the Court"


def test_court_loss_is_judged_before_the_no_capture_limit() -> None:
    # Play cannot reach this (a capture resets the count), so it is built from data.
    state = board(
        "........",
        "........",
        "....b...",
        "........",
        "........",
        "........",
        "........",
        "w.......",
        ply=60,
        since_capture=51,
    )
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.reason == "white has no piece in the Court"


# A white capture (C4E4 over D4) and plenty of quiet slides; both keep a Court piece.
QUIET = (
    "b.......",
    "........",
    "....b...",
    "........",
    "..wb....",
    "...w....",
    "........",
    "........",
)


def test_the_fiftieth_quiet_move_does_not_end_the_game() -> None:
    after = play(board(*QUIET, ply=60, since_capture=49), "C4C5")
    assert after.since_capture == 50
    assert after.outcome() is None


def test_the_fifty_first_quiet_move_is_a_double_forfeit() -> None:
    after = play(board(*QUIET, ply=60, since_capture=50), "C4C5")
    outcome = after.outcome()
    assert outcome is not None
    assert outcome.result is Result.BOTH_FORFEIT
    assert outcome.winner is None
    assert outcome.reason == "51 moves without a capture"
    assert [outcome.score(s) for s in (WHITE, BLACK)] == [0.0, 0.0]
    assert after.legal_moves() == []
    assert after.why_illegal(GAME.parse_move("A8A7")) == "the game is over"


def test_a_capture_on_the_fifty_first_move_resets_the_count() -> None:
    after = play(board(*QUIET, ply=60, since_capture=50), "C4E4")
    assert after.since_capture == 0
    assert after.outcome() is None


def test_fifty_one_quiet_moves_from_the_start_forfeit_at_fifty_one() -> None:
    rng = random.Random(3)
    state = start()
    for number in range(1, 52):
        assert state.outcome() is None, number
        slides = [m for m in state.legal_moves() if len(m) == 2 and abs(m[0] - m[1]) in (1, 8)]
        state = state.play(rng.choice(slides))
        assert state.since_capture == number
        if number == 50:
            assert state.outcome() is None
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.reason == "51 moves without a capture"


def test_a_small_no_capture_limit_counts_from_the_start() -> None:
    state = play(GAME.new_game(no_capture_limit=3), "B4C4", "G4F4", "G3G4")
    assert state.outcome() is None
    outcome = play(state, "G6F6").outcome()
    assert outcome is not None
    assert outcome.reason == "4 moves without a capture"


# -- messages ---------------------------------------------------------------------------------


def test_moving_the_opponents_piece_or_an_empty_square_is_refused() -> None:
    assert why(start(), "B3C3") == "B3 is not your piece"
    assert why(start(), "C4C5") == "C4 is empty"


def test_slide_messages() -> None:
    state = play(start(), "B4C4", "G4F4")
    assert why(state, "A1A2") == "A2 is occupied"
    assert why(state, "C4D4E4") == "a slide goes one square only: C4D4 cannot go on"
    reason = why(state, "A1B2")
    assert reason is not None
    assert reason.startswith("A1 to B2 is neither a slide")


def test_a_move_must_name_two_squares_of_the_board() -> None:
    assert start().why_illegal((0,)) == "a move names at least two squares of the board"
    assert start().why_illegal((0, 64)) == "a move names at least two squares of the board"


def test_a_slide_cannot_follow_a_jump() -> None:
    state = ring()
    assert why(state, "A1A3B3") == "A3B3 is not a jump (two squares in a straight line)"


# -- notation ---------------------------------------------------------------------------------


def test_notation_is_case_insensitive_and_ignores_surrounding_space() -> None:
    assert GAME.parse_move("B4C4") == (25, 26)
    assert GAME.parse_move("  b4c4\n") == (25, 26)
    assert GAME.parse_move("a1A3c3") == (0, 16, 18)
    assert GAME.format_move((0, 16, 18)) == "A1A3C3"
    assert GAME.format_move(GAME.parse_move("h8h6")) == "H8H6"


@pytest.mark.parametrize(
    "text", ["", "B4", "B4C", "B4-C4", "B4 C4", "I1A1", "A9A8", "A0A1", "4BC4", "b4c4!"]
)
def test_text_outside_the_notation_is_invalid_and_quoted(text: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        GAME.parse_move(text)
    assert repr(text) in str(caught.value)


def test_non_text_is_invalid() -> None:
    with pytest.raises(InvalidMoveError):
        GAME.parse_move(42)  # type: ignore[arg-type]


def test_max_move_text_bounds_the_longest_move_and_refuses_longer_text() -> None:
    # 16 squares per stretch between captures, 24 captures at most: 25 * 16 squares of 2 chars.
    assert MAX_MOVE_TEXT == 800
    with pytest.raises(InvalidMoveError, match="longer than any"):
        GAME.apply_text(ring(), "A1A3" * 201)


def test_long_quoted_text_is_cut_short() -> None:
    with pytest.raises(InvalidMoveError) as caught:
        GAME.parse_move("x" * 1000)
    assert len(str(caught.value)) < 200


# -- data form --------------------------------------------------------------------------------


def test_data_round_trips_through_msgpack() -> None:
    for state in (start(), play(start(), "B4C4"), ring(b1="b"), board(*QUIET, since_capture=9)):
        data = msgpack.unpackb(msgpack.packb(state.to_data()))
        assert GAME.state_from_data(data) == state


def test_data_form_is_plain() -> None:
    assert play(start(), "D2D3").to_data() == {
        "board": [
            "bwbwbwbw",
            "wbwbwbwb",
            "bw....bw",
            "wb....wb",
            "bw....bw",
            "wb.w..wb",
            "bwb.bwbw",
            "wbwbwbwb",
        ],
        "ply": 1,
        "since_capture": 1,
        "first_direction": "up",
        "no_capture_limit": 50,
    }


def good_data() -> dict[str, Any]:
    return board(*QUIET).to_data()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("ply"), "lacks 'ply'"),
        (lambda d: d.update(colour="w"), "unknown key 'colour'"),
        (lambda d: d.update(board="w" * 64), "list of 8 row strings"),
        (lambda d: d["board"].pop(), "list of 8 row strings"),
        (lambda d: d["board"].__setitem__(0, "b......"), "row 8 must be a string of 8"),
        (lambda d: d["board"].__setitem__(7, "x......."), "square A1 holds 'x'"),
        (lambda d: d.update(ply=-1), "'ply' must be at least 0"),
        (lambda d: d.update(ply=True), "'ply' must be an integer"),
        (lambda d: d.update(since_capture="3"), "'since_capture' must be an integer"),
        (lambda d: d.update(no_capture_limit=0), "'no_capture_limit' must be at least 1"),
        (lambda d: d.update(since_capture=11), "cannot exceed the moves played"),
        (lambda d: d.update(ply=60, since_capture=52), "past the game's end at 51"),
        (lambda d: d.update(first_direction="up"), "'first_direction' is given exactly"),
        (lambda d: d.update(ply=1, first_direction=None), "'first_direction' is given exactly"),
        (lambda d: d.update(first_direction="north"), "must be one of up, down"),
        (lambda d: d.update(board=["w" * 8] * 4 + ["b" * 8] * 4), "white has 32 pieces"),
        (
            lambda d: d.update(board=["b......."] + ["........"] * 7),
            "black just moved but has no piece in the Court",
        ),
    ],
)
def test_bad_data_is_refused_with_a_sentence(change: Any, message: str) -> None:
    data = good_data()
    change(data)
    with pytest.raises(StateDataError, match=message):
        GAME.state_from_data(data)


def test_data_that_is_not_a_map_is_refused() -> None:
    with pytest.raises(StateDataError, match="must be a map"):
        GAME.state_from_data(["bwbwbwbw"])


# -- render and counts ------------------------------------------------------------------------


def test_render_shows_coordinates_the_court_the_turn_and_the_counters() -> None:
    picture = play(start(), "B4C4").render()
    lines = picture.splitlines()
    assert lines[0].split() == list("ABCDEFGH")
    assert lines[9].split() == list("ABCDEFGH")
    assert lines[1].split() == ["8", *"bwbwbwbw", "8"]
    assert lines[5].split() == ["4", "b", ".", "w", "+", "+", "+", "b", "w", "4"]
    assert "black to move (move 2)" in picture
    assert "white 24 pieces (1 in the Court), black 24 pieces (0 in the Court)" in picture
    assert "1 move since the last capture" in picture


def test_render_says_how_the_game_ended() -> None:
    after = play(board(*QUIET, ply=60, since_capture=50), "C4C5")
    assert "game over after 61 moves: both forfeit (51 moves without a capture)" in after.render()


def test_piece_and_court_counts() -> None:
    state = ring(b1="b")
    assert (state.piece_count(WHITE), state.court_count(WHITE)) == (5, 1)
    assert (state.piece_count(BLACK), state.court_count(BLACK)) == (2, 1)


def test_play_returns_a_new_state_and_leaves_the_old_one() -> None:
    state = start()
    after = state.play(GAME.parse_move("B4C4"))
    assert after is not state
    assert state == start()
    assert after != state
    with pytest.raises(AttributeError):
        state.white = 0  # type: ignore[misc]


# -- properties against the naive reading -----------------------------------------------------

property_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def positions(draw: st.DrawFn) -> KingsCourtState:
    """Random boards, sparse or crowded, at any phase; adjusted to be a reachable-looking state."""
    empty_weight = draw(st.integers(1, 6))
    cell = st.sampled_from("w" * 3 + "b" * 3 + "." * empty_weight)
    cells = draw(st.lists(cell, min_size=64, max_size=64))
    for colour in "wb":
        while cells.count(colour) > 23:  # room for the Court piece added below
            cells[cells.index(colour)] = "."
    ply = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 10, 11]))
    just_moved = "bw"[ply % 2]
    court = [8 * r + c for r in range(2, 6) for c in range(2, 6)]
    if ply >= 2 and not any(cells[sq] == just_moved for sq in court):
        cells[draw(st.sampled_from(court))] = just_moved
    rows = ["".join(cells[8 * r : 8 * r + 8]) for r in reversed(range(8))]
    first = draw(st.sampled_from(["up", "down", "left", "right"])) if ply == 1 else None
    return board(*rows, ply=ply, first_direction=first)


@property_settings
@given(state=positions())
def test_legal_moves_match_the_naive_reading(state: KingsCourtState) -> None:
    moves = state.legal_moves()
    assert len(moves) == len(set(moves))
    assert texts(state) == reference_moves(state)
    assert (state.outcome() is None) == bool(moves)


@property_settings
@given(state=positions(), seed=st.integers(0, 2**32 - 1))
def test_why_illegal_agrees_with_legal_moves(state: KingsCourtState, seed: int) -> None:
    rng = random.Random(seed)
    legal = set(state.legal_moves())
    candidates = set(legal)
    for move in list(legal):  # extensions and shortenings of real moves are the hard cases
        candidates.add(move[:-1])
        candidates.add((*move, rng.randrange(64)))
        candidates.add((*move, *move[-2:-1]))
    for _ in range(60):
        candidates.add(tuple(rng.randrange(64) for _ in range(rng.randint(2, 5))))
    for move in candidates:
        assert (state.why_illegal(move) is None) == (move in legal), GAME.format_move(move)


@property_settings
@given(state=positions())
def test_every_prefix_of_a_legal_jump_is_legal_unless_it_leaves_the_court(
    state: KingsCourtState,
) -> None:
    legal = set(state.legal_moves())
    for move in legal:
        for end in range(2, len(move)):
            prefix = move[:end]
            reason = state.why_illegal(prefix)
            assert prefix in legal or (reason is not None and "no piece in the Court" in reason)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_match_the_naive_reading_and_fit_the_text_cap(seed: int) -> None:
    rng = random.Random(seed)
    state = start()
    while state.outcome() is None:
        moves = state.legal_moves()
        assert texts(state) == reference_moves(state)
        assert all(len(GAME.format_move(m)) <= GAME.max_move_text for m in moves)
        state = state.play(rng.choice(moves))
    assert state.legal_moves() == []


def test_notation_refuses_bad_text_every_time_and_reads_long_routes() -> None:
    game = GAME
    for _ in range(2):
        assert game.parse_move(" b4c4 ") == game.parse_move("B4C4")
        with pytest.raises(ValueError, match="'b4c9' is not a King's Court move"):
            game.parse_move("b4c9")
    long_route = "A1A3C3C1A1A3C3C1A1"
    assert game.format_move(game.parse_move(long_route)) == long_route
