"""Watch Your Back!: every rule, example and ruling of docs/games/watch-your-back.md, on boards
written as the original referee draws them.

Boards are 8 rows, row 0 first: `O` white, `@` black, `-` empty, `X` corner, `#` a square removed
by a shrink. `ply` counts placements and moving-phase moves together, so `moved(k)` is the ply
after `k` moving-phase moves.
"""

from __future__ import annotations

import random
import re

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games import (
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    Result,
    StateDataError,
    get_game,
)
from arbiter.games.watch_your_back import (
    BLACK,
    GAME,
    NO_CAPTURE_LIMIT,
    PASS,
    PLACEMENTS,
    SQUARES,
    WHITE,
    Move,
    WatchYourBackState,
)

EMPTY_BOARD = ["X------X", *["--------"] * 6, "X------X"]

# White's two pieces on the left edge, hemmed in: no slide, and every jump lands on a piece.
WHITE_HEMMED_IN = """
    X------X
    @-------
    @-------
    O@@-----
    O@@-----
    @-------
    @-------
    X------X
"""


def board(rows: str | list[str], ply: int = 0) -> WatchYourBackState:
    return WatchYourBackState.from_rows(rows, ply)


def moved(k: int) -> int:
    """The ply once `k` moves of the moving phase have been played."""
    return PLACEMENTS + k


def after(state: WatchYourBackState, *texts: str) -> WatchYourBackState:
    for text in texts:
        state = GAME.apply_text(state, text)[1]
    return state


def moves_from(state: WatchYourBackState, square: tuple[int, int]) -> set[Move]:
    return {m for m in state.legal_moves() if m is not PASS and m[0] == square}


def swap_colours(rows: str) -> str:
    return rows.replace("O", "w").replace("@", "O").replace("w", "@")


# -- identity and start ---------------------------------------------------------------------------


def test_game_is_registered_with_white_first() -> None:
    game = get_game("watch-your-back")
    assert game is GAME
    assert (game.title, game.seats) == ("Watch Your Back!", ("white", "black"))
    start = game.new_game()
    assert (start.turn, start.ply, start.phase) == (WHITE, 0, "placing")


def test_start_is_an_empty_board_with_four_corners() -> None:
    start = GAME.new_game()
    assert start.rows() == EMPTY_BOARD
    assert start == board(EMPTY_BOARD)
    assert start.piece_count(WHITE) == start.piece_count(BLACK) == 0


# -- notation -------------------------------------------------------------------------------------


def test_notation_examples() -> None:
    assert GAME.parse_move("3,4") == (3, 4)
    assert GAME.parse_move("3,4-3,5") == ((3, 4), (3, 5))
    assert GAME.parse_move("3,4-3,6") == ((3, 4), (3, 6))
    assert GAME.parse_move("pass") is PASS


def test_notation_ignores_case_and_surrounding_space() -> None:
    assert GAME.parse_move(" PASS ") is PASS
    assert GAME.parse_move("Pass") is PASS
    assert GAME.parse_move("\t0,7-1,7\n") == ((0, 7), (1, 7))


def test_every_move_round_trips_through_its_canonical_text() -> None:
    moves: list[Move] = [PASS, *SQUARES, *((a, b) for a in SQUARES for b in SQUARES)]
    for move in moves:
        assert GAME.parse_move(GAME.format_move(move)) == move
    assert max(len(GAME.format_move(m)) for m in moves) == GAME.max_move_text == 7


@pytest.mark.parametrize(
    "text",
    ["", "3", "8,0", "3,8", "3,4-", "3,4-3", "3;4", "d5", "3, 4", "3,4 - 3,5", "passs", "(3,4)"],
)
def test_text_outside_the_notation_is_refused_and_quoted(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=re.escape(repr(text))):
        GAME.parse_move(text)


def test_format_refuses_what_is_not_a_move() -> None:
    with pytest.raises(InvalidMoveError, match="not a Watch Your Back! move"):
        GAME.format_move((8, 8))  # type: ignore[arg-type]


# -- placing phase --------------------------------------------------------------------------------


def test_white_places_in_the_top_six_rows_except_the_corners() -> None:
    moves = GAME.new_game().legal_moves()
    assert set(moves) == {(x, y) for x, y in SQUARES if y <= 5} - {(0, 0), (7, 0)}
    assert len(moves) == 46


