"""The attacks on the web front (`--http`): browsers' WebSockets watching a very long live game
or never reading, HTTP floods of pages and records, and requests whose body never comes. Each is
bounded in connections, requests and time; bench/abuse.py runs them."""

from __future__ import annotations

import json
import random
import statistics
from typing import Any

import trio
from attacking import (
    CLOSED,
    HOST,
    VERSION,
    Attack,
    HttpLink,
    Link,
    Target,
    Verdict,
    hello,
    holds_back,
    open_websocket,
    until_closed_unread,
)
from trio_websocket import ConnectionClosed, HandshakeError, WebSocketConnection

from arbiter.games import get_game
from arbiter.games.kings_court import KingsCourtState, Move

# -- a very long live game ---------------------------------------------------------------------

LONG_FROM = "127.0.0.6"
LONG_LIMIT = 1000
"""King's Court's longest no-capture limit: a game may run to 49,049 plies."""
LONG_PLIES = 20_000
LONG_SECONDS = 30.0
"""The long game is played fast until it has `LONG_PLIES` moves or for this long at most."""
SLOW_MOVE_SECONDS = 0.2
"""Its pace once watched: still live, no longer a load of its own."""


class LongGame:
    """Two players making a King's Court game as long as they can: quiet slides until a move
    more would end it by the no-capture limit, then a capture."""

    def __init__(self) -> None:
        self.match: int | None = None
        self.ply = 0
        self.fast = True
        self.over = trio.Event()
        self.game = get_game("kings-court")

    async def play(self, target: Target, nursery: trio.Nursery) -> None:
        for mine, theirs in (("long-a", "long-b"), ("long-b", "long-a")):
            link = await hello(target, Verdict(), mine, LONG_FROM)
            options = {"no_capture_limit": LONG_LIMIT}
            seek = {"type": "seek", "game": "kings-court", "options": options}
            await link.send({**seek, "time": {"move": 60}, "opponent": theirs, "hints": False})
            nursery.start_soon(self.seat, link)

    async def seat(self, link: Link) -> None:
        try:
            while True:
                frame = await link.receive()
                kind = frame["type"]
                if kind == "ping":
                    await link.send({"type": "pong", "nonce": frame["nonce"]})
                elif kind == "match_started":
                    self.match = frame["match"]
                elif kind == "your_turn":
                    state = self.game.state_from_data(frame["state"])
                    self.ply = state.ply
                    if not self.fast:
                        await trio.sleep(SLOW_MOVE_SECONDS)
                    move = self.game.format_move(long_move(state))
                    await link.send({"type": "move", "match": frame["match"], "move": move})
                elif kind == "game_over":
                    break
        except CLOSED:
            pass
        self.over.set()


def long_move(state: KingsCourtState) -> Move:
    moves = state.legal_moves()
    if state.since_capture < state.no_capture_limit - 4:
        quiet = [move for move in moves if len(move) == 2 and not captures(state, move)]
        return random.choice(quiet or moves)
    return random.choice([move for move in moves if captures(state, move)] or moves)


def captures(state: KingsCourtState, move: Move) -> bool:
    theirs = 1 - state.turn
    return state.play(move).piece_count(theirs) < state.piece_count(theirs)


async def prepare_long_game(target: Target, nursery: trio.Nursery) -> None:
    long_game = LongGame()
    target.long_game = long_game
    began = trio.current_time()
    await long_game.play(target, nursery)
    with trio.move_on_after(LONG_SECONDS):
        # A ply count read a fifth of a second late costs nothing; an event per ply would.
        while long_game.ply < LONG_PLIES and not long_game.over.is_set():  # noqa: ASYNC110
            await trio.sleep(0.2)
    long_game.fast = False
    seconds = trio.current_time() - began
    print(f"  (long game: {long_game.ply:,} moves in {seconds:.0f} s)", flush=True)


WATCHERS = 64
WATCH_ADDRESSES = 4
WATCH_ROUNDS = 4


