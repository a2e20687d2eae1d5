"""The positions of the matches pages are shown, kept once per match and ply for every page.

A page cannot play moves without the rules, so the web front sends it positions. The server
sends each move's position with the move (protocol version 2, which pages speak): one `History`
per match keeps them as they come, shared by all pages, so no rules run for a followed match.
A page that starts watching gets the latest `KEPT_PLIES` positions (`positions`), whatever the
game's length, so its first message is bounded too.

A match no page has followed yet (a long game that TCP clients played) has sent none of its
earlier positions, so it is replayed once to reach its latest ones, while every other page
asking for the same match waits for that one replay rather than starting its own. The replay
runs on the event loop in slices of time (`server.common.slices`), so every match's moves wait
for one slice at most. Only the moves into the last `KEPT_PLIES` positions build their
positions.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from arbiter.games import GameError
from arbiter.games._base import Game, State
from arbiter.server.common.recent import Recent
from arbiter.server.common.slices import Slices

KEPT_PLIES = 256
"""Positions kept per match, the latest: what a page starting to watch is sent. A game longer
than this is shown from there on, with the moves into those positions (`arbiter export` has
the rest)."""
HISTORY_BYTES = 32 * 1024 * 1024
"""The positions kept for all matches together, as JSON text; the least recently used match
goes first (a match being played touches its history at every move)."""


@dataclass(frozen=True, slots=True)
class Position:
    """One position as a page is sent it: the state's JSON text and the seat to move (None once
    the game is over)."""

    text: str
    to_move: str | None

    @classmethod
    def of(cls, game: Game[Any, Any], state: State[Any]) -> Position:
        text = json.dumps(state.to_data(), separators=(",", ":"))
        return cls(text, None if state.is_over() else game.seats[state.turn])


@dataclass(slots=True)
class History:
    """A match's position at `ply` (to play the next move on) and its latest `KEPT_PLIES`
    positions, the last at `ply`."""

    game: Game[Any, Any]
    state: State[Any]
    kept: deque[Position] = field(default_factory=lambda: deque(maxlen=KEPT_PLIES))
    weight: int = 0
    """The bytes of the positions' texts kept."""

    @classmethod
    def starting_at(cls, game: Game[Any, Any], state: State[Any]) -> History:
        history = cls(game, state)
        history.keep(Position.of(game, state))
        return history

    @staticmethod
    def weigh(history: History) -> int:
        """The bytes of its kept positions' text: what a server's histories are bounded by."""
        return history.weight

    def copy(self) -> History:
        """A history of its own from here (to replay on in a thread while this one moves on)."""
        return History(self.game, self.state, deque(self.kept, maxlen=KEPT_PLIES), self.weight)

    @property
    def ply(self) -> int:
        return int(self.state.ply)

    def advance(self, text: str) -> None:
        """Play the move `text` without keeping its position: the positions kept before it
        are dropped (they would no longer end at the history's ply)."""
        self.state = self.state.play(self.game.parse_move(text))
        self.kept.clear()
        self.weight = 0

    def play(self, text: str) -> Position:
        """Play the move `text` (a move the server accepted); its position."""
        self.state = self.state.play(self.game.parse_move(text))
        position = Position.of(self.game, self.state)
        self.keep(position)
        return position

    def arrived(self, data: dict[str, Any], to_move: str | None) -> Position:
        """Take the position the server sent with the next move (its state's data and the seat
        to move): read, not played."""
        self.state = self.game.state_from_data(data)
        position = Position(json.dumps(data, separators=(",", ":")), to_move)
        self.keep(position)
        return position

    def keep(self, position: Position) -> None:
        if len(self.kept) == self.kept.maxlen:
            self.weight -= len(self.kept[0].text)
        self.kept.append(position)
        self.weight += len(position.text)

    def at(self, ply: int) -> Position | None:
        """The position after `ply` moves, if kept."""
        back = self.ply - ply
        return self.kept[-1 - back] if 0 <= back < len(self.kept) else None

    def up_to(self, ply: int) -> tuple[int, list[Position]]:
        """The kept positions up to the one at `ply`, and the ply of the first of them."""
        back = self.ply - ply
        if not 0 <= back < len(self.kept):
            return ply, []
        shown = list(self.kept)[: len(self.kept) - back]
        return ply - len(shown) + 1, shown


async def replayed(start: History, later: Sequence[str]) -> History:
    """`start` (a history of its own) with the moves `later` played on it, in slices of time
    between checkpoints; `GameError` if a move does not parse."""
    unkept = len(later) - KEPT_PLIES
    slices = Slices()
    for index, text in enumerate(later):
        await slices.step()
        if index < unkept:
            start.advance(text)
        else:
            start.play(text)
    return start


