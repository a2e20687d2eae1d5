"""The legal moves a seat is sent with its `your_turn`, and the shortcut they give back.

A move sent back exactly as hinted is known legal and canonical already: it is played without
parsing or checking. Hints are left out where they could not fit a frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arbiter.games import Game, State

MAX_HINT_CHARACTERS = 32 * 1024
"""Hints are left out (legal = None) beyond this: a contrived King's Court position can have
225,000 jump routes, and `your_turn` must fit a 64 KiB frame. Real positions stay far below (an
Amazons opening lists 2,176 moves in about 20 KB)."""


class Hints:
    """The hints last sent for a match's position, and the moves they name."""

    __slots__ = ("_moves", "_texts", "game")

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self._texts: Sequence[str] = ()
        """The hinted texts and their moves, in the same order: two lists rather than a dict,
        as one lookup per move does not repay building a dict of every move."""
        self._moves: Sequence[Any] = ()

    def offer(self, state: State[Any]) -> list[str] | None:
        """The legal moves of `state` as texts, remembered; None when they could not fit."""
        moves = state.legal_moves()
        legal = self.game.format_moves(moves)
        could_exceed = len(legal) * self.game.max_move_text > MAX_HINT_CHARACTERS
        if could_exceed and sum(map(len, legal)) > MAX_HINT_CHARACTERS:
            return None
        self._texts, self._moves = legal, moves
        return legal

    def play(self, state: State[Any], text: str) -> tuple[State[Any], str]:
        """The position after the move `text` names, and the move's canonical notation, or
        `InvalidMoveError`/`IllegalMoveError`; a hinted text is played without a check."""
        try:
            move = self._moves[self._texts.index(text)]
        except ValueError:
            move, after = self.game.apply_text(state, text)
            return after, self.game.format_move(move)
        return state.play(move), text

    def forget(self) -> None:
        """The position changed: no text is known legal any more."""
        self._texts, self._moves = (), ()
