"""A worker's cache of submission archives, one file per content hash, and their prepared
folders.

A submission plays many games, often on one worker at once: its archive is fetched from the
server once (`submission_fetch`, part by part) and kept under its SHA-256. The hash is the
archive's name and its check: an entry read back is hashed again, and one that does not match
(a disk error, a write cut short) is fetched again rather than run. An entry is written beside
its final name and renamed into place, so two seats fetching at once never read half a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from arbiter.client.worker.prepared import Prepared, prepare
from arbiter.protocol.submission import HASH_PATTERN, SubmissionError, content_hash
from arbiter.protocol.submission import unpack as unpack_archive

Fetch = Callable[[str], Awaitable[bytes]]
"""Fetches the archive stored under a hash from the server."""


class Archives:
    """The archives kept in `folder`, fetched with `fetch` when missing or corrupt."""

    def __init__(self, folder: Path, fetch: Fetch) -> None:
        self.folder = folder
        self._fetch = fetch
        self._locks: dict[str, trio.Lock] = {}

    async def prepared(self, digest: str) -> Prepared:
        """The submission stored under `digest`, laid out and built in a folder of the cache
        (`SubmissionError` if it is not one, `prepared.BuildFailed` if it does not build)."""
        if not HASH_PATTERN.fullmatch(digest):
            raise SubmissionError(f"{digest!r} is not a submission's SHA-256")
        lock = self._locks.setdefault(digest, trio.Lock())
        async with lock:  # one fetch and one build per archive, however many seats want it
            archive = await trio.to_thread.run_sync(self._kept, digest)
            if archive is None:
                archive = await self._fetch(digest)
                if content_hash(archive) != digest:
                    raise SubmissionError(f"the server sent an archive that is not {digest}")
                await trio.to_thread.run_sync(self._keep, digest, archive)
            return await prepare(unpack_archive(archive), self.folder / "prepared" / digest)

    def _kept(self, digest: str) -> bytes | None:
        try:
            archive = (self.folder / digest).read_bytes()
        except FileNotFoundError:
            return None
        return archive if content_hash(archive) == digest else None

    def _keep(self, digest: str, archive: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=self.folder, prefix=".fetching-")
        with os.fdopen(handle, "wb") as file:
            file.write(archive)
        os.replace(partial, self.folder / digest)