def test_black_places_in_the_bottom_six_rows_except_the_corners() -> None:
    state = after(GAME.new_game(), "3,3")
    assert set(state.legal_moves()) == {(x, y) for x, y in SQUARES if y >= 2} - {
        (0, 7),
        (7, 7),
        (3, 3),
    }


def test_placement_refusals_say_why() -> None:
    state = after(GAME.new_game(), "3,3")
    assert state.why_illegal((0, 7)) == "0,7 is a corner"
    assert state.why_illegal((4, 1)) == "4,1 is outside black's starting zone (rows 2-7)"
    assert state.why_illegal((3, 3)) == "3,3 is occupied"
    assert "nobody passes" in (state.why_illegal(PASS) or "")
    assert "placed, not moved" in (state.why_illegal(((3, 3), (3, 4))) or "")
    assert GAME.new_game().why_illegal((2, 6)) == (
        "2,6 is outside white's starting zone (rows 0-5)"
    )
    with pytest.raises(IllegalMoveError, match="illegal move 0,7: 0,7 is a corner"):
        after(state, "0,7")


def test_placing_eliminates_an_enemy_flanked_along_a_row() -> None:
    state = board(
        """
        X------X
        --------
        --------
        -@O-----
        --------
        --------
        --------
        X------X
        """,
        ply=5,
    )
    assert after(state, "3,3").rows()[3] == "-@-@----"


def test_placing_eliminates_an_enemy_flanked_along_a_column() -> None:
    state = board(
        """
        X------X
        --------
        --------
        --@-----
        --O-----
        --------
        --------
        X------X
        """,
        ply=3,
    )
    assert after(state, "2,5").rows()[3:6] == ["--@-----", "--------", "--@-----"]


def test_placing_eliminates_an_enemy_against_a_corner() -> None:
    state = board(
        """
        X------X
        --------
        --------
        --------
        --------
        --------
        @-------
        X------X
        """,
        ply=4,
    )
    assert after(state, "0,5").rows()[5:] == ["O-------", "--------", "X------X"]


def test_one_placement_can_eliminate_several_enemies() -> None:
    state = board(
        """
        X------X
        --------
        --------
        -O@-@O--
        ---@----
        ---O----
        --------
        X------X
        """,
        ply=6,
    )
    placed = after(state, "3,3")
    assert placed.rows()[3:6] == ["-O-O-O--", "--------", "---O----"]
    assert placed.piece_count(BLACK) == 0


def test_bw3w_the_placed_piece_strikes_before_it_is_checked() -> None:
    """Seed: Black placed on 3 in `BW3W` survives: it eliminates the W on its left first."""
    state = board(
        """
        X------X
        --------
        --------
        @O-O----
        --------
        --------
        --------
        X------X
        """,
        ply=3,
    )
    placed = after(state, "2,3")
    assert placed.rows()[3] == "@-@O----"
    assert (placed.piece_count(WHITE), placed.piece_count(BLACK)) == (1, 2)


def test_a_piece_placed_between_two_enemies_is_eliminated() -> None:
    state = board(
        """
        X------X
        --------
        --------
        O-O-----
        --------
        --------
        --------
        X------X
        """,
        ply=3,
    )
    placed = after(state, "1,3")
    assert placed.rows()[3] == "O-O-----"
    assert (placed.piece_count(BLACK), placed.ply) == (0, 4)


def test_a_piece_placed_between_an_enemy_and_a_corner_is_eliminated() -> None:
    state = board(
        """
        X------X
        --------
        --------
        --------
        --------
        O-------
        --------
        X------X
        """,
        ply=3,
    )
    assert after(state, "0,6").rows()[5:] == ["O-------", "--------", "X------X"]


def test_no_elimination_diagonally_or_on_two_sides_that_are_not_opposite() -> None:
    state = board(
        """
        X------X
        --------
        --OO----
        --O-----
        ----O---
        --------
        --------
        X------X
        """,
        ply=7,
    )
    assert after(state, "3,3").rows()[3] == "--O@----"


def test_no_elimination_between_friendly_pieces() -> None:
    state = board(
        """
        X------X
        --------
        --------
        --------
        -@-@----
        --------
        --------
        X------X
        """,
        ply=5,
    )
    assert after(state, "2,4").rows()[4] == "-@@@----"


