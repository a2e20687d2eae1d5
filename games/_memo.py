"""A dict that fills itself, for work the server repeats on every move (notation, data rows).

Move texts and board rows recur across positions and games: a dictionary lookup in C is cheaper
than building them again, and cheaper than an `lru_cache` call.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(dict[K, V]):
    """`memo[key]` is `make(key)`, made on first use. At most `limit` entries: when full it
    starts again empty, which keeps memory bounded whatever keys arrive, at the cost of remaking
    the common ones once."""

    __slots__ = ("_limit", "_make")

    def __init__(self, make: Callable[[K], V], limit: int = 1 << 16) -> None:
        super().__init__()
        self._make = make
        self._limit = limit

    def __missing__(self, key: K) -> V:
        if len(self) >= self._limit:
            self.clear()
        value = self[key] = self._make(key)
        return value