async def long_watch(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """64 browsers (WebSockets from 4 addresses) each watching the long live game, reading its
    whole history, leaving and watching again (4 times at most)."""
    assert isinstance(target.long_game, LongGame)
    match = target.long_game.match
    watched: list[float] = []
    for index in range(WATCHERS):
        verdict.connections += 1
        nursery.start_soon(watcher, target, verdict, match, index, watched)
    nursery.start_soon(count_watches, verdict, watched, target.long_game)


async def watcher(
    target: Target, verdict: Verdict, match: int | None, index: int, watched: list[float]
) -> None:
    address = target.address(index % WATCH_ADDRESSES)
    began = trio.current_time()
    try:
        for _ in range(WATCH_ROUNDS):
            async with trio.open_nursery() as own:
                websocket, _ = await open_websocket(target, own, address)
                await send_json(
                    websocket, {"type": "hello", "version": VERSION, "name": f"w{index}"}
                )
                await send_json(websocket, {"type": "watch", "match": match})
                asked = trio.current_time()
                while not await snapshot_or_limit(websocket):
                    pass
                watched.append(trio.current_time() - asked)
                await websocket.aclose()
    except (*CLOSED, ConnectionClosed, HandshakeError, HeldBack):
        verdict.note(began)


class HeldBack(Exception):
    """The server named a limit."""


async def snapshot_or_limit(websocket: WebSocketConnection) -> bool:
    """Read one message: True for the `watching` snapshot, HeldBack for a limit's error."""
    text = await websocket.get_message()
    head = text[:120] if isinstance(text, str) else ""
    if '"watching"' in head:
        return True
    if '"error"' in head and holds_back(json.loads(text)["code"]):
        raise HeldBack
    if '"ping"' in head:
        await send_json(websocket, {"type": "pong", "nonce": json.loads(text)["nonce"]})
    return False


async def send_json(websocket: WebSocketConnection, payload: dict[str, Any]) -> None:
    await websocket.send_message(json.dumps(payload))


async def count_watches(verdict: Verdict, watched: list[float], long_game: LongGame) -> None:
    try:
        await trio.sleep_forever()
    finally:
        median = f", {statistics.median(watched):.2f} s each (median)" if watched else ""
        verdict.notes.append(
            f"{len(watched)} watches of a {long_game.ply:,}-move live game{median}"
        )


async def ws_non_readers(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """64 browsers from one address following the lobby and watching the bots' matches, never
    reading (their WebSocket's reader stops at the first message waiting); and the long game,
    if `long-watch` made one."""
    streams = []
    watched = target.live_matches[-2:]
    if isinstance(target.long_game, LongGame) and target.long_game.match is not None:
        watched.append(target.long_game.match)
    for index in range(64):
        verdict.connections += 1
        try:
            websocket, stream = await open_websocket(target, nursery, target.address(), queue=0)
            await send_json(websocket, {"type": "hello", "version": VERSION, "name": f"nr{index}"})
            await send_json(websocket, {"type": "lobby", "follow": True})
            for match in watched:
                await send_json(websocket, {"type": "watch", "match": match})
        except (*CLOSED, ConnectionClosed, HandshakeError):
            verdict.note()
            continue
        streams.append(stream)
        nursery.start_soon(until_closed_unread, stream.socket, trio.current_time(), verdict)
    nursery.start_soon(close_all_at_the_end, streams)


async def close_all_at_the_end(streams: list[trio.SocketStream]) -> None:
    try:
        await trio.sleep_forever()
    finally:
        for stream in streams:
            await trio.aclose_forcefully(stream)


# -- HTTP --------------------------------------------------------------------------------------

HTTP_CONNECTIONS = 64
REQUESTS_PER_CONNECTION = 2000
REFUSED = {429, 503}
"""HTTP statuses that hold a client back."""


def http_flood(path: str, what: str) -> Attack:
    async def run(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
        answered: list[int] = []
        for _ in range(HTTP_CONNECTIONS):
            verdict.connections += 1
            try:
                link = await HttpLink.open(target, target.address())
            except OSError:
                verdict.note()
                continue
            nursery.start_soon(hammer, link, path, verdict, answered)
        nursery.start_soon(count_answers, verdict, answered)

    run.__doc__ = f"64 connections from one address asking for {what} ({path}) one after another"
    return Attack(f"http-{what}", run)


async def hammer(link: HttpLink, path: str, verdict: Verdict, answered: list[int]) -> None:
    """Ask for `path` again and again until refused, hung up on, or done."""
    try:
        for _ in range(REQUESTS_PER_CONNECTION):
            status, _ = await link.get(path)
            answered.append(status)
            if status in REFUSED:
                verdict.note(link.opened)
                return
    except CLOSED:
        verdict.note(link.opened)


async def count_answers(verdict: Verdict, answered: list[int]) -> None:
    try:
        await trio.sleep_forever()
    finally:
        refused = sum(status in REFUSED for status in answered)
        verdict.notes.append(f"{len(answered)} requests answered, {refused} of them refused")


SLOW_REQUESTS = 200
SLOW_REQUEST = f"GET / HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: 1000000\r\n\r\n".encode()


async def http_slowloris(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """200 requests from one address announcing a 1,000,000-byte body and sending none of it
    (a GET: a method the page refuses is answered and closed at once)."""
    for _ in range(SLOW_REQUESTS):
        verdict.connections += 1
        try:
            link = await HttpLink.open(target, target.address())
            await link.stream.send_all(SLOW_REQUEST)
        except OSError:
            verdict.note()
            continue
        nursery.start_soon(until_hung_up, link, verdict)


async def until_hung_up(link: HttpLink, verdict: Verdict) -> None:
    """Read (and drop) whatever comes until the server closes the connection."""
    try:
        while await link.stream.receive_some(65536):
            pass
    except CLOSED:
        pass
    verdict.note(link.opened)


ATTACKS = [
    Attack("long-watch", long_watch, prepare=prepare_long_game, within_limits=True),
    Attack("ws-non-readers", ws_non_readers),
    http_flood("/records/player/bot-0", "player"),
    http_flood("/", "home"),
    Attack("http-slowloris", http_slowloris),
]
