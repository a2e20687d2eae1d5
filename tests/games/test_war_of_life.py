"""War of Life: every rule and ruling of docs/games/war-of-life.md, on boards written as text.

Boards are 8 row strings, rank 8 first ('b' blue, 'r' red, '.' empty), the game's own data form.
"""

from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games import (
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    Outcome,
    StateDataError,
    get_game,
)
from arbiter.games.war_of_life import (
    BLUE,
    GAME,
    MAX_PLY,
    NEIGHBOURS,
    RED,
    Move,
    WarOfLifeState,
    crank,
    start_position,
)

EMPTY = ("........",) * 8
# A blue 2x2 block in the a1 corner: a still life, so blue lives on while red's piece moves.
BLUE_BLOCK = (
    ".......r",
    "........",
    "........",
    "........",
    "........",
    "........",
    "bb......",
    "bb......",
)
# Both colours in still-life blocks: they live on until a piece of theirs moves.
BLOCKS = ("......rr", "......rr", *EMPTY[2:6], "bb......", "bb......")


def board(*rows: str, ply: int = 0) -> WarOfLifeState:
    return WarOfLifeState.from_rows(rows, ply)


def ended(state: WarOfLifeState) -> Outcome:
    outcome = state.outcome()
    assert outcome is not None, "the game should be over"
    assert state.legal_moves() == []
    return outcome


