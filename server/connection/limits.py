"""What one client, and all of them together, may make the server hold: the limits of a server
on an open network, in one frozen value that `serve` hands down to the lobby and each session.

Each limit is a constructor parameter with a default sized for a shared server; tests set small
ones so that a limit is reached in a few frames.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    output_bytes: int = 4 * MIB
    """Bytes queued for one client (written by the server, not yet taken by the socket) before
    it counts as not reading and is cut off (`output_limit`). The largest frame the server
    sends, the `game_over` of the longest game a game's options allow, fits under it."""
    output_budget: int = 64 * MIB
    """Bytes queued for all clients together: past it, the client with the largest backlog is
    cut off, until the total is back under it."""
    seeks_per_connection: int = 32
    """Open seeks one connection may hold (`too_many_seeks` past it)."""
    seeks_per_address: int = 64
    """Open casual seeks one IP address may hold across its connections (`too_many_seeks` past
    it). A person or a bot holds a seek or two while it waits for a partner, so an address
    shared by a classroom (one NAT) fits under 64; two connections at their own cap reach it.
    It takes more than 150 addresses at this cap to fill the server's table, and even a full
    table is shared: see `seeks`."""
    seeks: int = 10_000
    """Open seeks on the whole server. When the table is full, a seek from an address holding
    at least two fewer casual seeks than the address holding the most takes the place of that
    address's newest one (its client gets `seek_cancelled`): a few addresses cannot keep
    everyone else from seeking (`server.play.seeks`)."""
    snapshot_cache_bytes: int = 16 * MIB
    """Encoded snapshots (`watching`, `game_over`) of finished matches kept for watchers, least
    recently watched dropped first."""
    uploads_at_once: int = 16
    """Submission uploads in progress on the whole server, each holding up to an archive's
    4 MiB until it ends (`bad_submission` past it: try again shortly)."""
    upload_seconds: float = 120.0
    """How long one upload may take from `submit_begin` to `submit_end`: 4 MiB in two minutes
    is a slow link's pace, and a stalled upload frees its bytes."""
    versions_kept: int = 20
    """Versions an author keeps (not retired), over all the author's agents."""
    uploads_per_hour: int = 12
    """Versions an author may upload in an hour."""
