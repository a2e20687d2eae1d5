"""`Recent`: the most recently used entries of a mapping, within a bound; the least recently
used go first.

The server keeps several such caches: the frames that show a finished match (bounded in bytes),
the web's translations of frames (bounded in bytes), the endings of finished matches the
pages read. One class, so each says only what bounds it and what an entry weighs.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _one(_: object) -> int:
    return 1


class Recent(Generic[K, V]):
    """At most `limit` of weight (`weigh(value)` an entry, 1 by default: a count). `get` and
    `put` make an entry the most recent; an entry heavier than the whole limit is not kept."""

    __slots__ = ("_kept", "_weigh", "_weights", "limit", "size")

    def __init__(self, limit: int, weigh: Callable[[V], int] = _one) -> None:
        self.limit = limit
        self.size = 0
        """The weight kept now."""
        self._weigh = weigh
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._weights: dict[K, int] = {}
        """Each entry's weight when it was put: what leaves the size when it goes."""

    def get(self, key: K) -> V | None:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def pop(self, key: K) -> V | None:
        """Forget `key`; its value, if it was kept."""
        self.size -= self._weights.pop(key, 0)
        return self._kept.pop(key, None)

    def put(self, key: K, value: V) -> None:
        """Keep `value` as the most recent; putting a value again weighs it again (one that
        grew in place, as a match's history does with each move)."""
        weight = self._weigh(value)
        if weight > self.limit:
            return
        self.size -= self._weights.pop(key, 0)
        self._kept.pop(key, None)
        self._kept[key] = value
        self._weights[key] = weight
        self.size += weight
        while self.size > self.limit:
            dropped, _ = self._kept.popitem(last=False)
            self.size -= self._weights.pop(dropped)
