"""The protocol's frames as JSON for a page, and a page's JSON as frames for its session.

A page speaks the protocol's messages as JSON objects, one a WebSocket message; the session
behind it reads and writes ordinary frames, so every check, size and rate of a TCP client holds.
What a page cannot work out without the rules is added on the way out, computed by the game's
own Python: the position after each move (`state` on `move_accepted` and `opponent_moved`), and
every position of a match shown from its start (`states` on `watching` and `resumed`), and the
seat to move after them (`to_move`, nil once the game is over; `resumed` has its own `to_move`,
whether a `your_turn` follows, which is kept).

Spectators of one match all receive the same frame for a move, so the translation of a
frame is kept (`Translations`, the most recent few shared by every page): the thousandth
spectator of a move costs a dictionary lookup, not a decode, a rules call and an encode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgpack

from arbiter.games import GameError, get_game
from arbiter.games._base import Game, State
from arbiter.protocol import FrameDecoder, LocalProtocolError, encode_frame
from arbiter.server.recent import Recent

KEPT_TRANSLATIONS = 512
"""Frames whose JSON is kept: a few moves of many matches at once."""
FOLLOWED = 64
"""Matches one page's positions are kept for (a page watches one, or plays a few)."""
ANY_SIZE = 2**32 - 1
"""The largest frame a header can announce: the frames cut here are the server's own, and
some (a long game's `game_over` or `watching`) are larger than a client may send."""
MOVED = ("move_accepted", "opponent_moved")
SHOWN = ("watching", "resumed")


@dataclass(frozen=True, slots=True)
class Translation:
    """One frame as a page gets it, and the position it leaves its match in (if it moves one)."""

    text: str
    match: int | None = None
    position: tuple[Game[Any, Any], State[Any]] | None = None


Translations = Recent[bytes, Translation]
"""A frame's body -> its translation, the most recent `KEPT_TRANSLATIONS`, for all pages."""


def shared_translations() -> Translations:
    return Recent(KEPT_TRANSLATIONS)


def from_page(text: str | bytes) -> bytes:
    """A page's WebSocket message as one protocol frame. A message that is not JSON (or not
    text, or a number msgpack cannot hold) is passed on as it is, which its session refuses as
    any client's frame that holds no map, quoting it (`not_a_map`); the session checks
    everything else."""
    as_sent: Any = text  # any value: the session, not this adapter, refuses what is no map
    try:
        return encode_frame(json.loads(text) if isinstance(text, str) else as_sent)
    except (ValueError, RecursionError, LocalProtocolError):
        return encode_frame(as_sent)


class PageWire:
    """The frames of one session, cut from its byte stream and translated for its page. It
    follows each match the page is shown, to know the position a move is played from."""

    def __init__(self, shared: Translations) -> None:
        self._shared = shared
        self._frames = FrameDecoder(ANY_SIZE)
        self._positions: Recent[int, tuple[Game[Any, Any], State[Any]]] = Recent(FOLLOWED)
        """The position of each match this page follows, the latest `FOLLOWED` at most."""

    def feed(self, data: bytes) -> list[str]:
        """The page's messages for the bytes the session wrote (whole frames; a frame cut in
        two waits for its rest)."""
        if data:  # (no bytes would mark the end of the stream)
            self._frames.feed(data)
        texts = []
        while isinstance(body := self._frames.next_body(), bytearray):
            texts.append(self._translate(bytes(body)))
        return texts

    def _translate(self, body: bytes) -> str:
        """A frame's translation (by its body); one that moves a match is the same for every
        page (the match id and ply fix the position), so it is kept for the others."""
        found = self._shared.get(body)
        if found is None:
            found = self._fresh(body)
            if found.position is not None:
                self._shared.put(body, found)
        if found.position is not None and found.match is not None:
            self._positions.put(found.match, found.position)
        return found.text

    def _followed(self, match: object) -> tuple[Game[Any, Any], State[Any]] | None:
        """The position of `match` (from a frame: anything) if this page follows it."""
        return self._positions.get(match) if isinstance(match, int) else None

    def _fresh(self, body: bytes) -> Translation:
        message: dict[str, Any] = msgpack.unpackb(body, raw=False)
        kind, match = message.get("type"), message.get("match")
        position = None
        try:
            if kind == "match_started":  # a match resumed after a restart starts part-played
                game = get_game(message["game"])
                position = game, game.state_from_data(message["state"])
            elif kind in SHOWN:
                game = get_game(message["game"])
                states = [game.initial_state(message["options"])]
                for text in message["moves"]:
                    states.append(states[-1].play(game.parse_move(text)))
                message["states"] = [state.to_data() for state in states]
                position = game, states[-1]
            elif kind in MOVED and (followed := self._followed(match)) is not None:
                game, state = followed
                position = game, state.play(game.parse_move(message["move"]))
                message["state"] = position[1].to_data()
        except (GameError, KeyError):
            position = None  # drawn from what the frame itself says
        if position is not None and kind not in ("match_started", "resumed"):
            game, state = position
            message["to_move"] = None if state.is_over() else game.seats[state.turn]
        return Translation(json.dumps(message, separators=(",", ":")), match, position)