def test_placing_phase_ends_after_24_placements_whatever_was_eliminated() -> None:
    state = board(
        """
        X------X
        -O--O---
        --------
        ---O----
        --------
        --------
        -@---@--
        X------X
        """,
        ply=23,
    )
    assert state.phase == "placing"
    moving = after(state, "3,6")
    assert (moving.phase, moving.turn, moving.moves_in_moving_phase) == ("moving", WHITE, 0)
    assert all(move[0] in moving.pieces(WHITE) for move in moving.legal_moves())  # type: ignore[index]
    assert "placing phase is over" in (moving.why_illegal((3, 4)) or "")


def test_random_placing_phases_end_on_ply_24_despite_eliminations() -> None:
    eliminations = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = GAME.new_game()
        for _ in range(PLACEMENTS):
            assert state.phase == "placing"
            state = state.play(rng.choice(state.legal_moves()))
        assert state.phase == "moving"
        eliminations += 24 - state.piece_count(WHITE) - state.piece_count(BLACK)
    assert eliminations > 0


def test_fewer_than_two_pieces_is_normal_while_placing() -> None:
    state = board(
        """
        X------X
        --------
        --------
        --------
        --------
        ---@@@--
        --------
        X------X
        """,
        ply=6,
    )
    assert state.piece_count(WHITE) == 0
    assert state.outcome() is None
    assert len(state.legal_moves()) == 46 - 3


def test_the_end_is_checked_as_the_moving_phase_begins() -> None:
    rows = """
        X------X
        ---O----
        --------
        --------
        --------
        --------
        -@------
        X------X
    """
    state = after(board(rows, ply=23), "5,5")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner == BLACK
    assert outcome.reason == "white has fewer than 2 pieces"
    assert state.legal_moves() == []


def test_both_under_two_as_the_moving_phase_begins_is_a_tie() -> None:
    rows = """
        X------X
        ---O----
        --------
        --------
        --------
        --------
        --------
        X------X
    """
    state = after(board(rows, ply=23), "5,5")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.result is Result.DRAW


# -- moving phase: slides and jumps ---------------------------------------------------------------

OPEN_MIDDLE = """
    X------X
    --------
    --------
    ---O----
    --------
    --------
    ------O-
    X@----@X
"""


def test_a_piece_slides_one_square_along_a_row_or_a_column() -> None:
    state = board(OPEN_MIDDLE, ply=moved(0))
    assert moves_from(state, (3, 3)) == {
        ((3, 3), (3, 2)),
        ((3, 3), (2, 3)),
        ((3, 3), (4, 3)),
        ((3, 3), (3, 4)),
    }


def test_7wwb3_the_middle_piece_jumps_over_friend_or_foe() -> None:
    """Seed: in `7WWB3` the middle W may jump over the W into 7 or over the B into 3."""
    state = board(
        """
        X------X
        --------
        --------
        -OO@----
        --------
        --------
        ------@-
        X------X
        """,
        ply=moved(0),
    )
    assert moves_from(state, (2, 3)) == {
        ((2, 3), (2, 2)),
        ((2, 3), (0, 3)),
        ((2, 3), (4, 3)),
        ((2, 3), (2, 4)),
    }


def test_moving_refusals_say_why() -> None:
    state = board(
        """
        X------X
        --------
        --------
        -OO@O---
        --------
        --------
        ------@-
        X------X
        """,
        ply=moved(0),
    )
    why = state.why_illegal
    assert why(((3, 3), (3, 2))) == "3,3 is not your piece"
    assert why(((5, 5), (5, 4))) == "5,5 is empty"
    assert why(((0, 0), (1, 0))) == "0,0 is a corner, not your piece"
    assert why(((2, 3), (3, 4))) == "a piece moves one square or jumps two, along a row or a column"
    assert why(((4, 3), (7, 3))) == "a piece moves one square or jumps two, along a row or a column"
    assert why(((2, 3), (2, 3))) == "a piece moves one square or jumps two, along a row or a column"
    assert why(((1, 3), (2, 3))) == "2,3 is occupied"
    assert why(((2, 3), (4, 3))) == "4,3 is occupied"
    assert why(((4, 3), (4, 5))) == "no jump from 4,3 over 4,4: 4,4 is empty"
    assert "placing phase is over" in (why((5, 5)) or "")
    assert "can still move" in (why(PASS) or "")
    with pytest.raises(IllegalMoveError, match="illegal move 3,3-3,2: 3,3 is not your piece"):
        after(state, "3,3-3,2")


