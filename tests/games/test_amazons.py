"""Game of the Amazons: every rule, every ruling, the notation and the data form.

Positions are drawn as 10 row strings, top row (rank 10) first: `W` and `B` amazons, `x` arrows,
`.` empty. A naive grid walker written here, independent of the module's bitboards, is the
reference the fast generator must agree with.
"""

from __future__ import annotations

import random
import re

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games import IllegalMoveError, InvalidMoveError, Result, StateDataError, get_game
from arbiter.games.amazons import GAME, START_ROWS, AmazonsState

FILES = "abcdefghij"
QUEEN_DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr]


def position(*rows: str, turn: str = "white") -> AmazonsState:
    return AmazonsState.from_rows(rows, turn)


def move(text: str) -> tuple[int, int, int]:
    return GAME.parse_move(text)


def move_texts(state: AmazonsState) -> list[str]:
    return [GAME.format_move(m) for m in state.legal_moves()]


def why(state: AmazonsState, text: str) -> str | None:
    return state.why_illegal(move(text))


def swap_colours(rows: tuple[str, ...]) -> tuple[str, ...]:
    """The same position seen from the other side: flipped top to bottom, W and B exchanged."""
    return tuple(row.translate(str.maketrans("WB", "BW")) for row in reversed(rows))


# White's a1 is walled in so that its one move is a1-b1, and from b1 the only square its arrow
# can reach is a1, the square it just left. White's three other amazons are boxed in corners.
ONLY_VACATED_ARROW = (
    "Wx.B....xW",
    "xx......xx",
    "..........",
    "....B.....",
    "..........",
    "......B...",
    "..........",
    "...B......",
    "xxx.....xx",
    "W.x.....xW",
)

# Every white amazon is walled in by arrows: white, to move, cannot complete a move.
WHITE_BOXED = (
    "...B..B...",
    "..........",
    "..........",
    "B........B",
    "..........",
    "xx......xx",
    "Wx......xW",
    "xx......xx",
    "..xxxxxx..",
    "..xWxxWx..",
)


# -- a reference generator: the rules read straight off the seed, square by square ---------------


def grid_of(state: AmazonsState) -> dict[tuple[int, int], str]:
    rows = state.to_data()["board"]
    return {(f, 9 - r): rows[r][f] for r in range(10) for f in range(10)}


def name(cell: tuple[int, int]) -> str:
    return f"{FILES[cell[0]]}{cell[1] + 1}"


def queen_targets(
    grid: dict[tuple[int, int], str], start: tuple[int, int]
) -> list[tuple[int, int]]:
    targets = []
    for df, dr in QUEEN_DIRECTIONS:
        cell = (start[0] + df, start[1] + dr)
        while grid.get(cell) == ".":
            targets.append(cell)
            cell = (cell[0] + df, cell[1] + dr)
    return targets


def reference_moves(state: AmazonsState) -> set[str]:
    grid = grid_of(state)
    mine = "WB"[state.turn]
    moves = set()
    for src in [cell for cell, char in grid.items() if char == mine]:
        for dst in queen_targets(grid, src):
            after = {**grid, src: ".", dst: mine}
            for arrow in queen_targets(after, dst):
                moves.add(f"{name(src)}-{name(dst)}/{name(arrow)}")
    return moves