def sq(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def move(text: str) -> Move:
    return GAME.parse_move(text)


def after_crank(*rows: str) -> list[str]:
    """The rows after one crank of `rows`, no move made."""
    state = board(*rows)
    blue, red = crank(state.blue, state.red)
    return WarOfLifeState(blue, red).rows()


def cell_after_crank(state: WarOfLifeState, name: str) -> str:
    blue, red = crank(state.blue, state.red)
    return WarOfLifeState(blue, red).symbol_at(sq(name))


def around_d4(neighbours: str, centre: str = ".") -> WarOfLifeState:
    """d4 holding `centre`, with its neighbours c5, d5, e5, e4, e3, d3, c3, c4 given in order.

    The other cells stay empty, so only d4's fate is asserted by the tests that use this.
    """
    names = ("c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4")
    cells = dict(zip(names, neighbours, strict=False))
    cells["d4"] = centre
    rows = [
        "".join(cells.get(f"{file}{rank}", ".") for file in "abcdefgh") for rank in range(8, 0, -1)
    ]
    return WarOfLifeState.from_rows(rows)


# -- Identity and options ------------------------------------------------------------------------


def test_game_is_registered_with_its_name_title_and_seats() -> None:
    assert get_game("war-of-life") is GAME
    assert GAME.title == "War of Life"
    assert GAME.seats == ("blue", "red")
    assert [option.name for option in GAME.options] == ["seed", "swap"]


def test_initial_state_refuses_a_missing_seed() -> None:
    with pytest.raises(OptionError, match="seed"):
        GAME.new_game()


def test_server_fills_the_seed_when_unset() -> None:
    resolved = GAME.resolve_options({}, fresh_seed=lambda: 94)
    assert resolved == {"seed": 94, "swap": False}
    assert GAME.initial_state(resolved) == GAME.new_game(seed=94)


@pytest.mark.parametrize(
    "options",
    [{"seed": -1}, {"seed": True}, {"seed": 2**63}, {"seed": "7"}, {"seed": 1, "swap": 1}],
)
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(OptionError):
        GAME.new_game(**options)


# -- The random start ----------------------------------------------------------------------------


def test_same_seed_gives_the_same_start() -> None:
    assert GAME.new_game(seed=12345) == GAME.new_game(seed=12345)


def test_start_has_twelve_pieces_each_on_distinct_squares_blue_to_move() -> None:
    for seed in range(50):
        state = GAME.new_game(seed=seed)
        assert state.piece_count(BLUE) == state.piece_count(RED) == 12
        assert state.blue & state.red == 0
        assert (state.turn, state.ply, state.outcome()) == (0, 0, None)


def test_different_seeds_give_different_starts() -> None:
    assert len({start_position(seed) for seed in range(200)}) == 200


def test_seed_zero_start_is_pinned_so_replays_survive_python_upgrades() -> None:
    assert GAME.new_game(seed=0).rows() == [
        ".rbbr..b",
        "rb.r....",
        "..r.....",
        ".b.rr.b.",
        ".rrrrbb.",
        ".....b..",
        "........",
        "b...b.br",
    ]


def test_start_follows_the_documented_shuffle() -> None:
    """docs/games/war-of-life.md: partial Fisher-Yates over a1..h8 with rejection-sampled draws."""
    rng = random.Random(2024)
    squares = list(range(64))
    for i in range(24):
        n = 64 - i
        while (j := rng.getrandbits(n.bit_length())) >= n:
            pass
        squares[i], squares[i + j] = squares[i + j], squares[i]
    blue, red = start_position(2024)
    assert blue == sum(1 << s for s in squares[:12])
    assert red == sum(1 << s for s in squares[12:24])


def test_swap_gives_the_same_start_with_colours_swapped() -> None:
    for seed in (0, 1, 94, 2**40):
        plain = GAME.new_game(seed=seed)
        swapped = GAME.new_game(seed=seed, swap=True)
        assert (swapped.blue, swapped.red) == (plain.red, plain.blue)
        assert swapped.turn == BLUE


# -- Moves -----------------------------------------------------------------------------------------


def test_seed_example_piece_steps_to_any_empty_neighbour_but_not_onto_a_piece() -> None:
    # Seed: "the blue piece at (3, 8) can move to (2,7), (2,8) or (4,7) or (4,8), but not (3,7)
    # because there is a red piece there already". (x, y) is (file, rank): (3, 8) is c8.
    state = board("..b.....", "..r.....", *EMPTY[2:])
    assert {GAME.format_move(m) for m in state.legal_moves()} == {
        "c8-b7",
        "c8-b8",
        "c8-d7",
        "c8-d8",
    }
    assert state.why_illegal(move("c8-c7")) == "c7 is occupied"


def test_moves_reach_all_eight_directions_and_stop_at_the_edges() -> None:
    centre = board(*EMPTY[:4], "...b...r", *EMPTY[5:])
    assert {GAME.format_move(m) for m in centre.legal_moves()} == {
        "d4-c5",
        "d4-d5",
        "d4-e5",
        "d4-c4",
        "d4-e4",
        "d4-c3",
        "d4-d3",
        "d4-e3",
    }
    corner = board(*EMPTY[:7], "r......b", ply=1)
    assert [GAME.format_move(m) for m in corner.legal_moves()] == ["a1-b1", "a1-a2", "a1-b2"]


def test_only_the_player_to_move_moves() -> None:
    rows = ("........", "........", "........", "...r....", "...b....", *EMPTY[5:])
    assert {m.source for m in board(*rows, ply=0).legal_moves()} == {sq("d4")}
    assert {m.source for m in board(*rows, ply=1).legal_moves()} == {sq("d5")}


def test_moves_are_listed_by_source_then_target_in_a1_to_h8_order() -> None:
    state = GAME.new_game(seed=3)
    moves = state.legal_moves()
    assert moves == sorted(moves, key=lambda m: (m.source, m.target))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a1-a2", "a1 is empty"),
        ("c7-c6", "c7 is not your piece: it is red"),
        ("c8-a8", "a8 is not next to c8: a piece steps to one of its neighbours"),
        ("c8-c8", "c8 is not next to c8: a piece steps to one of its neighbours"),
        ("c8-c7", "c7 is occupied"),
        ("c8-d8", "d8 is occupied"),
    ],
)
def test_why_illegal_names_the_reason(text: str, reason: str) -> None:
    state = board("..bb....", "..r.....", *EMPTY[2:])
    assert state.why_illegal(move(text)) == reason
    with pytest.raises(IllegalMoveError, match=f"illegal move {text}: {reason}"):
        state.apply(move(text))


def test_legal_move_is_accepted_and_play_leaves_the_old_state_alone() -> None:
    state = GAME.new_game(seed=5)
    first = state.legal_moves()[0]
    assert state.why_illegal(first) is None
    after = state.apply(first)
    assert after == state.play(first)
    assert state == GAME.new_game(seed=5)
    assert (after.ply, after.turn) == (1, RED)


@settings(max_examples=40, deadline=None)
@given(
    cells=st.lists(st.sampled_from("bbbrrr.."), min_size=64, max_size=64),
    ply=st.integers(0, MAX_PLY),
)
def test_why_illegal_agrees_with_legal_moves_for_every_square_pair(
    cells: list[str], ply: int
) -> None:
    """Dense random boards, so most steps are blocked and the reasons vary."""
    state = board(*("".join(cells[i : i + 8]) for i in range(0, 64, 8)), ply=ply)
    legal = set(state.legal_moves())
    assert (state.outcome() is None) == bool(legal)
    for source in range(64):
        for target in range(64):
            candidate = Move(source, target)
            assert (state.why_illegal(candidate) is None) == (candidate in legal), candidate


