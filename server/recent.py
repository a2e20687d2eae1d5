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

    __slots__ = ("_kept", "_weigh", "limit", "size")

    def __init__(self, limit: int, weigh: Callable[[V], int] = _one) -> None:
        self.limit = limit
        self.size = 0
        """The weight kept now."""
        self._weigh = weigh
        self._kept: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        weight = self._weigh(value)
        if weight > self.limit:
            return
        old = self._kept.pop(key, None)
        if old is not None:
            self.size -= self._weigh(old)
        self._kept[key] = value
        self.size += weight
        while self.size > self.limit:
            _, dropped = self._kept.popitem(last=False)
            self.size -= self._weigh(dropped)