def random_position(seed: int, arrow_share: float) -> AmazonsState:
    rng = random.Random(seed)
    rows = [["x" if rng.random() < arrow_share else "." for _ in range(10)] for _ in range(10)]
    for index, cell in enumerate(rng.sample(range(100), 8)):
        rows[cell // 10][cell % 10] = "WB"[index % 2]
    return position(*("".join(row) for row in rows), turn=rng.choice(["white", "black"]))


# -- identity, the start, who moves first (ruling) -----------------------------------------------


def test_game_is_registered_with_its_names_and_seats() -> None:
    assert get_game("amazons") is GAME
    assert GAME.title == "Game of the Amazons"
    assert GAME.seats == ("white", "black")
    assert GAME.options == ()


def test_start_is_the_standard_position_with_white_to_move() -> None:
    start = GAME.new_game()
    assert start.to_data() == {"board": list(START_ROWS), "turn": "white"}
    grid = grid_of(start)
    assert sorted(name(c) for c, char in grid.items() if char == "W") == ["a4", "d1", "g1", "j4"]
    assert sorted(name(c) for c, char in grid.items() if char == "B") == ["a7", "d10", "g10", "j7"]
    assert start.turn == 0
    assert start.ply == 0
    assert start.outcome() is None


def test_start_has_exactly_2176_moves() -> None:
    moves = move_texts(GAME.new_game())
    assert len(moves) == 2176 == len(set(moves))
    assert set(moves) == reference_moves(GAME.new_game())


def test_two_plies_from_the_start_reach_the_known_4307152() -> None:
    start = GAME.new_game()
    assert sum(len(start.play(m).legal_moves()) for m in start.legal_moves()) == 4_307_152


def test_seed_tile_numbering_reads_like_our_rows() -> None:
    # The seed numbers tiles 0..99 row by row from the top left, the order of our rows.
    rows = GAME.new_game().to_data()["board"]
    tile = {index: rows[index // 10][index % 10] for index in range(100)}
    assert [tile[i] for i in (3, 6, 30, 39)] == ["B"] * 4  # d10 g10 a7 j7
    assert [tile[i] for i in (60, 69, 93, 96)] == ["W"] * 4  # a4 j4 d1 g1


def test_moves_group_as_the_seeds_available_plays() -> None:
    # The seed's available_plays[warrior][move] = [shoots]: every warrior that can move, each
    # landing square with its arrows, and the warrior's own square always among the arrows.
    plays: dict[str, dict[str, list[str]]] = {}
    for text in move_texts(GAME.new_game()):
        src, rest = text.split("-")
        dst, arrow = rest.split("/")
        plays.setdefault(src, {}).setdefault(dst, []).append(arrow)
    assert sorted(plays) == ["a4", "d1", "g1", "j4"]
    assert all(src in shoots for src, moves in plays.items() for shoots in moves.values())
    arrows_from_d7 = "d1 d2 d3 d4 d5 d6 d8 d9 b7 c7 e7 f7 g7 h7 i7 c6 b5 e8 f9 c8 b9 a10"
    arrows_from_d7 += " e6 f5 g4 h3 i2 j1"
    assert sorted(plays["d1"]["d7"]) == sorted(arrows_from_d7.split())


# -- the queen move -----------------------------------------------------------------------------


def test_amazon_moves_like_a_queen_to_empty_squares() -> None:
    rows = list(START_ROWS)
    rows[6] = "W..x.....W"  # an arrow on d4
    state = position(*rows)
    landings = {t[3:].split("/")[0] for t in move_texts(state) if t.startswith("d1-")}
    assert landings == {"d2", "d3", "e1", "f1", "c1", "b1", "a1"} | {
        "e2", "f3", "g4", "h5", "i6", "c2", "b3"
    }  # fmt: skip


def test_amazon_may_not_pass_through_or_land_on_an_amazon() -> None:
    start = GAME.new_game()
    assert why(start, "d1-h1/h2") == (
        "the amazon's path from d1 to h1 is blocked at g1: it holds a white amazon"
    )
    assert why(start, "a4-a8/a9") == (
        "the amazon's path from a4 to a8 is blocked at a7: it holds a black amazon"
    )
    assert why(start, "d1-g1/g2") == "the amazon cannot land on g1: it holds a white amazon"


def test_amazon_must_move_along_a_straight_line() -> None:
    start = GAME.new_game()
    assert why(start, "d1-e3/e4") == "the amazon cannot fly from d1 to e3: not a straight line"
    assert why(start, "d1-d1/d2") == "the amazon must leave d1, not stay on it"


def test_only_your_own_amazon_may_move() -> None:
    start = GAME.new_game()
    assert why(start, "e5-e6/e7") == "e5 is not your amazon: it is empty"
    assert why(start, "a7-a6/a5") == "a7 is not your amazon: it holds a black amazon"
    after = start.play(move("d1-d7/g7"))
    assert why(after, "d7-d6/d5") == "d7 is not your amazon: it holds a white amazon"
    after = after.play(move("a7-a6/a5"))
    assert why(after, "a5-b5/c5") == "a5 is not your amazon: it holds an arrow"


def test_boxed_in_amazon_cannot_move_while_the_others_can() -> None:
    rows = list(WHITE_BOXED)
    rows[9] = "..xWxxW..."  # g1 gets out through h1
    state = position(*rows)
    assert state.outcome() is None
    assert {text[:2] for text in move_texts(state)} == {"g1"}
    assert why(state, "d1-d2/d3") == "the amazon cannot land on d2: it holds an arrow"
    assert why(state, "a4-a6/a7") == (
        "the amazon's path from a4 to a6 is blocked at a5: it holds an arrow"
    )


# -- the arrow ----------------------------------------------------------------------------------


def test_arrow_flies_like_a_queen_from_the_landing_square() -> None:
    start = GAME.new_game()
    assert why(start, "d1-d7/g7") is None
    assert why(start, "d1-d7/e9") == "the arrow cannot fly from d7 to e9: not a straight line"
    assert why(start, "d1-d7/d7") == "the arrow must leave d7, not stay on it"
    assert why(start, "d1-d7/d10") == "the arrow cannot land on d10: it holds a black amazon"
    assert why(start, "d1-d7/j7") == "the arrow cannot land on j7: it holds a black amazon"


def test_arrow_path_blocked_by_an_arrow_or_an_amazon() -> None:
    state = GAME.new_game().play(move("d1-d7/g7")).play(move("a7-b7/b8"))
    assert why(state, "g1-f2/b6") is None
    assert why(state, "d7-e7/j7") == (
        "the arrow's path from e7 to j7 is blocked at g7: it holds an arrow"
    )
    assert why(state, "g1-g2/g8") == (
        "the arrow's path from g2 to g8 is blocked at g7: it holds an arrow"
    )
    assert why(state, "a4-a6/c8") == (
        "the arrow's path from a6 to c8 is blocked at b7: it holds a black amazon"
    )


def test_arrow_may_land_on_or_pass_over_the_square_just_left() -> None:
    start = GAME.new_game()
    assert why(start, "a4-b4/a4") is None
    assert why(start, "d1-e1/a1") is None  # over d1, which the amazon has left
    assert {"a4-b4/a4", "d1-e1/a1"} <= set(move_texts(start))


def test_only_arrow_square_can_be_the_vacated_one() -> None:
    state = position(*ONLY_VACATED_ARROW)
    assert move_texts(state) == ["a1-b1/a1"]
    assert why(state, "a1-b1/c1") == "the arrow cannot land on c1: it holds an arrow"
    with pytest.raises(IllegalMoveError, match=r"^illegal move a1-b1/b2: the arrow cannot land"):
        state.apply(move("a1-b1/b2"))
    assert state.apply(move("a1-b1/a1")).to_data()["board"][9] == "xWx.....xW"


def test_arrows_burn_for_the_rest_of_the_game() -> None:
    state = GAME.new_game().play(move("d1-d7/g7"))
    for text in ["a7-a8/a9", "d7-d8/d9", "a8-b8/c8"]:
        assert state.to_data()["board"][3][6] == "x"
        state = state.apply(move(text))
    assert state.to_data()["board"][3][6] == "x"
    assert why(state, "g1-g9/g8") == (
        "the amazon's path from g1 to g9 is blocked at g7: it holds an arrow"
    )


def test_a_move_shoots_one_arrow_and_passes_the_turn() -> None:
    start = GAME.new_game()
    after = start.play(move("d1-d7/g7"))
    assert start == GAME.new_game()  # play() leaves the old state alone
    assert after.turn == 1
    assert after.ply == 1
    assert after.to_data()["board"][3] == "B..W..x..B"
    assert after.to_data()["board"][9] == "......W..."


# -- the end (ruling: a player who cannot complete a move loses) ---------------------------------


def test_player_who_cannot_move_loses() -> None:
    state = position(*WHITE_BOXED)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.result is Result.WIN
    assert outcome.winner == 1
    assert outcome.reason == "white has no legal move"
    assert state.is_over()
    assert state.legal_moves() == []
    assert why(state, "g1-h1/i1") == "the game is over"
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.apply(move("a4-a5/a6"))


def test_only_the_player_to_move_is_judged() -> None:
    assert position(*WHITE_BOXED, turn="black").outcome() is None
    assert position(*swap_colours(WHITE_BOXED), turn="white").outcome() is None
    outcome = position(*swap_colours(WHITE_BOXED), turn="black").outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (
        0,
        "black has no legal move",
    )


def test_game_ends_when_the_next_player_is_left_without_a_move() -> None:
    state = position(*ONLY_VACATED_ARROW).play(move("a1-b1/a1"))
    assert state.outcome() is None  # black moves on; white's last amazon is now walled in
    state = state.apply(move("d3-d4/d5"))
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (
        1,
        "white has no legal move",
    )
    assert state.legal_moves() == []


# -- random_move: OpenSpiel's hierarchical draw ---------------------------------------------------


def test_random_move_draws_the_amazon_first() -> None:
    # a1 has one move and j10 dozens: drawing the amazon first picks a1's move about half the
    # time, where a draw uniform over moves would almost never pick it.
    rows = list(ONLY_VACATED_ARROW)
    rows[0], rows[1] = "Wx.B.....W", "xx........"
    state = position(*rows)
    assert len(state.legal_moves()) > 100
    rng = random.Random(5)
    draws = [state.random_move(rng) for _ in range(2000)]
    assert all(state.why_illegal(m) is None for m in draws)
    assert 850 < draws.count(move("a1-b1/a1")) < 1150


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_move_is_always_legal_until_the_end(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_game()
    while not state.is_over():
        chosen = state.random_move(rng)
        assert chosen in set(state.legal_moves())
        state = state.play(chosen)
    assert state.ply <= 92  # one arrow per move, on the 92 squares no amazon starts on


# -- the fast generator against the reference -----------------------------------------------------

ARROW_SHARES = st.sampled_from([0.0, 0.2, 0.4, 0.6, 0.8])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), arrow_share=ARROW_SHARES)
def test_legal_moves_match_the_reference_on_random_positions(seed: int, arrow_share: float) -> None:
    state = random_position(seed, arrow_share)
    moves = move_texts(state)
    assert len(moves) == len(set(moves))
    assert set(moves) == reference_moves(state)
    assert (state.outcome() is None) == bool(moves)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), arrow_share=ARROW_SHARES)