def test_no_piece_enters_a_corner() -> None:
    state = board(
        """
        X------X
        O-------
        O-------
        --------
        --------
        --------
        ------@-
        X-----@X
        """,
        ply=moved(0),
    )
    assert state.why_illegal(((0, 1), (0, 0))) == "0,0 is a corner"
    assert ((0, 1), (0, 0)) not in state.legal_moves()
    assert moves_from(state, (0, 2)) == {((0, 2), (1, 2)), ((0, 2), (0, 3))}


# -- moving phase: eliminations -------------------------------------------------------------------


def test_a_moved_piece_eliminates_an_enemy_against_a_friend_or_a_corner() -> None:
    state = board(
        """
        X@-----X
        --O-----
        --O-----
        O@------
        --------
        --------
        ------@-
        X-----@X
        """,
        ply=moved(4),
    )
    against_friend = after(state, "2,2-2,3")
    assert against_friend.rows()[3] == "O-O-----"
    against_corner = after(state, "2,1-2,0")
    assert against_corner.rows()[0] == "X-O----X"


def test_a_jump_eliminates_where_it_lands() -> None:
    state = board(
        """
        X------X
        --------
        --------
        ----@O--
        ---O----
        ---O----
        ------@-
        X-----@X
        """,
        ply=moved(0),
    )
    assert after(state, "3,5-3,3").rows()[3:6] == ["---O-O--", "---O----", "--------"]


def test_the_arriving_piece_strikes_first_so_survives_the_sandwich_it_breaks() -> None:
    state = board(
        """
        X------X
        --------
        --O-----
        O@-@O---
        --------
        --------
        ------@-
        X-----@X
        """,
        ply=moved(0),
    )
    assert after(state, "2,2-2,3").rows()[2:4] == ["--------", "O-O-O---"]


def test_the_arriving_piece_is_checked_after_its_strikes() -> None:
    """It breaks the row sandwich but still sits in a column one: it goes too."""
    state = board(
        """
        X------X
        --------
        --@-----
        -O-@O---
        --@-----
        --------
        ------@-
        X-----@X
        """,
        ply=moved(0),
    )
    moved_in = after(state, "1,3-2,3")
    assert moved_in.rows()[2:5] == ["--@-----", "----O---", "--@-----"]


def test_a_piece_moving_into_a_sandwich_is_eliminated() -> None:
    state = board(
        """
        X------X
        --------
        --O-----
        -@-@----
        --------
        --------
        ------O-
        X-----@X
        """,
        ply=moved(0),
    )
    moved_in = after(state, "2,2-2,3")
    assert moved_in.rows()[2:4] == ["--------", "-@-@----"]
    assert moved_in.piece_count(WHITE) == 1


def test_only_the_arriving_piece_eliminates() -> None:
    """A sandwich already on the board stays: elimination looks only around the arrival."""
    state = board(
        """
        X------X
        --------
        --------
        -@O@----
        --------
        --------
        ------O-
        X-----@X
        """,
        ply=moved(1),
    )
    assert after(state, "6,7-5,7").rows()[3] == "-@O@----"


# -- forfeited moves ------------------------------------------------------------------------------


def test_a_player_who_cannot_move_must_pass() -> None:
    state = board(WHITE_HEMMED_IN, ply=moved(10))
    assert state.legal_moves() == [PASS]
    assert state.why_illegal(PASS) is None
    assert state.why_illegal(((0, 3), (0, 2))) == "0,2 is occupied"
    passed = after(state, "pass")
    assert (passed.rows(), passed.ply, passed.turn) == (state.rows(), state.ply + 1, BLACK)
    assert passed.legal_moves() != [PASS]


def test_a_pass_is_refused_while_any_move_exists() -> None:
    state = board(WHITE_HEMMED_IN, ply=moved(11))
    assert state.why_illegal(PASS) == "black can still move (e.g. 0,1-1,1), so may not pass"
    assert PASS not in state.legal_moves()


