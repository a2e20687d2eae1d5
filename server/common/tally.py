"""`Tally`: a count per key, and the key with the highest count, each in constant time.

The table of seeks counts open seeks per address with it: when the table is full, the address
holding the most gives up its newest seek to a newcomer holding few (`server.play.seeks`), which
must not cost a scan of every address however many there are.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Tally(Generic[K]):
    """Counts by key (a key at 0 is forgotten), with the keys at each count, so the highest is
    found without a scan: a count moves by one at a time, so the highest moves by one too."""

    __slots__ = ("_at", "_counts", "most")

    def __init__(self) -> None:
        self._counts: dict[K, int] = {}
        self._at: dict[int, dict[K, None]] = {}
        """The keys at each count above 0, in the order they reached it."""
        self.most = 0
        """The highest count of any key (0 when none is counted)."""

    def __getitem__(self, key: K) -> int:
        return self._counts.get(key, 0)

    def __len__(self) -> int:
        return len(self._counts)

    def add(self, key: K) -> None:
        count = self._move(key, +1)
        self.most = max(self.most, count)

    def remove(self, key: K) -> None:
        before = self._counts[key]
        self._move(key, -1)
        if before == self.most and before not in self._at:
            self.most -= 1

    def top(self) -> K | None:
        """A key with the highest count (the first to reach it), or None when none is counted."""
        return next(iter(self._at[self.most])) if self.most else None

    def _move(self, key: K, step: int) -> int:
        before = self._counts.get(key, 0)
        after = before + step
        if before:
            keys = self._at[before]
            del keys[key]
            if not keys:
                del self._at[before]
        if after:
            self._counts[key] = after
            self._at.setdefault(after, {})[key] = None
        else:
            del self._counts[key]
        return after
