"""Each game's terminal board, its piece counts and its facts for a few positions of seeded
random games, with every colour and style, pinned by golden files in tests/play/boards/: the
boards look the same whatever the drawing code does. After a deliberate change of the look,
rewrite them with `ARBITER_UPDATE_SNAPSHOTS=1 pytest tests/play/test_board_goldens.py` and read
the diff."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from arbiter.client.play.boards import Position, drawing_for
from arbiter.client.play.boards.grid import picture_lines
from arbiter.games import GAME_NAMES, get_game

GOLDEN = Path(__file__).parent / "boards"
UPDATE = os.environ.get("ARBITER_UPDATE_SNAPSHOTS") == "1"
SEEDS = (1, 2)
PLIES = (0, 1, 2, 7, 30, 160, 400)
"""Positions shown: the start, the first moves, the middle game and the end (or the ply limit)."""


def positions(name: str) -> Iterator[tuple[str, Position]]:
    """Seeded random games' positions, each shown as a spectator joining late sees it (no move
    before) and as a player who saw the move sees it."""
    game = get_game(name)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = game.new_game(lambda seed=seed: seed)  # type: ignore[misc]
        before, move, mover = None, None, None
        for ply in range(max(PLIES) + 1):
            if ply in PLIES:
                data = state.to_data()
                yield f"seed {seed} ply {ply}", Position(game.seats, data)
                if before is not None:
                    yield (
                        f"seed {seed} ply {ply}, the move seen",
                        Position(game.seats, data, before, move, mover),
                    )
            if state.is_over():
                break
            chosen = state.random_move(rng)
            before, move, mover = state.to_data(), game.format_move(chosen), state.turn
            state = state.play(chosen)


def drawn(name: str) -> str:
    drawing = drawing_for(name)
    seats = get_game(name).seats
    parts = []
    for label, position in positions(name):
        lines = picture_lines(drawing.picture(position), seats)
        parts.append(f"== {label}")
        parts.extend(line.markup for line in lines)
        parts.append(f"pieces: {drawing.pieces(position.data)}")
        parts.extend(f"fact: {fact}" for fact in drawing.facts(position))
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_terminal_board_looks_as_its_golden_file(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    text = drawn(name)
    if UPDATE:
        path.write_text(text)
    assert path.exists(), f"no golden file {path.name}: run with ARBITER_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(), f"the drawing of {name} differs from {path.name}"
