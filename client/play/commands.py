"""What a line typed at the terminal asks for: a move, a question, resigning or leaving.

A move is checked here, with the game's own rules, before anything is sent: a mistyped or
illegal move is answered on screen with the game's sentence ("no jump from B4 over C4: C4 is
empty") and never reaches the server, so it can cost neither the game nor a refusal. Pure: the
table is read, never changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arbiter.client.play.table import Table
from arbiter.games import Game, IllegalMoveError, InvalidMoveError, State

QUIT_WORDS = ("quit", "exit")
LIST_SEPARATOR = "  "
"""Between listed moves; the screen wraps a list between its items (a Shobu move has spaces)."""


@dataclass(frozen=True, slots=True)
class Play:
    """Send this move (canonical text) for the local seat `seat`."""

    seat: int
    text: str


@dataclass(frozen=True, slots=True)
class Say:
    """Show these lines; nothing is sent."""

    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Resign:
    """Give up the game for the local seat `seat`."""

    seat: int


@dataclass(frozen=True, slots=True)
class Quit:
    """Leave: resign a game in play, cancel a seek, stop watching."""


Action = Play | Say | Resign | Quit

CLEAR = Say(())
"""An empty line clears the messages."""


def interpret(line: str, table: Table) -> Action:
    words = line.strip().split(maxsplit=1)
    if not words:
        return CLEAR
    command = words[0].lower()
    if command == "help":
        return Say(help_lines(table))
    if command.startswith("?"):
        prefix = (line.strip()[1:]).strip()
        return Say(tuple(list_moves(table, prefix)))
    if command in QUIT_WORDS and len(words) == 1:
        return Quit()
    if command == "resign" and len(words) == 1:
        return _resign(table)
    return _move(line, table)


def _resign(table: Table) -> Action:
    if table.phase != "playing" or not table.local:
        return Say((_not_playing(table),))
    seat = next(iter(table.to_move), min(table.local))
    return Resign(seat)


def _move(line: str, table: Table) -> Action:
    seat = table.seat_to_move()
    if seat is None or seat not in table.to_move:
        return Say((_why_no_move(table, seat),))
    assert table.state is not None
    try:
        move, _ = table.game.apply_text(table.state, line)
    except (InvalidMoveError, IllegalMoveError) as error:
        return Say((str(error), "(? lists the legal moves, help explains the notation)"))
    return Play(seat, table.game.format_move(move))


def _not_playing(table: Table) -> str:
    if table.phase == "over":
        return "the game is over"
    if table.watching:
        return "you are watching: there is no move to play"
    return "the game has not started yet"


def _why_no_move(table: Table, seat: int | None) -> str:
    if seat is None or table.watching or not table.local:
        return _not_playing(table)
    if seat in table.local:
        return f"a moment: the server has not asked for {table.seats[seat]}'s move yet"
    return f"it is {table.seats[seat]}'s turn ({table.players[seat]} is thinking), not yours"


def list_moves(table: Table, prefix: str = "") -> list[str]:
    """The legal moves of the seat to move, sorted, or those whose text starts with `prefix`."""
    seat = table.seat_to_move()
    if seat is None or table.state is None:
        return [_not_playing(table)]
    moves = sorted((table.game.format_move(m) for m in table.state.legal_moves()), key=_natural)
    if prefix:
        moves = [text for text in moves if text.lower().startswith(prefix.lower())]
    whose = table.seats[seat]
    if not moves:
        return [f"no legal move for {whose} starts with {prefix!r} (? alone lists them all)"]
    starting = f" starting with {prefix}" if prefix else ""
    count = f"{len(moves)} legal move{'s' if len(moves) != 1 else ''}"
    return [f"{count} for {whose}{starting}:", LIST_SEPARATOR.join(moves)]


def _natural(text: str) -> list[Any]:
    """Sorting key reading numbers as numbers: d1-d2 before d1-d10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text.lower())]


SQUARE_PREFIX = re.compile(r"^[a-zA-Z]*\d+(?:,\d+)?")
"""A move text's first square: `B4` of B4C4, `3,4` of 3,4-3,5, `bda1` of `bda1 bla1 n1`."""


def help_lines(table: Table) -> tuple[str, ...]:
    """How to write a move, with a move legal right now as the example."""
    game = table.game
    example = _example(game, table.state)
    square = SQUARE_PREFIX.match(example)
    start = square.group() if square else example[:2]
    return (
        f"{game.title}: how to write a move",
        game.notation_help,
        f"For example: {example}",
        f"Commands: ? lists the legal moves; ? {start} those starting with {start}; "
        "resign gives up the game; quit leaves (resigning a game in play); help shows this. "
        "An empty line clears the messages.",
    )


def _example(game: Game[Any, Any], state: State[Any] | None) -> str:
    if state is None or state.is_over():
        state = game.new_game(fresh_seed=lambda: 1)
    return min((game.format_move(move) for move in state.legal_moves()), key=_natural, default="")
