"""The time control of a seek that names none: a game clock for a person, the game's per-move
limit for a program.

A person's seek is one that plays under `illegal: retry` (a refused move costs only the move:
the person's rule, which `arbiter play --server` asks for); a program's plays under `forfeit`
(bots, tournaments). Both defaults are the game's (`Game.person_time_control`,
`Game.default_time_control`). Two seeks pair only on the same time control, so a person who
wants to play a bot on a server gives one of them the other's (`--time`): docs/time-controls.md.
"""

from __future__ import annotations

from typing import Any

from arbiter.games import Game
from arbiter.protocol import TimeControl
from arbiter.server.play.defaults import Illegal


def default_time_control(game: Game[Any, Any], illegal: Illegal) -> TimeControl:
    """The time control of a seek for `game` that gives none, by what an illegal move costs."""
    person = illegal == Illegal.RETRY
    return TimeControl.parse(game.person_time_control if person else game.default_time_control)