def test_a_pass_counts_toward_the_shrink() -> None:
    """Black's forced pass is moving-phase move 128: the board shrinks and takes both its pieces."""
    state = board(swap_colours(WHITE_HEMMED_IN), ply=moved(127))
    assert state.legal_moves() == [PASS]
    shrunk = after(state, "pass")
    assert (shrunk.shrinks, shrunk.piece_count(BLACK), shrunk.piece_count(WHITE)) == (1, 0, 4)
    outcome = shrunk.outcome()
    assert outcome is not None
    assert outcome.winner == WHITE


# -- shrinking ------------------------------------------------------------------------------------

BEFORE_FIRST_SHRINK = """
    X--@---X
    -OO@----
    -O--O---
    -O------
    ----@-O-
    ------@-
    --------
    X------X
"""


def test_first_shrink_comes_after_moving_phase_move_128() -> None:
    state = board(BEFORE_FIRST_SHRINK, ply=moved(126))
    move_127 = after(state, "4,2-5,2")
    assert (move_127.shrinks, move_127.rows()[0]) == (0, "X--@---X")
    move_128 = after(move_127, "4,4-4,5")
    assert move_128.shrinks == 1
    assert move_128.rows() == [
        "########",  # 3,0 was on a removed square
        "#X-@--X#",  # 1,1 became a corner under O; the TL corner and @ on 3,1 flank O on 2,1
        "#O---O-#",  # O on 1,2 is backed by a friend on 1,3, so the TL corner spares it
        "#O-----#",
        "#-----O#",
        "#---@--#",  # @ on 6,5 was between the BR corner and O on 6,4
        "#X----X#",
        "########",
    ]
    assert (move_128.turn, move_128.outcome()) == (WHITE, None)


BEFORE_SECOND_SHRINK = """
    ########
    #X----X#
    #--@O--#
    #-O--O@#
    #-@--@-#
    #--O@--#
    #X----X#
    ########
"""


def test_second_shrink_comes_after_move_192_and_corners_strike_tl_bl_br_tr() -> None:
    """Each pair below is eliminated one way in the seed's corner order, the other way if not."""
    state = board(BEFORE_SECOND_SHRINK, ply=moved(191))
    shrunk = after(state, "6,3-6,4")
    assert shrunk.shrinks == 2
    assert shrunk.rows() == [
        "########",
        "########",
        "##X-OX##",  # TL took @ on 3,2 first, so TR finds nothing behind O on 4,2
        "##---O##",  # TL took O on 2,3; BR took @ on 5,4, so TR spares O on 5,3
        "##@---##",  # BL then finds nothing behind @ on 2,4
        "##X-@X##",  # BL took O on 3,5, so BR spares @ on 4,5
        "########",
        "########",
    ]
    assert (shrunk.piece_count(WHITE), shrunk.piece_count(BLACK), shrunk.outcome()) == (2, 2, None)


def test_no_move_enters_or_leaves_a_removed_square() -> None:
    state = board(BEFORE_SECOND_SHRINK, ply=moved(131))
    assert state.why_illegal(((6, 3), (7, 3))) == "7,3 is no longer on the board"
    assert state.why_illegal(((0, 3), (1, 3))) == "0,3 is no longer on the board"
    assert state.why_illegal(((2, 4), (1, 4))) is None
    assert state.why_illegal(((2, 4), (0, 4))) == "0,4 is no longer on the board"


def test_a_game_that_ends_on_move_128_does_not_shrink() -> None:
    state = board(
        """
        X------X
        --------
        --@-----
        O--O@--@
        --------
        --------
        --------
        X------X
        """,
        ply=moved(127),
    )
    ended = after(state, "2,2-2,3")
    outcome = ended.outcome()
    assert outcome is not None
    assert outcome.winner == BLACK
    assert ended.shrinks == 0
    assert ended.rows()[3] == "O-@-@--@"
    assert GAME.state_from_data(ended.to_data()) == ended


def test_a_shrink_can_end_the_game_in_a_tie() -> None:
    state = board(
        """
        X------X
        --------
        --------
        O------@
        O------@
        --------
        --------
        X------X
        """,
        ply=moved(127),
    )
    shrunk = after(state, "7,4-7,5")
    outcome = shrunk.outcome()
    assert outcome is not None
    assert outcome.result is Result.DRAW
    assert outcome.reason == "both players have fewer than 2 pieces"
    assert shrunk.legal_moves() == []