# -- Conway's Crank -------------------------------------------------------------------------------


@pytest.mark.parametrize("neighbours", ["", "b", "r"])
def test_piece_with_zero_or_one_neighbour_dies_of_loneliness(neighbours: str) -> None:
    assert cell_after_crank(around_d4(neighbours, centre="b"), "d4") == "."


@pytest.mark.parametrize("neighbours", ["br", "rr", "bbr", "rrr", "b...b", "r.r.r"])
def test_piece_with_two_or_three_neighbours_survives_in_its_colour(neighbours: str) -> None:
    assert cell_after_crank(around_d4(neighbours, centre="b"), "d4") == "b"
    assert cell_after_crank(around_d4(neighbours, centre="r"), "d4") == "r"


@pytest.mark.parametrize("count", [4, 5, 6, 7, 8])
def test_piece_with_four_to_eight_neighbours_dies_of_overcrowding(count: int) -> None:
    assert cell_after_crank(around_d4("brbrbrbr"[:count], centre="r"), "d4") == "."


@pytest.mark.parametrize(
    ("neighbours", "born"),
    [
        ("bbb", "b"),  # 3 blue
        ("bbr", "b"),  # 2 blue and 1 red
        ("b.r..b", "b"),
        ("rrr", "r"),  # 3 red
        ("rrb", "r"),  # 2 red and 1 blue
        ("r...b.r", "r"),
    ],
)
def test_empty_cell_with_exactly_three_neighbours_gets_the_majority_colour(
    neighbours: str, born: str
) -> None:
    assert cell_after_crank(around_d4(neighbours), "d4") == born


@pytest.mark.parametrize("neighbours", ["", "b", "br", "bb", "rrbb", "brbrb", "bbbbbbbb"])
def test_empty_cell_without_exactly_three_neighbours_stays_empty(neighbours: str) -> None:
    assert cell_after_crank(around_d4(neighbours), "d4") == "."


def test_crank_updates_all_cells_at_once_blinker_turns() -> None:
    # A mixed blinker: the red centre survives on 2; the new ends see 2 blue and 1 red: blue.
    assert after_crank(*EMPTY[:4], "..brb...", *EMPTY[5:]) == [
        *EMPTY[:3],
        "...b....",
        "...r....",
        "...b....",
        *EMPTY[6:],
    ]


def test_block_is_a_still_life_and_keeps_its_colours() -> None:
    rows = ("........", "...br...", "...rb...", *EMPTY[3:])
    assert after_crank(*rows) == list(rows)


def test_crank_sees_the_moved_piece_on_its_new_square() -> None:
    # d4 and e4 (red) would die of loneliness; blue's step c6-c5 gives d4 a second neighbour.
    rows = (
        "........",
        "........",
        "..b.....",
        "........",
        "...rr...",
        "........",
        "bb......",
        "bb......",
    )
    after = board(*rows).play(move("c6-c5"))
    assert after.rows() == [
        "........",
        "........",
        "........",
        "...r....",  # born: c5 blue, d4 red, e4 red around it
        "...r....",
        "........",
        "bb......",
        "bb......",
    ]


def test_crank_does_not_see_the_square_the_piece_left() -> None:
    rows = (
        "........",
        "........",
        "........",
        "..b.....",
        "...rr...",
        "........",
        "bb......",
        "bb......",
    )
    assert cell_after_crank(board(*rows), "d4") == "r"  # c5 keeps d4 alive if it stays
    after = board(*rows).play(move("c5-b6"))
    assert after.symbol_at(sq("d4")) == "."
    assert after.piece_count(RED) == 0


def naive_crank(rows: list[str]) -> list[str]:
    """The seed's rules cell by cell, as a reference for the bitboard crank."""

    def at(rank: int, file: int) -> str:
        return rows[rank][file] if 0 <= rank < 8 and 0 <= file < 8 else "."

    result = []
    for rank in range(8):
        line = ""
        for file in range(8):
            around = [
                at(rank + dr, file + df)
                for dr in (-1, 0, 1)
                for df in (-1, 0, 1)
                if (dr, df) != (0, 0)
            ]
            blue, red = around.count("b"), around.count("r")
            here = rows[rank][file]
            if here != ".":
                line += here if blue + red in (2, 3) else "."
            elif blue + red == 3:
                line += "b" if blue >= 2 else "r"
            else:
                line += "."
        result.append(line)
    return result


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(st.sampled_from("br......"), min_size=64, max_size=64))
def test_bitboard_crank_matches_the_rules_cell_by_cell(cells: list[str]) -> None:
    rows = ["".join(cells[i : i + 8]) for i in range(0, 64, 8)]
    assert after_crank(*rows) == naive_crank(rows)


