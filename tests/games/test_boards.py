"""Each game's description of its boards (`Game.boards`): every position of random games is
described (each character a piece, each grid as labelled), drawn on a terminal, sent to a page
as plain JSON, and every legal move's squares are squares of the boards, starting where the
mover's piece stands or on an empty square."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.client.play.boards import Position, drawing_for
from arbiter.client.play.boards.grid import picture_lines
from arbiter.games import GAME_NAMES, BoardSquare, State, get_game


def random_positions(name: str, seed: int, plies: int) -> list[tuple[State[Any], str | None]]:
    game = get_game(name)
    rng = random.Random(seed)
    state: State[Any] = game.new_game(lambda: seed)
    found: list[tuple[State[Any], str | None]] = [(state, None)]
    for _ in range(plies):
        if state.is_over():
            break
        move = state.random_move(rng)
        state = state.play(move)
        found.append((state, game.format_move(move)))
    return found


@pytest.mark.long
@settings(max_examples=30, deadline=None)
@given(st.sampled_from(GAME_NAMES), st.integers(0, 10**6), st.integers(0, 150))
def test_every_position_of_random_games_is_described_and_drawn(
    name: str, seed: int, plies: int
) -> None:
    game = get_game(name)
    boards, drawing = game.boards, drawing_for(name)
    before, mover = None, None
    for state, move in random_positions(name, seed, plies):
        data = state.to_data()
        for grid, rows in zip(boards.grids, boards.rows(data), strict=True):
            assert len(rows) == len(grid.rows)
            assert all(len(row) == len(grid.columns) for row in rows)
            assert all(boards.piece(char) for row in rows for char in row)
        position = Position(game.seats, data, before, move, mover)
        lines = picture_lines(drawing.picture(position), game.seats)
        text = "\n".join(line.plain for line in lines)
        for grid in boards.grids:
            assert "".join(f" {column} " for column in grid.columns).strip() in text
        assert sum(drawing.pieces(data)) == sum(
            1
            for rows in boards.rows(data)
            for row in rows
            for char in row
            if boards.piece(char).owner is not None
        )
        assert all(isinstance(fact, str) for fact in drawing.facts(position))
        before, mover = data, state.turn
    assert json.loads(json.dumps(boards.to_data())) == boards.to_data()


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(GAME_NAMES), st.integers(0, 10**6), st.integers(0, 100))
def test_a_legal_moves_squares_start_on_the_movers_piece_or_an_empty_square(
    name: str, seed: int, plies: int
) -> None:
    game = get_game(name)
    boards = game.boards
    state = random_positions(name, seed, plies)[-1][0]
    rows = boards.rows(state.to_data())
    for move in game.format_moves(state.legal_moves()):
        squares = boards.move_squares(move)
        for square in squares:
            grid = boards.grids[square.grid]
            assert 0 <= square.row < len(grid.rows)
            assert 0 <= square.column < len(grid.columns)
        if squares:
            first = boards.piece(rows[squares[0].grid][squares[0].row][squares[0].column])
            assert first.owner in (state.turn, None), (move, first)
        assert boards.click_path(move) == squares[: boards.clicks]
        assert boards.click_names(move) == [boards.square_name(s) for s in boards.click_path(move)]


def test_squares_are_named_as_the_notation_names_them() -> None:
    names = {name: get_game(name).boards.square_names for name in GAME_NAMES}
    assert names["kings-court"]("A1A3C3") == ["A1", "A3", "C3"]
    assert names["amazons"]("d10-d7/g10") == ["d10", "d7", "g10"]
    assert names["watch-your-back"]("3,4-3,6") == ["34", "36"]
    assert names["watch-your-back"]("pass") == []
    assert names["war-of-life"]("c8-b7") == ["c8", "b7"]
    assert names["shobu"]("bda1 wla1 n2") == ["bd:a1", "bd:a3", "wl:a1", "wl:a3"]
    assert names["shobu"]("bdd1 blc1 nw1") == ["bd:d1", "bd:c2", "bl:c1", "bl:b2"]
    assert names["shobu"]("nonsense") == []


def test_a_shobu_turn_is_clicked_by_the_passive_stone_its_end_and_the_aggressive_stone() -> None:
    boards = get_game("shobu").boards
    assert boards.click_names("bda1 wla1 n2") == ["bd:a1", "bd:a3", "wl:a1"]
    assert boards.move_squares("wlb4 bdc4 s1")[0] == BoardSquare(1, 0, 1)  # white-light, top row


def test_war_of_life_steps_the_piece_before_the_crank() -> None:
    game = get_game("war-of-life")
    start = game.initial_state(game.resolve_options({"seed": 3}))
    move = game.format_move(start.legal_moves()[0])
    stepped = game.boards.stepped(start.to_data(), move)
    (_, from_row, from_column), (_, to_row, to_column) = game.boards.move_squares(move)
    assert stepped[to_row][to_column] == "b"
    assert stepped[from_row][from_column] == "."
    assert game.boards.owner_counts(stepped) == game.boards.counts(start.to_data())
