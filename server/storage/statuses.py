"""The words the store keeps as text and the server reads back: where a match, a tournament and
a tournament's game stand, and how each seat's rule for an illegal move is kept.

String enums, so a stored value is its text as the schema documents it (no migration) and
compares equal to it, while the code names the few values there are. Bound as `.value`: a plain
`str` is what every engine's driver stores as text as it is.
"""

from __future__ import annotations

import enum
from typing import Final


class MatchStatus(enum.StrEnum):
    """`matches.status`."""

    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"
    """A casual match in play when its server stopped: nobody could take its seats back, so it
    has no result and no scores (its moves are kept)."""


class TournamentStatus(enum.StrEnum):
    """`tournaments.status`."""

    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"


class SubmissionStatus(enum.StrEnum):
    """`submissions.status`: a version is checked by a validation game before it plays."""

    VALIDATING = "validating"
    READY = "ready"
    FAILED = "failed"
    RETIRED = "retired"
    """Withdrawn by its author: kept, with its games, but entered nowhere again."""


class GameStatus(enum.StrEnum):
    """Where one game of a tournament's schedule stands: its match's status, or `WAITING`
    before it has one (a tournament's match is never aborted: it resumes)."""

    WAITING = "waiting"
    PLAYING = MatchStatus.PLAYING.value
    FINISHED = MatchStatus.FINISHED.value


SEPARATOR: Final = ","


def illegal_text(rules: tuple[str, ...]) -> str:
    """Each seat's rule for an illegal move (the play wing's `Illegal`, a string enum) as
    `matches.illegal` keeps them: 'forfeit,retry'."""
    return SEPARATOR.join(rules)
