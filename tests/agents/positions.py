"""Positions for agent tests: hand-built ones from each game's text form, and seeded samples."""

from __future__ import annotations

import random
from typing import Any

from arbiter.games import get_game
from arbiter.games.kings_court import KingsCourtState
from arbiter.games.shobu import ShobuState
from arbiter.games.watch_your_back import PLACEMENTS, WatchYourBackState

KINGS_COURT_LAST_COURT_PIECE = KingsCourtState.from_rows(
    [
        "b.......",
        "........",
        "........",
        "........",
        "..wb....",
        "........",
        "........",
        "w......b",
    ],
    ply=10,
)
"""White to move; black's only Court piece, D4, can be jumped from C4 to E4: C4E4 wins."""

KINGS_COURT_LONG_JUMP = KingsCourtState.from_rows(
    [
        "........",
        ".w.w.w..",
        "w.....w.",
        "....b...",
        "w..w..w.",
        "........",
        "......w.",
        "ww.w.w..",
    ]
)
"""White to move; A1 can hop over its own pieces around the board, A1 C1 E1 G1 G3 G5 G7 E7 C7
A7 A5 A3: a move of 12 squares."""

KINGS_COURT_MAZE = KingsCourtState.from_rows(
    [
        "........",
        ".w.w....",
        "w.w.w.w.",
        ".w.w.w..",
        "w.wbw.w.",
        ".w.w.w..",
        "w.w.w.w.",
        "ww.w.w..",
    ]
)
"""White to move; A1 can hop over its own pieces through a maze of the squares two apart, by
any path that visits none twice: 1,258 moves, the longest of 15 squares, more moves than a
compiled search's list first holds and longer ones than a fixed-size move would."""

SHOBU_BOARD_CLEAR = ShobuState.from_rows({"white-dark": ["W...", "B...", "....", "...."]})
"""Black to move; white's last stone on white-dark (a4) goes off the board when black's a3 is
pushed north one square there, after any passive north step on black-light."""

WATCH_YOUR_BACK_LAST_PAIR = WatchYourBackState.from_rows(
    [
        "X------X",
        "--------",
        "--------",
        "--O@----",
        "----O---",
        "--------",
        "------@-",
        "X------X",
    ],
    ply=PLACEMENTS + 40,
)
"""White to move with black down to two pieces: 4,4-4,3 flanks 3,3 against 2,3 and wins."""


def sample(name: str, count: int, seed: int = 0) -> list[Any]:
    """`count` unfinished positions of a game: the start, then points along seeded random games."""
    game = get_game(name)
    rng = random.Random(seed)
    positions = [game.new_game(fresh_seed=lambda: seed)]
    while len(positions) < count:
        state = game.new_game(fresh_seed=lambda: rng.getrandbits(16))
        stop = rng.randrange(2, 60)
        while state.outcome() is None and state.ply < stop:
            state = state.play(state.random_move(rng))
        if state.outcome() is None:
            positions.append(state)
    return positions
