"""What each game's drawing marks and counts, beyond what the screen snapshots show."""

from __future__ import annotations

from arbiter.client.play.boards import Position, drawing_for
from arbiter.client.play.boards.grid import Cell, Grid, picture_lines
from arbiter.games import get_game

SEATS = ("white", "black")


def test_a_marked_cell_is_bracketed_so_the_last_move_shows_without_colour() -> None:
    grid = Grid(
        cells=((Cell("w", 0), Cell(".")),),
        columns=("A", "B"),
        rows=("1",),
        marked=frozenset({(0, 0), (0, 1)}),
    )
    lines = [line.plain for line in grid.lines(SEATS)]
    assert lines == ["   A  B ", "1 [w][.] 1", "   A  B "]
    styles = {str(span.style) for span in grid.lines(SEATS)[1].spans}
    assert "bold bright_white reverse" in styles


def test_pieces_take_their_seats_colour() -> None:
    def style(owner: int, seats: tuple[str, str]) -> str:
        grid = Grid(cells=((Cell("p", owner),),), columns=("a",), rows=("1",))
        return str(grid.lines(seats)[1].spans[0].style)

    assert style(1, SEATS) == "bold yellow"
    assert style(1, ("blue", "red")) == "bold bright_red"
    assert style(0, ("north", "south")) != style(1, ("north", "south"))


def test_kings_court_shows_the_courts_empty_squares_as_plus_signs() -> None:
    start = get_game("kings-court").new_game().to_data()
    (band,) = drawing_for("kings-court").picture(Position(SEATS, start))
    assert isinstance(band, tuple)
    rows = ["".join(cell.symbol for cell in row) for row in band[0].cells]
    assert rows[2] == "bw++++bw"
    assert rows[0] == start["board"][0]


def test_the_last_move_is_marked_on_its_squares() -> None:
    game = get_game("kings-court")
    state = game.new_game()
    move = game.format_move(state.legal_moves()[0])
    position = Position(SEATS, state.play(state.legal_moves()[0]).to_data(), move=move)
    (band,) = drawing_for("kings-court").picture(position)
    assert isinstance(band, tuple)
    named = {f"{band[0].columns[column]}{band[0].rows[row]}" for row, column in band[0].marked}
    assert named == {move[:2], move[2:4]}


def test_shobu_draws_all_four_boards_labelled_by_owner_and_colour() -> None:
    state = get_game("shobu").new_game()
    picture = drawing_for("shobu").picture(Position(("black", "white"), state.to_data()))
    text = "\n".join(line.plain for line in picture_lines(picture, SEATS))
    for title in ("black-dark (bd)", "black-light (bl)", "white-dark (wd)", "white-light (wl)"):
        assert title in text
    assert text.index("white-dark") < text.index("rope") < text.index("black-dark")


def test_war_of_life_shows_the_board_before_the_crank_beside_the_board_after() -> None:
    game = get_game("war-of-life")
    drawing = drawing_for("war-of-life")
    start = game.initial_state(game.resolve_options({"seed": 3}))
    move = start.legal_moves()[0]
    text = game.format_move(move)
    position = Position(game.seats, start.play(move).to_data(), start.to_data(), text, 0)
    (band,) = drawing.picture(position)
    assert isinstance(band, tuple)
    before, after = band
    assert (before.title, after.title) == (f"blue {text}, before the crank", "after the crank")
    (_, from_row, from_column), (_, to_row, to_column) = game.boards.move_squares(text)
    assert before.cells[to_row][to_column] == Cell("b", 0)
    assert before.cells[from_row][from_column].owner is None
    board = "".join(position.data["board"])
    assert drawing.pieces(position.data) == [board.count("b"), board.count("r")]
