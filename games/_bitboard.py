"""Square sets as Python ints, shared by every game on a grid.

Bit `s` set means square `s` is in the set; each game numbers its own squares. Ints are fast
bitsets in CPython: union, intersection and counting are single operations on any board size.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

Bitboard: TypeAlias = int
"""A set of squares: bit `s` is set when square `s` is in it (each game numbers its squares)."""


def squares_of(board: Bitboard) -> Iterator[int]:
    """The squares of a set in increasing order, which fixes each game's move order."""
    while board:
        low = board & -board
        yield low.bit_length() - 1
        board ^= low