# -- Ends ------------------------------------------------------------------------------------------


def test_no_pieces_at_all_is_a_draw() -> None:
    after = board("b.......", *EMPTY[1:7], ".......r").play(move("a8-b7"))
    assert after.rows() == list(EMPTY)
    assert ended(after) == Outcome.draw("no pieces are left on the board")


def test_no_pieces_comes_before_the_250_move_limit() -> None:
    after = board("b.......", *EMPTY[1:7], ".......r", ply=MAX_PLY - 1).play(move("h1-g1"))
    assert after.ply == MAX_PLY
    assert ended(after).reason == "no pieces are left on the board"


def test_250th_move_ends_in_an_exhausted_draw_before_a_wipe_out_counts() -> None:
    # Red's lone piece dies after the 250th move; the limit is checked before one side empty.
    after = board(*BLUE_BLOCK, ply=MAX_PLY - 1).play(move("h8-g8"))
    assert after.piece_count(RED) == 0
    assert ended(after) == Outcome.draw("250 moves were played: an exhausted draw")


def test_one_side_empty_loses() -> None:
    after = board(*BLUE_BLOCK, ply=1).play(move("h8-g8"))
    assert ended(after) == Outcome.win(BLUE, "red has no pieces left")
    red_block = [row.replace("b", "x").replace("r", "b").replace("x", "r") for row in BLUE_BLOCK]
    after = board(*red_block, ply=0).play(move("h8-g8"))
    assert ended(after) == Outcome.win(RED, "blue has no pieces left")


def test_empty_side_to_move_loses_rather_than_stalemates() -> None:
    state = board(*BLUE_BLOCK[1:], "........", ply=1)  # red to move with no piece and no move
    assert ended(state).winner == BLUE


def test_player_to_move_with_no_move_is_a_stalemate_draw() -> None:
    # The a1 corner block (blue a1, red a2 b1 b2) is a still life; red's lone h8 piece dies.
    rows = (".......r", *EMPTY[1:6], "rr......", "br......")
    after = board(*rows, ply=1).play(move("h8-g8"))
    assert after.rows() == [*EMPTY[:6], "rr......", "br......"]
    assert after.turn == BLUE
    assert ended(after) == Outcome.draw("blue cannot move: stalemate")


@pytest.mark.parametrize("gap", ["c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", "h8"])
def test_one_empty_neighbour_in_any_direction_is_enough_to_move(gap: str) -> None:
    cells = dict.fromkeys((f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)), "r")
    cells["d4"], cells[gap] = "b", "."
    state = board(*("".join(cells[f"{f}{r}"] for f in "abcdefgh") for r in range(8, 0, -1)))
    if gap == "h8":  # not next to d4: blue is boxed in
        assert ended(state) == Outcome.draw("blue cannot move: stalemate")
    else:
        assert state.outcome() is None
        assert state.legal_moves() == [Move(sq("d4"), sq(gap))]


def test_stalemate_is_only_judged_for_the_player_to_move() -> None:
    state = board(*EMPTY[:6], "rr......", "br......", ply=1)  # blue is boxed, red can move
    assert state.outcome() is None
    assert state.legal_moves()


def test_finished_game_refuses_moves_saying_it_is_over() -> None:
    state = board(*BLUE_BLOCK[1:], "........", ply=2)
    assert state.why_illegal(move("a2-c4")) == "the game is over"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.apply(move("b3-c4"))


def test_moves_of_both_players_count_toward_250() -> None:
    after_blue = board(*BLOCKS, ply=MAX_PLY - 2).play(move("b2-c3"))
    assert (after_blue.ply, after_blue.turn, after_blue.outcome()) == (MAX_PLY - 1, RED, None)
    after_red = after_blue.play(move("g7-f6"))
    assert after_red.ply == MAX_PLY
    assert ended(after_red).reason == "250 moves were played: an exhausted draw"


def self_preservation(state: WarOfLifeState) -> Move:
    """The seed's strategy: most own pieces after the crank, ties to the first move listed."""
    me = state.turn
    return max(state.legal_moves(), key=lambda m: state.play(m).piece_count(me))


