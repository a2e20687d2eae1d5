"""A game's terms as an admin command takes them: `--option NAME=VALUE` words and a `--time`
control, checked as a seek's are (`play.seek_terms`), every refusal a sentence.

`admin class final` and `admin ladder start` both name a game's terms on the command line; one
reading keeps an option or a control meaning the same in both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbiter.games import Game, all_games
from arbiter.protocol import TimeControl, TimeControlError
from arbiter.server.play.defaults import Illegal
from arbiter.server.play.seek_terms import Refused, checked_terms
from arbiter.server.storage.accounts import AccountError


class TermsRefused(AccountError):
    """Terms that cannot be played: the sentence says which word and why."""


@dataclass(frozen=True, slots=True)
class Terms:
    """A game, its options as given (a seed left unset is drawn for each game) and its control."""

    game: Game[Any, Any]
    options: dict[str, Any]
    control: TimeControl


def game_terms(
    game: str, option_words: Sequence[str], time: str | None, default: TimeControl | None = None
) -> Terms:
    """The terms the words name, under tournament rules (an illegal move forfeits); without
    `time`, `default`, or else the game's own control for programs."""
    known_game(game)
    options = _options(option_words)
    wire = _time(time) or ({} if default is None else dict(default.to_wire()))
    try:
        rules, control = checked_terms(game, options, wire, Illegal.FORFEIT)
    except Refused as error:
        raise TermsRefused(str(error)) from None
    return Terms(rules, options, control)


def known_game(game: str) -> str:
    """`game`, if there is such a game; else `TermsRefused` naming the games there are."""
    names = sorted(rules.name for rules in all_games())
    if game not in names:
        raise TermsRefused(f"there is no game {game!r} (games: {', '.join(names)})")
    return game


def _options(given: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for text in given:
        name, equals, value = text.partition("=")
        if not equals:
            raise TermsRefused(f"cannot read the option {text!r}: write NAME=VALUE")
        options[name] = _value(value)
    return options


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _time(text: str | None) -> dict[str, float]:
    if text is None:
        return {}
    try:
        return dict(TimeControl.parse(text).to_wire())
    except TimeControlError as error:
        raise TermsRefused(str(error)) from None
