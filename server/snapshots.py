"""The frames that show a finished match to a spectator (`watching`, then `game_over`), kept
encoded by match id, so a finished match watched again is neither read back, nor replayed, nor
encoded again. Bounded in bytes; the least recently watched go first."""

from __future__ import annotations

from arbiter import protocol
from arbiter.server.recent import Recent

Shown = tuple[protocol.Encoded, protocol.Encoded]
"""A finished match's `watching` and `game_over` frames."""


def shown_bytes(shown: Shown) -> int:
    return sum(len(encoded.frame) for encoded in shown)


def snapshots(limit: int) -> Recent[int, Shown]:
    """Finished matches' frames by match id, at most `limit` bytes of them."""
    return Recent(limit, weigh=shown_bytes)