def test_a_whole_game_reaches_the_exhausted_draw_after_125_moves_each() -> None:
    state = GAME.new_game(seed=94)
    moved = [0, 0]
    while state.outcome() is None:
        moved[state.turn] += 1
        state = state.play(self_preservation(state))
    assert moved == [125, 125]
    assert state.ply == MAX_PLY
    assert ended(state).reason == "250 moves were played: an exhausted draw"


# -- Notation --------------------------------------------------------------------------------------


def test_squares_count_from_a1_along_the_ranks() -> None:
    assert move("a1-b2") == Move(0, 9)
    assert move("h8-g7") == Move(63, 54)
    assert GAME.format_move(Move(sq("c8"), sq("b7"))) == "c8-b7"


@pytest.mark.parametrize("text", ["c8-b7", "C8-B7", "c8b7", "  c8-b7\n", "\tC8b7 "])
def test_parse_is_case_insensitive_ignores_surrounding_space_and_the_dash(text: str) -> None:
    assert move(text) == Move(sq("c8"), sq("b7"))


@pytest.mark.parametrize(
    "text", ["", "c8", "c9-b7", "i1-h1", "c8--b7", "c8 b7", "c8-b7-a6", "pass", "(3,8)-(2,7)"]
)
def test_text_outside_the_notation_is_invalid_and_quoted(text: str) -> None:
    with pytest.raises(InvalidMoveError) as error:
        GAME.parse_move(text)
    assert repr(text) in str(error.value)


def test_every_move_round_trips_and_max_move_text_is_the_longest() -> None:
    every = [Move(s, t) for s in range(64) for t in range(64) if NEIGHBOURS[s] >> t & 1]
    assert all(GAME.parse_move(GAME.format_move(m)) == m for m in every)
    assert GAME.max_move_text == max(len(GAME.format_move(m)) for m in every) == 5


def test_far_step_parses_but_is_illegal() -> None:
    state = board(*BLUE_BLOCK)
    assert (
        state.why_illegal(move("a1-c3"))
        == "c3 is not next to a1: a piece steps to one of its neighbours"
    )


# -- Data and text -------------------------------------------------------------------------------


def test_data_is_the_rows_and_the_move_count_and_round_trips_through_msgpack() -> None:
    state = board(*BLUE_BLOCK, ply=17)
    assert state.to_data() == {"board": list(BLUE_BLOCK), "ply": 17}
    wire = msgpack.unpackb(msgpack.packb(state.to_data()))
    assert GAME.state_from_data(wire) == state


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "is a map"),
        ({"board": list(EMPTY)}, "keys 'board' and 'ply'"),
        ({"board": list(EMPTY), "ply": 0, "turn": 0}, "keys 'board' and 'ply'"),
        ({"board": "........" * 8, "ply": 0}, "list of 8 row strings"),
        ({"board": list(EMPTY[:7]), "ply": 0}, "list of 8 row strings"),
        ({"board": [*EMPTY[:7], "......."], "ply": 0}, "row 1 must be a string of 8 cells"),
        ({"board": [*EMPTY[:7], 0], "ply": 0}, "row 1 must be a string of 8 cells"),
        ({"board": ["...x....", *EMPTY[1:]], "ply": 0}, "cell d8 holds 'x'"),
        ({"board": ["B.......", *EMPTY[1:]], "ply": 0}, "cell a8 holds 'B'"),
        ({"board": list(EMPTY), "ply": -1}, "move count"),
        ({"board": list(EMPTY), "ply": MAX_PLY + 1}, "move count"),
        ({"board": list(EMPTY), "ply": True}, "move count"),
        ({"board": list(EMPTY), "ply": "3"}, "move count"),
    ],
)
def test_bad_data_is_refused_with_a_sentence(data: object, message: str) -> None:
    with pytest.raises(StateDataError, match=message):
        GAME.state_from_data(data)


def test_render_shows_coordinates_turn_moves_and_piece_counts() -> None:
    picture = board(*BLUE_BLOCK, ply=3).render().splitlines()
    assert picture[0] == picture[9] == "  a b c d e f g h"
    assert picture[1] == "8 . . . . . . . r 8"
    assert picture[8] == "1 b b . . . . . . 1"
    assert picture[10] == "red (r) to move; 3 of 250 moves played; blue 4, red 1 pieces"


def test_render_says_how_a_finished_game_ended() -> None:
    last = board(*BLUE_BLOCK[1:], "........", ply=2).render().splitlines()[-1]
    assert last.startswith("game over: red has no pieces left;")


def test_piece_count_counts_each_colour() -> None:
    state = board(*BLUE_BLOCK)
    assert (state.piece_count(BLUE), state.piece_count(RED)) == (4, 1)
