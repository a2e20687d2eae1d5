"""Submissions named as players: `author/name` (its latest ready version) or `author/name@v2`
(that version, if ready), resolved to the version a worker runs by its content hash.

Only `ready` versions play: one still validating, or failed, or retired, is refused with a
sentence saying which, so a challenge or an entrant never reaches a worker with code that has
not passed its validation game.
"""

from __future__ import annotations

import re
from typing import Any

from arbiter.server.storage.interface import Storage
from arbiter.server.storage.statuses import SubmissionStatus
from arbiter.server.storage.submissions import SubmissionRow

SPEC = re.compile(r"(?P<author>[^/@\s]+)/(?P<name>[^/@\s]+)(?:@v(?P<version>[1-9][0-9]*))?")


class NotPlayable(Exception):
    """The submission named is not one that may play; the sentence says why."""


def is_submission_spec(text: str) -> bool:
    """Whether `text` names a submission (`author/name`, `author/name@vN`)."""
    return SPEC.fullmatch(text) is not None


async def resolve(storage: Storage, spec: str, game: str) -> SubmissionRow:
    """The ready version `spec` names for `game`; `NotPlayable` if there is none."""
    matched = SPEC.fullmatch(spec)
    if matched is None:
        raise NotPlayable(
            f"{spec!r} is not a submission's name (write author/name or author/name@v2)"
        )
    author, name, version = matched["author"], matched["name"], matched["version"]
    versions = [row for row in await storage.submissions(author, game) if row.name == name]
    if not versions:
        raise NotPlayable(f"{author} has no agent {name!r} for {game}")
    if version is not None:
        chosen = [row for row in versions if row.version == int(version)]
        if not chosen:
            raise NotPlayable(f"{author}/{name} has no version {version}")
        row = chosen[0]
        if row.status != SubmissionStatus.READY:
            raise NotPlayable(f"{author}/{name} v{version} is {row.status}, not ready")
        return row
    ready = [row for row in versions if row.status == SubmissionStatus.READY]
    if not ready:
        raise NotPlayable(f"{author}/{name} has no ready version yet")
    return ready[-1]


def run_of(row: SubmissionRow) -> dict[str, Any]:
    """The `host` frame's `run` for a version: its archive, by hash."""
    return {"kind": "submission", "hash": row.hash}


def pinned(row: SubmissionRow) -> str:
    """The name of exactly this version, `alice/bot@v2`: what a tournament keeps for an entrant,
    so a newer upload does not change who plays its games."""
    return f"{row.author}/{row.name}@v{row.version}"


def seat_base(row: SubmissionRow) -> str:
    """The seat name a version plays under, before a worker's number: `alice.bot.v2`."""
    return f"{row.author}.{row.name}.v{row.version}"
