"""The frames that show a finished match to a spectator (`watching`, then `game_over`), kept
encoded by match id, so a finished match watched again is neither read back, nor replayed, nor
encoded again. Bounded in bytes; the least recently watched go first."""

from __future__ import annotations

from collections import OrderedDict

from arbiter import protocol

Shown = tuple[protocol.Encoded, protocol.Encoded]
"""A finished match's `watching` and `game_over` frames."""


class Snapshots:
    """At most `limit` bytes of encoded frames, least recently used dropped first."""

    __slots__ = ("_kept", "limit", "size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._kept: OrderedDict[int, Shown] = OrderedDict()

    def get(self, match_id: int) -> Shown | None:
        shown = self._kept.get(match_id)
        if shown is not None:
            self._kept.move_to_end(match_id)
        return shown

    def put(self, match_id: int, shown: Shown) -> None:
        size = _size(shown)
        if size > self.limit or match_id in self._kept:
            return
        self._kept[match_id] = shown
        self.size += size
        while self.size > self.limit:
            _, dropped = self._kept.popitem(last=False)
            self.size -= _size(dropped)


def _size(shown: Shown) -> int:
    return sum(len(encoded.frame) for encoded in shown)