def test_a_full_last_board_where_nobody_can_move_is_a_dead_position_and_a_tie() -> None:
    """The seed sets no move limit, so without this ruling both players would pass forever."""
    full = board(
        """
        ########
        ########
        ##XOOX##
        ##OOO@##
        ##O@@@##
        ##X@@X##
        ########
        ########
        """,
        ply=moved(300),
    )
    outcome = full.outcome()
    assert outcome is not None
    assert outcome.result is Result.DRAW
    assert outcome.reason == "neither player can ever move again"
    assert full.legal_moves() == []


def test_only_one_player_stuck_on_the_last_board_passes_and_the_game_goes_on() -> None:
    state = board(
        """
        ########
        ########
        ##XOOX##
        ##OOO@##
        ##O@@-##
        ##X@@X##
        ########
        ########
        """,
        ply=moved(300),
    )
    assert state.outcome() is None
    assert state.legal_moves() == [PASS], "white is stuck"
    passed = after(state, "pass")
    assert passed.outcome() is None
    assert sorted(passed.legal_moves()) == [((3, 4), (5, 4)), ((4, 4), (5, 4)), ((5, 3), (5, 4))]


# -- the end --------------------------------------------------------------------------------------


def test_one_move_can_leave_both_players_under_two_a_tie() -> None:
    """White's jump takes @ on 1,1, then dies between the corner and @ on 2,0: 1 piece each."""
    state = board(
        """
        X-@O---X
        -@------
        -O------
        --------
        --------
        --------
        --------
        X------X
        """,
        ply=moved(6),
    )
    tie = after(state, "3,0-1,0")
    assert tie.rows()[:3] == ["X-@----X", "--------", "-O------"]
    outcome = tie.outcome()
    assert outcome is not None
    assert outcome.result is Result.DRAW


def test_a_finished_game_offers_and_accepts_no_move() -> None:
    state = board(
        """
        X------X
        --------
        --------
        O@O-----
        --------
        --------
        --------
        X------X
        """,
        ply=moved(3),
    )
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner == WHITE
    assert state.legal_moves() == []
    assert state.why_illegal(((0, 3), (0, 4))) == "the game is over"
    assert state.why_illegal(PASS) == "the game is over"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        after(state, "0,3-0,4")


# -- data, pictures, counters ---------------------------------------------------------------------


def test_data_is_the_board_rows_the_ply_and_the_no_capture_count() -> None:
    state = board(BEFORE_SECOND_SHRINK, ply=moved(191))
    data = state.to_data()
    assert data == {
        "board": [line.strip() for line in BEFORE_SECOND_SHRINK.split()],
        "ply": 215,
        "since_capture": 0,
        "no_capture_limit": NO_CAPTURE_LIMIT,
    }
    assert GAME.state_from_data(msgpack.unpackb(msgpack.packb(data))) == state
    counting = WatchYourBackState.from_rows(LAST_BOARD, moved(230), 9, no_capture_limit=20)
    assert GAME.state_from_data(msgpack.unpackb(msgpack.packb(counting.to_data()))) == counting


def test_data_from_before_the_endless_games_ruling_still_reads() -> None:
    """Data without the two counters (as written before the ruling) gets 0 and the default."""
    rows = [line.strip() for line in BEFORE_SECOND_SHRINK.split()]
    state = GAME.state_from_data({"board": rows, "ply": moved(191)})
    assert (state.since_capture, state.no_capture_limit) == (0, NO_CAPTURE_LIMIT)