AWAIT_SECONDS = 5.0
"""How long a page shown a match's latest moves waits for the history another page is being
sent every move for; then it is shown the position its own frame holds."""
AWAITED_MATCHES = 1024
"""Matches whose every move a page asked for, remembered (the least recent dropped first)."""


class Histories:
    """The histories of the matches pages follow, bounded in bytes (`HISTORY_BYTES`), least
    recently used dropped first; shared by every page of one server.

    A match no page follows is sent in full to the first page that watches it (its history is
    replayed from every move); pages that start watching it before that history is built ask for
    the latest moves only (`awaited`) and wait for it, so a long game is sent whole once, not to
    each of many pages arriving together.
    """

    def __init__(self, limit: int = HISTORY_BYTES) -> None:
        self._kept: Recent[int, History] = Recent(limit, History.weigh)
        self._replaying: dict[int, trio.Event] = {}
        self._awaited: Recent[int, trio.Event] = Recent(AWAITED_MATCHES)
        """Matches a page asked every move of, set once their history is built from them."""

    def awaited(self, match: int) -> bool:
        """Whether a page is being sent every move of `match` to build its history: True, and
        the next page asks for its latest moves only; False, and this page is that page."""
        if self._awaited.get(match) is not None:
            return True
        self._awaited.put(match, trio.Event())
        return False

    def get(self, match: int) -> History | None:
        return self._kept.get(match)

    def put(self, match: int, history: History) -> None:
        """Keep `history` (again, once it played a move: it is weighed again)."""
        self._kept.put(match, history)

    def game_of(self, match: int) -> Game[Any, Any] | None:
        """The game of a followed match."""
        history = self.get(match)
        return None if history is None else history.game

    def played(
        self, match: int, ply: int, move: str, sent: dict[str, Any] | None = None
    ) -> Position | None:
        """The position after move number `ply` of `match`, `move`: the one the server `sent`
        with it (`{"state", "to_move"}`), else played, on its history if that is at the ply
        before, else as kept; None if the match is not followed."""
        history = self.get(match)
        if history is None:
            return None
        if history.ply == ply - 1:
            try:
                if sent is None:
                    position = history.play(move)
                else:
                    position = history.arrived(sent["state"], sent["to_move"])
            except GameError:
                return None
            self.put(match, history)
            return position
        return history.at(ply)

    async def shown(
        self,
        match: int,
        game: Game[Any, Any],
        options: Any,
        moves: Sequence[str],
        moves_from: int = 0,
    ) -> History | None:
        """`match`'s history once it holds the position after its moves (`moves`, from move
        `moves_from` on), replayed if need be; None if its moves do not replay, or if the
        history lacks moves before `moves_from` to replay from."""
        played = moves_from + len(moves)
        history = await self._reaching(match, moves_from)
        if history is not None and history.ply >= played:
            return history
        if (history.ply if history is not None else 0) < moves_from:
            return None  # the moves before `moves_from` are neither kept nor sent
        try:
            start = (
                history.copy()
                if history is not None
                else History.starting_at(game, game.initial_state(options))
            )
            fresh = await self._replay(match, start, moves[start.ply - moves_from :])
        except GameError:
            self._stop_awaiting(match)  # the pages waiting show their own frames' positions
            return None
        found = self.get(match)  # moves may have been played on it meanwhile
        if found is None or found.ply < fresh.ply:
            self.put(match, fresh)
            found = fresh
        self._stop_awaiting(match)
        return found

    def _stop_awaiting(self, match: int) -> None:
        if (awaited := self._awaited.pop(match)) is not None:
            awaited.set()

    async def _reaching(self, match: int, moves_from: int) -> History | None:
        """`match`'s history once no replay of it is underway and, if a page is being sent every
        move to build it, once it reaches move `moves_from` (`AWAIT_SECONDS` at most)."""
        while (replaying := self._replaying.get(match)) is not None:
            await replaying.wait()
        history = self.get(match)
        reached = 0 if history is None else history.ply
        if reached < moves_from and (awaited := self._awaited.get(match)) is not None:
            with trio.move_on_after(AWAIT_SECONDS) as waiting:
                await awaited.wait()
            if waiting.cancelled_caught:  # that page's frame never came: the next page asks
                self._awaited.pop(match)
            return await self._reaching(match, moves_from)
        return history

    async def _replay(self, match: int, start: History, later: Sequence[str]) -> History:
        self._replaying[match] = done = trio.Event()
        try:
            return await replayed(start, later)
        finally:
            del self._replaying[match]
            done.set()
