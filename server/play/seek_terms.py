"""The terms a game is sought or scheduled under, checked: the game, its options, its time
control.

A casual seek and a tournament are both refused here, with the same codes and sentences, for an
unknown game, options it does not take, or a time control that cannot be; a seek or tournament
that gives no time control gets the game's default (`server.play.time_defaults`).
"""

from __future__ import annotations

from typing import Any

from arbiter.games import Game, GameError, OptionError, get_game
from arbiter.protocol import ErrorCode, TimeControl, TimeControlError
from arbiter.server.play.defaults import Illegal
from arbiter.server.play.time_defaults import default_time_control


class Refused(ValueError):
    """A request the server cannot honour: a code for the `error` frame, a sentence for people."""

    def __init__(self, code: ErrorCode, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code


class TermsRefused(Refused):
    """Terms the server cannot play under."""


def checked_terms(
    name: str, options: dict[str, Any], time: dict[str, float], illegal: Illegal
) -> tuple[Game[Any, Any], TimeControl]:
    """The game `name` and the time control to play it under, or `TermsRefused`: the options
    are checked (`Game.resolve_options`), the time control is `time` or, when it is empty, the
    game's default for players under `illegal`."""
    try:
        game = get_game(name)
    except GameError as error:
        raise TermsRefused(ErrorCode.UNKNOWN_GAME, str(error)) from None
    try:
        game.resolve_options(options)
    except OptionError as error:
        raise TermsRefused(ErrorCode.BAD_OPTION, str(error)) from None
    try:
        if time:
            return game, TimeControl.from_wire(time)
        return game, default_time_control(game, illegal)
    except TimeControlError as error:
        raise TermsRefused(ErrorCode.BAD_TIME_CONTROL, str(error)) from None
