"""The frames that show a finished match to a spectator (`watching`, then `game_over`), kept
encoded by match id, so a finished match watched again is neither read back, nor replayed, nor
encoded again. Bounded in bytes; the least recently watched go first.

And the ids that will never have anything to show (an aborted match), so that asking for them
again costs no read either; an id above the highest stored one is answered by the storage
itself without a read (`Storage.load_match`).
"""

from __future__ import annotations

from arbiter import protocol
from arbiter.server.common.recent import Recent

Shown = tuple[protocol.Encoded, protocol.Encoded]
"""A finished match's `watching` and `game_over` frames."""


def shown_bytes(shown: Shown) -> int:
    return sum(len(encoded.frame) for encoded in shown)


def snapshots(limit: int) -> Recent[int, Shown]:
    """Finished matches' frames by match id, at most `limit` bytes of them."""
    return Recent(limit, weigh=shown_bytes)


NOTHING_TO_SHOW_KEPT = 16_384
"""Ids remembered to have nothing to show, least recently asked dropped first (~100 bytes
each)."""


def nothing_to_show() -> Recent[int, bool]:
    """The ids of matches that will never be shown (the value says nothing)."""
    return Recent(NOTHING_TO_SHOW_KEPT)