def test_why_illegal_agrees_with_the_reference(seed: int, arrow_share: float) -> None:
    state = random_position(seed, arrow_share)
    legal = reference_moves(state)
    rng = random.Random(seed)
    tiles = "".join(state.to_data()["board"])  # tile i is file i % 10, rank 10 - i // 10
    mine = [name((i % 10, 9 - i // 10)) for i, char in enumerate(tiles) if char == "WB"[state.turn]]
    anywhere = [name((f, r)) for f in range(10) for r in range(10)]
    for _ in range(200):
        src = rng.choice(mine) if rng.random() < 0.8 else rng.choice(anywhere)
        arrow = src if rng.random() < 0.2 else rng.choice(anywhere)
        text = f"{src}-{rng.choice(anywhere)}/{arrow}"
        reason = why(state, text)
        assert (reason is None) == (text in legal), (text, reason)
        assert reason is None or reason.strip()


# -- notation ------------------------------------------------------------------------------------


def test_notation_is_case_insensitive_and_ignores_surrounding_space() -> None:
    assert move(" D1-D7/G7\n") == move("d1-d7/g7") == move("d1-D7/g7")
    assert GAME.format_move(move(" D1-D7/G7\n")) == "d1-d7/g7"
    assert GAME.format_move(move("A10-J1/J10")) == "a10-j1/j10"


def test_longest_move_text_is_a_legal_move() -> None:
    rows = list(START_ROWS)
    rows[0], rows[6] = "W..B..B...", ".........W"  # the a4 amazon moved to a10
    state = position(*rows)
    _, after = GAME.apply_text(state, "a10-b10/c10")
    assert after.to_data()["board"][0] == ".WxB..B..."
    assert GAME.max_move_text == len("a10-b10/c10") == 11
    assert max(len(text) for text in move_texts(state)) == 11


@pytest.mark.parametrize(
    "text",
    [
        "",
        "d1-d7",
        "d1d7g7",
        "d1-d7-g7",
        "d1-d7/g7/h8",
        "k1-k2/k3",
        "d0-d1/d2",
        "d11-d1/d2",
        "d01-d7/g7",
        "d1 - d7/g7",
        "1d-7d/7g",
        "d1\u2013d7/g7",  # an en dash
    ],
)
def test_text_outside_the_notation_is_refused_quoting_it(text: str) -> None:
    with pytest.raises(InvalidMoveError) as error:
        GAME.parse_move(text)
    assert repr(text) in str(error.value)


def test_every_legal_move_round_trips_through_its_text() -> None:
    for chosen in GAME.new_game().legal_moves():
        assert GAME.parse_move(GAME.format_move(chosen)) == chosen


def test_notation_help_examples_are_legal_from_the_start() -> None:
    examples = re.findall(r"\b[a-jA-J]\d+-[a-jA-J]\d+/[a-jA-J]\d+\b", GAME.notation_help)
    assert examples == ["d1-d7/g7", "a4-b4/a4", "J4-J6/E6"]
    for text in examples:
        assert GAME.apply_text(GAME.new_game(), text)[1].ply == 1


# -- data and text forms --------------------------------------------------------------------------


def test_data_round_trips_through_msgpack() -> None:
    start = GAME.new_game()
    states = [start, start.play(move("d1-d7/g7")), position(*WHITE_BOXED, turn="black")]
    for state in states:
        data = msgpack.unpackb(msgpack.packb(state.to_data()))
        assert GAME.state_from_data(data) == state
    assert states[1].to_data() == {
        "board": [*START_ROWS[:3], "B..W..x..B", *START_ROWS[4:9], "......W..."],
        "turn": "black",
    }


def test_ply_counts_the_arrows() -> None:
    assert position(*WHITE_BOXED).ply == "".join(WHITE_BOXED).count("x") == 20


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "amazons state data must be a map, not list"),
        ({"board": list(START_ROWS)}, r"needs keys 'board' and 'turn' \(missing 'turn'\)"),
        (
            {"board": list(START_ROWS), "turn": "white", "ply": 0},
            r"needs keys 'board' and 'turn' \(unexpected 'ply'\)",
        ),
        ({"board": "...", "turn": "white"}, "board must be a list of 10 rows, not '...'"),
        ({"board": list(START_ROWS[1:]), "turn": "white"}, "must have 10 rows, not 9"),
        (
            {"board": [START_ROWS[0][1:], *START_ROWS[1:]], "turn": "white"},
            "amazons row 10 must be a string of 10 cells, not '..B..B...'",
        ),
        ({"board": [1, *START_ROWS[1:]], "turn": "white"}, "amazons row 10 must be a string"),
        (
            {"board": ["Q" + START_ROWS[0][1:], *START_ROWS[1:]], "turn": "white"},
            "amazons cell a10 holds 'Q'",
        ),
        (
            {"board": [*START_ROWS[:9], "...w..W..."], "turn": "white"},
            "amazons cell d1 holds 'w'",
        ),
        (
            {"board": [*START_ROWS[:9], "W..W..W..."], "turn": "white"},
            r"white must have 4 amazons \(W\), not 5",
        ),
        (
            {"board": ["...x..B...", *START_ROWS[1:]], "turn": "white"},
            r"black must have 4 amazons \(B\), not 3",
        ),
        ({"board": list(START_ROWS), "turn": "red"}, "turn must be 'white' or 'black', not 'red'"),
        ({"board": list(START_ROWS), "turn": 0}, "turn must be 'white' or 'black', not 0"),
    ],
)
def test_bad_data_is_refused_with_a_reason(data: object, message: str) -> None:
    with pytest.raises(StateDataError, match=message):
        GAME.state_from_data(data)


def test_render_has_coordinates_and_says_whose_turn() -> None:
    lines = GAME.new_game().play(move("d1-d7/g7")).render().splitlines()
    assert lines[0] == lines[-2] == "    a b c d e f g h i j"
    assert lines[1] == "10  . . . B . . B . . .  10"
    assert lines[4] == " 7  B . . W . . x . . B  7"
    assert lines[10] == " 1  . . . . . . W . . .  1"
    assert lines[-1] == "black to move (ply 1, 91 empty squares)"
    finished = position(*WHITE_BOXED).render().splitlines()[-1]
    assert finished == "black wins: white has no legal move (ply 20, 72 empty squares)"


def test_repr_rebuilds_the_state() -> None:
    state = position(*ONLY_VACATED_ARROW, turn="black")
    assert eval(repr(state), {"AmazonsState": AmazonsState}) == state


def test_regression_turn_field_took_the_base_property_as_its_default() -> None:
    # A dataclass field named `turn` picked up State's abstract `turn` property as its default,
    # so a state built without a mover silently had a property object for a seat.
    with pytest.raises(TypeError):
        AmazonsState(0, 0, 0)  # type: ignore[call-arg]