@pytest.mark.parametrize(
    ("data", "complaint"),
    [
        ([], "must be a map"),
        ({"board": EMPTY_BOARD}, "lacks 'ply'"),
        ({"board": EMPTY_BOARD, "ply": 0, "turn": 0}, "unknown key 'turn'"),
        ({"board": EMPTY_BOARD, "ply": True}, "'ply' must be an integer"),
        ({"board": EMPTY_BOARD, "ply": -1}, "'ply' must be at least 0"),
        ({"board": "X------X", "ply": 0}, "list of 8 row strings"),
        ({"board": EMPTY_BOARD[:7], "ply": 0}, "needs 8 rows, not 7"),
        ({"board": [*EMPTY_BOARD[:7], 7], "ply": 0}, "row 7 must be a string"),
        ({"board": [*EMPTY_BOARD[:7], "X-----X"], "ply": 0}, "row 7 needs 8 cells"),
        ({"board": ["X--w---X", *EMPTY_BOARD[1:]], "ply": 0}, "square 3,0 holds 'w'"),
        ({"board": ["-------X", *EMPTY_BOARD[1:]], "ply": 0}, "no corner 'X'"),
        ({"board": ["X-------", *EMPTY_BOARD[1:]], "ply": 0}, "7,0 should be a corner"),
        ({"board": ["X--X---X", *EMPTY_BOARD[1:]], "ply": 0}, "3,0 holds 'X' but is an ordinary"),
        ({"board": ["X--O---X", *EMPTY_BOARD[1:]], "ply": 0}, "has placed only 0"),
        ({"board": [*EMPTY_BOARD[:6], "O-------", "X------X"], "ply": 1}, "outside its starting"),
        ({"board": ["XOOOOOOX", "OOOOOOOO", *EMPTY_BOARD[2:]], "ply": 30}, "14 pieces"),
        ({"board": EMPTY_BOARD, "ply": moved(129)}, "shrunk 1 times, but this board shows 0"),
        ({"board": EMPTY_BOARD, "ply": 0, "since_capture": "1"}, "'since_capture' must be an int"),
        ({"board": EMPTY_BOARD, "ply": 0, "no_capture_limit": 0}, "limit' must be at least 1"),
        ({"board": EMPTY_BOARD, "ply": 0, "no_capture_limit": 1001}, "must be at most 1000"),
        ({"board": EMPTY_BOARD, "ply": moved(100), "since_capture": 1}, "can be at most 0"),
    ],
)
def test_bad_data_is_refused_with_a_reason(data: object, complaint: str) -> None:
    with pytest.raises(StateDataError, match=complaint):
        GAME.state_from_data(data)


def test_removed_squares_must_match_the_corners() -> None:
    rows = [line.strip() for line in BEFORE_SECOND_SHRINK.split()]
    rows[0] = "-#######"
    with pytest.raises(StateDataError, match=r"0,0 should be removed '#' after 1 shrinks"):
        GAME.state_from_data({"board": rows, "ply": moved(150)})


def test_render_shows_coordinates_turn_and_counters() -> None:
    picture = GAME.new_game().render().splitlines()
    assert picture[0] == "    0 1 2 3 4 5 6 7"
    assert picture[1] == " 0  X - - - - - - X"
    assert picture[8] == " 7  X - - - - - - X"
    assert picture[9].startswith("placing phase: white (O) to place, 0 of 24 placed")
    moving = board(BEFORE_FIRST_SHRINK, ply=moved(126)).render()
    assert "moving phase: white (O) to move, 126 moves played, board shrinks after move 128" in (
        moving
    )
    assert "pieces: white (O) 6, black (@) 4" in moving
    shrunk = board(BEFORE_SECOND_SHRINK, ply=moved(150)).render().splitlines()
    assert shrunk[1:3] == [" 0  # # # # # # # #", " 1  # X - - - - X #"]
    assert "board shrinks after move 192" in shrunk[9]
    over = board(["X-----OX", *EMPTY_BOARD[1:6], "@-------", "X------X"], ply=moved(0))
    assert over.render().splitlines()[9] == (
        "game over: a tie, both players have fewer than 2 pieces; pieces: white (O) 1, black (@) 1"
    )


def test_piece_count_and_pieces() -> None:
    state = board(WHITE_HEMMED_IN, ply=moved(0))
    assert (state.piece_count(WHITE), state.piece_count(BLACK)) == (2, 8)
    assert state.pieces(WHITE) == [(0, 3), (0, 4)]


def test_repr_rebuilds_the_state() -> None:
    state = board(BEFORE_FIRST_SHRINK, ply=moved(126))
    assert eval(repr(state), {"WatchYourBackState": WatchYourBackState}) == state


# -- properties -----------------------------------------------------------------------------------

EVERY_MOVE: list[Move] = [PASS, *SQUARES, *((a, b) for a in SQUARES for b in SQUARES)]


def random_position(seed: int, plies: int) -> WatchYourBackState:
    rng = random.Random(seed)
    state = GAME.new_game()
    for _ in range(plies):
        if state.outcome() is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 260))
