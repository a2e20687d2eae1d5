"""The protocol's frames as JSON for a page, and a page's JSON as frames for its session.

A page speaks the protocol's messages as JSON objects, one a WebSocket message; the session
behind it reads and writes ordinary frames, so every check, size and rate of a TCP client holds.
What a page cannot work out without the rules is added on the way out (`history`): the position
after each move (`state` and `to_move` on `move_accepted` and `opponent_moved`, as the server
sent it in the frame's `position`), the latest positions of a match shown from its start
(`states` on `watching` and `resumed`, from the ply `states_from`: at most
`history.KEPT_PLIES` of them, so the message is bounded whatever the game's length), and the
seat to move after them (`to_move`, nil once the game is over; `resumed` has its own
`to_move`, whether a `your_turn` follows, which is kept). So that a page knows no game, it is
also sent the game's description of its boards (`boards` on `match_started`, `watching` and
`resumed`), the squares each move touched (`squares` on a move; `move_squares` for the moves
into the positions sent, from the move `squares_from` on, so they too are bounded) and the
squares a person clicks for each legal move (`paths` on `your_turn`), all from the rules module
(`boards`).

Spectators of one match all receive the same frame for a move, so the translation of a
frame is kept (`Translations`, the most recent ones within `TRANSLATION_BYTES`, shared by every
page): the thousandth spectator of a move costs a dictionary lookup, not a decode, a rules call
and an encode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio

from arbiter.games import GameError, get_game
from arbiter.protocol import (
    MAX_COUNT,
    VERSIONS,
    FrameDecoder,
    LocalProtocolError,
    encode_frame,
)
from arbiter.server.common.recent import Recent
from arbiter.server.web.boards import boards_json, each_squares_json, paths_json, squares_json
from arbiter.server.web.history import KEPT_PLIES, Histories, History, Position

TRANSLATION_BYTES = 8 * 1024 * 1024
"""The bytes of frames and their JSON kept: the latest moves of many matches at once."""
ANY_SIZE = 2**32 - 1
"""The largest frame a header can announce: the frames cut here are the server's own, and
some (a long game's `game_over` or `watching`) are larger than a client may send."""
LATEST_ONLY = MAX_COUNT
"""`since` asking for a match's latest moves only, wherever it stands."""
MOVED = ("move_accepted", "opponent_moved")
SHOWN = ("watching", "resumed")


@dataclass(frozen=True, slots=True)
class Translation:
    """One frame as a page gets it."""

    text: str
    body: bytes


def weight(translation: Translation) -> int:
    return len(translation.text) + len(translation.body)


Translations = Recent[bytes, Translation]
"""A frame's body -> its translation, the most recent within `TRANSLATION_BYTES`, for all pages."""


@dataclass(frozen=True, slots=True)
class Shared:
    """What every page of one server shares: the translations and the matches' histories."""

    translations: Translations
    histories: Histories
    translating: dict[bytes, trio.Event] = field(default_factory=dict)
    """Frames being translated, set once they are: pages that get one at once (many watchers
    arriving together) wait for one translation rather than each making its own."""


def shared_by_pages() -> Shared:
    return Shared(Recent(TRANSLATION_BYTES, weight), Histories())


class PageInput:
    """A page's WebSocket messages as protocol frames for its session.

    A message that is not JSON (or not text, or a number msgpack cannot hold) is passed on as it
    is, which its session refuses as any client's frame that holds no map, quoting it
    (`not_a_map`); the session checks everything else.

    In version 2, a `watch` of a match whose history the pages follow asks only for the moves
    its history lacks and the latest ones a page lists (`since`): a page is sent the moves into
    the positions it is sent, so watching a long game costs its latest moves, not its length.
    The version is the one the page's `hello` asked for, as its session will speak it.
    """

    def __init__(self, histories: Histories) -> None:
        self._histories = histories
        self._version = VERSIONS[0]

    def frame(self, text: str | bytes) -> bytes:
        as_sent: Any = text  # any value: the session, not this adapter, refuses what is no map
        try:
            message = json.loads(text) if isinstance(text, str) else as_sent
            if isinstance(message, dict):
                self._ask_for_latest_moves(message)
            return encode_frame(message)
        except (ValueError, RecursionError, LocalProtocolError):
            return encode_frame(as_sent)

    def _ask_for_latest_moves(self, message: dict[Any, Any]) -> None:
        kind, match = message.get("type"), message.get("match")
        if kind == "hello" and message.get("version") in VERSIONS:
            self._version = message["version"]
        elif kind == "watch" and self._version >= 2 and isinstance(match, int):
            if "since" in message:
                return
            history = self._histories.get(match)
            if history is not None:
                message["since"] = max(0, history.ply - KEPT_PLIES)
            elif self._histories.awaited(match):
                message["since"] = LATEST_ONLY


class PageWire:
    """The frames of one session, cut from its byte stream and translated for its page."""

    def __init__(self, shared: Shared) -> None:
        self._shared = shared
        self._frames = FrameDecoder(ANY_SIZE)

    async def feed(self, data: bytes) -> list[str]:
        """The page's messages for the bytes the session wrote (whole frames; a frame cut in
        two waits for its rest). A long match shown for the first time may be replayed in a
        thread meanwhile (`history`)."""
        if data:  # (no bytes would mark the end of the stream)
            self._frames.feed(data)
        texts = []
        while isinstance(body := self._frames.next_body(), bytearray):
            texts.append(await self._translate(bytes(body)))
        return texts

    async def _translate(self, body: bytes) -> str:
        """A frame's translation (by its body), the same for every page: a frame that shows a
        position is tied to its match's ply, so it is kept for the others."""
        shared = self._shared
        while (found := shared.translations.get(body)) is None:
            underway = shared.translating.get(body)
            if underway is None:
                break
            await underway.wait()  # and read it back, unless it was too large to keep
        if found is None:
            shared.translating[body] = done = trio.Event()
            try:
                found = Translation(await self._fresh(body), body)
                shared.translations.put(body, found)
            finally:
                del shared.translating[body]
                done.set()
        return found.text

    async def _fresh(self, body: bytes) -> str:
        message: dict[str, Any] = msgpack.unpackb(body, raw=False)
        kind, match = message.get("type"), message.get("match")
        if not isinstance(match, int):
            return dumped(message)
        histories = self._shared.histories
        try:
            if kind == "match_started":  # a match resumed after a restart starts part-played
                game = get_game(message["game"])
                histories.put(
                    match, History.starting_at(game, game.state_from_data(message["state"]))
                )
                return dumped(message, boards=boards_json(game.name))
            if kind in SHOWN:
                return await self._shown(message, match)
            if kind in MOVED:
                return self._moved(message, match)
            if kind == "your_turn" and message.get("legal") is not None:
                playing = histories.game_of(match)
                if playing is not None:
                    return dumped(message, paths=paths_json(playing, message["legal"]))
        except (GameError, KeyError, TypeError):
            pass  # sent as the frame itself says
        return dumped(message)

    def _moved(self, message: dict[str, Any], match: int) -> str:
        """A move with the position it reached (the one its frame carries) and, for a match the
        pages follow, the squares it touched."""
        histories = self._shared.histories
        sent = message.pop("position", None)
        position = histories.played(match, message["ply"], message["move"], sent)
        if position is None and sent is not None:
            position = Position(json.dumps(sent["state"], separators=(",", ":")), sent["to_move"])
        if position is None:
            return dumped(message)
        game = histories.game_of(match)
        if game is None:
            return dumped(message, state=position.text, to_move=position)
        squares = squares_json(game, message["move"])
        return dumped(message, state=position.text, squares=squares, to_move=position)

    async def _shown(self, message: dict[str, Any], match: int) -> str:
        """`watching` or `resumed` with the latest positions of the match up to its moves, and
        the moves into them (`moves` from `moves_from` on)."""
        game, moves = get_game(message["game"]), message.pop("moves")
        moves_from = message.get("moves_from") or 0
        played = moves_from + len(moves)
        histories = self._shared.histories
        history = await histories.shown(match, game, message["options"], moves, moves_from)
        first, positions = (played, []) if history is None else history.up_to(played)
        if not positions:  # not replayable: the position the frame itself holds
            state = game.state_from_data(message["state"])
            first, positions = played, [Position.of(game, state)]
        states = "[" + ",".join(position.text for position in positions) + "]"
        latest = positions[-1] if message["type"] == "watching" else None
        listed_from = max(first - 1, moves_from)  # the move into the first position sent, and on
        listed = moves[listed_from - moves_from :]
        message["moves_from"] = listed_from
        return dumped(
            message,
            moves=json.dumps(listed, separators=(",", ":")),
            states=states,
            states_from=first,
            boards=boards_json(game.name),
            move_squares=each_squares_json(game, listed),
            squares_from=listed_from,
            to_move=latest,
        )


def dumped(
    message: dict[str, Any],
    *,
    to_move: Position | None = None,
    **texts: str | int,
) -> str:
    """`message` as compact JSON, with `texts` added as they are (JSON already, or numbers) and
    the seat to move of position `to_move` (if any)."""
    if to_move is not None:
        message["to_move"] = to_move.to_move
    text = json.dumps(message, separators=(",", ":"))
    added = "".join(f',"{name}":{value}' for name, value in texts.items())
    return text[:-1] + added + "}"