def test_why_illegal_agrees_with_legal_moves_on_every_move(seed: int, plies: int) -> None:
    state = random_position(seed, plies)
    legal = set(state.legal_moves())
    for move in EVERY_MOVE:
        assert (state.why_illegal(move) is None) == (move in legal), GAME.format_move(move)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_move_eliminates_only_enemies_and_the_arriving_piece(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_game()
    while state.outcome() is None:
        move = rng.choice(state.legal_moves())
        after_move = state.play(move)
        if after_move.shrinks == state.shrinks:
            left, arrived = departure_and_arrival(state, move)
            mover, enemy = state.turn, 1 - state.turn
            kept = set(state.pieces(mover)) - left
            assert kept <= set(after_move.pieces(mover)) <= kept | arrived
            assert set(after_move.pieces(enemy)) <= set(state.pieces(enemy))
        state = after_move


def departure_and_arrival(state: WatchYourBackState, move: Move) -> tuple[set[Move], set[Move]]:
    if move is PASS:
        return set(), set()
    if state.phase == "placing":
        return set(), {move}
    return {move[0]}, {move[1]}  # type: ignore[index]


# -- endless games ------------------------------------------------------------------------------

LAST_BOARD = """
    ########
    ########
    ##X-@X##
    ##O---##
    ##-O-@##
    ##X-@X##
    ########
    ########
"""
"""After the last shrink: white can stab @ on 4,5 against the corner (3,4-3,5), or move quietly."""


def last_board(since_capture: int, limit: int = NO_CAPTURE_LIMIT) -> WatchYourBackState:
    return WatchYourBackState.from_rows(LAST_BOARD, moved(300), since_capture, limit)


def test_the_no_capture_limit_is_an_option_of_64_by_default() -> None:
    assert NO_CAPTURE_LIMIT == 64
    assert GAME.new_game().no_capture_limit == 64
    assert GAME.new_game(no_capture_limit=10).no_capture_limit == 10
    for bad in (0, 1001, "10"):
        with pytest.raises(OptionError, match="no_capture_limit"):
            GAME.new_game(no_capture_limit=bad)


def test_moves_before_the_last_shrink_are_not_counted() -> None:
    state = after(board(BEFORE_FIRST_SHRINK, ply=moved(120)), "1,3-1,4")
    assert state.since_capture == 0
    assert after(board(BEFORE_SECOND_SHRINK, ply=moved(151)), "6,3-6,4").since_capture == 0


def test_counting_starts_at_the_last_shrink() -> None:
    """Move 192 eliminates nothing itself, and the shrink after it sets the count at 0."""
    shrunk = after(board(BEFORE_SECOND_SHRINK, ply=moved(191)), "6,3-6,4")
    assert (shrunk.shrinks, shrunk.since_capture) == (2, 0)
    assert after(shrunk, shrunk.game.format_move(shrunk.legal_moves()[0])).since_capture == 1


def test_a_move_that_eliminates_nothing_counts_one_a_pass_included() -> None:
    quiet = after(last_board(5), "2,3-2,4")
    assert (quiet.since_capture, quiet.outcome()) == (6, None)
    stuck = WatchYourBackState.from_rows(
        """
        ########
        ########
        ##XOOX##
        ##OOO@##
        ##O@@-##
        ##X@@X##
        ########
        ########
        """,
        moved(250),
        5,
    )
    assert stuck.legal_moves() == [PASS]
    assert after(stuck, "pass").since_capture == 6


def test_an_elimination_sets_the_count_back_to_0() -> None:
    stab = after(last_board(40), "3,4-3,5")
    assert stab.piece_count(BLACK) == 2
    assert (stab.since_capture, stab.outcome()) == (0, None)


def test_the_limit_th_move_without_an_elimination_ends_the_game_in_a_tie() -> None:
    state = after(last_board(62), "2,3-2,4")
    assert state.outcome() is None
    over = after(state, "4,2-3,2")
    outcome = over.outcome()
    assert outcome is not None
    assert outcome.result is Result.DRAW
    assert outcome.reason == "64 moves in a row after the last shrink eliminated no piece"
    assert over.legal_moves() == []
    assert "game over: a tie, 64 moves in a row" in over.render()
    short = after(last_board(2, limit=3), "2,3-2,4").outcome()
    assert short is not None
    assert short.result is Result.DRAW


def test_the_count_is_part_of_the_position() -> None:
    assert last_board(3).key() != last_board(4).key()
    assert "3 of 64 moves without an elimination" in last_board(3).render()
