"""The translation between a page's JSON and the protocol's frames, without a browser: frames
cut anywhere in the session's writes, the positions added, one translation shared by pages."""

from __future__ import annotations

import json
from typing import Any

import msgpack
import trio

from arbiter.games import get_game
from arbiter.protocol import MAX_COUNT, FrameDecoder, encode_frame
from arbiter.server.web.history import AWAIT_SECONDS, KEPT_PLIES, Histories, History
from arbiter.server.web.pages import PageInput, PageWire, shared_by_pages

GAME = "kings-court"


def watching(moves: list[str]) -> dict[str, Any]:
    state = get_game(GAME).initial_state({}).to_data()
    return {
        "type": "watching",
        "match": 3,
        "game": GAME,
        "seats": list(get_game(GAME).seats),
        "players": ["ada", "bob"],
        "options": {},
        "time": {"move": 30},
        "state": state,
        "moves": moves,
    }


def moved(ply: int, move: str) -> dict[str, Any]:
    seat = get_game(GAME).seats[(ply - 1) % 2]
    return {"type": "opponent_moved", "match": 3, "ply": ply, "seat": seat, "move": move}


def frame_of(text: str | bytes) -> Any:
    decoder = FrameDecoder()
    decoder.feed(PageInput(Histories()).frame(text))
    body = decoder.next_body()
    assert isinstance(body, bytearray)
    assert decoder.buffered == 0
    return msgpack.unpackb(body)


def test_a_pages_json_becomes_one_frame_and_anything_else_goes_on_as_it_came() -> None:
    assert frame_of('{"type": "ping", "nonce": 1}') == {"type": "ping", "nonce": 1}
    assert frame_of("{not json") == "{not json"
    assert frame_of("[1, 2]") == [1, 2]
    assert frame_of(b"\x00binary") == b"\x00binary"
    assert frame_of(str(2**70)) == str(2**70)  # a number msgpack cannot hold


async def test_frames_cut_anywhere_are_translated_whole_with_their_positions() -> None:
    game = get_game(GAME)
    first = game.initial_state({}).legal_moves()[0]
    after = game.initial_state({}).play(first)
    second = after.legal_moves()[0]
    texts = [game.format_move(first), game.format_move(second)]
    data = encode_frame(watching(texts[:1])) + encode_frame(moved(2, texts[1]))
    wire = PageWire(shared_by_pages())
    texts = [text for byte in range(len(data)) for text in await wire.feed(data[byte : byte + 1])]
    shown, played = (json.loads(text) for text in texts)
    assert shown["states"] == [game.initial_state({}).to_data(), after.to_data()]
    assert shown["states_from"] == 0
    assert shown["to_move"] == game.seats[after.turn]
    assert played["state"] == after.play(second).to_data()
    assert played["to_move"] == game.seats[after.play(second).turn]


async def test_a_frame_moving_a_match_is_translated_once_for_every_page() -> None:
    game = get_game(GAME)
    first = game.format_move(game.initial_state({}).legal_moves()[0])
    shared = shared_by_pages()
    pages = [PageWire(shared), PageWire(shared)]
    for page in pages:
        await page.feed(encode_frame(watching([])))
    frame = encode_frame(moved(1, first))
    assert await pages[0].feed(frame) == await pages[1].feed(frame)
    history = shared.histories.get(3)
    assert history is not None
    assert history.ply == 1


async def test_a_page_is_sent_what_it_draws_and_clicks_by_from_the_rules() -> None:
    """The game's description of its boards with the match, each move's squares, and the squares
    a person clicks for each legal move: a page knows no game (Shobu here, four boards)."""
    game = get_game("shobu")
    start = game.initial_state(game.resolve_options({}))
    first = game.format_move(start.legal_moves()[0])
    after = start.play(start.legal_moves()[0])
    legal = game.format_moves(after.legal_moves())
    started = {
        "type": "match_started",
        "match": 4,
        "game": "shobu",
        "seat": "white",
        "seats": list(game.seats),
        "players": ["ada", "bob"],
        "options": {},
        "time": {"move": 30},
        "hints": True,
        "state": start.to_data(),
        "illegal": "retry",
    }
    opponent = {"type": "opponent_moved", "match": 4, "ply": 1, "seat": "black", "move": first}
    turn = {"type": "your_turn", "match": 4, "ply": 1, "state": after.to_data(), "legal": legal}
    wire = PageWire(shared_by_pages())
    data = encode_frame(started) + encode_frame(opponent) + encode_frame(turn)
    shown, played, asked = (json.loads(text) for text in await wire.feed(data))
    assert shown["boards"] == game.boards.to_data()
    assert [grid["prefix"] for grid in shown["boards"]["grids"]] == ["wd:", "wl:", "bd:", "bl:"]
    assert played["squares"] == game.boards.square_names(first)
    assert len(played["squares"]) == 4
    assert asked["paths"] == [game.boards.click_names(move) for move in legal]
    assert all(len(path) == 3 for path in asked["paths"])
    watcher = PageWire(shared_by_pages())
    (seen,) = [json.loads(text) for text in await watcher.feed(encode_frame(watching_shobu(first)))]
    assert seen["boards"] == game.boards.to_data()
    assert seen["move_squares"] == [game.boards.square_names(first)]


def watching_shobu(move: str) -> dict[str, Any]:
    game = get_game("shobu")
    start = game.initial_state(game.resolve_options({}))
    return {
        "type": "watching",
        "match": 5,
        "game": "shobu",
        "seats": list(game.seats),
        "players": ["ada", "bob"],
        "options": {},
        "time": {"move": 30},
        "state": start.play(game.parse_move(move)).to_data(),
        "moves": [move],
    }


async def test_a_move_of_version_2_is_shown_in_the_position_the_server_sent_not_replayed() -> None:
    """The page gets the frame's own position (here one the rules would never reach, so a
    replay would show another), flattened into `state` and `to_move` as before."""
    game = get_game(GAME)
    first = game.format_move(game.initial_state({}).legal_moves()[0])
    sent = {"state": game.initial_state({}).to_data(), "to_move": "white"}
    wire = PageWire(shared_by_pages())
    await wire.feed(encode_frame(watching([])))
    (text,) = await wire.feed(encode_frame({**moved(1, first), "position": sent}))
    shown = json.loads(text)
    assert "position" not in shown
    assert shown["state"] == sent["state"]
    assert shown["to_move"] == "white"


async def test_watches_of_a_growing_game_are_sent_its_whole_move_list() -> None:
    game = get_game(GAME)
    state, played = game.initial_state({}), []
    wire = PageWire(shared_by_pages())
    for _ in range(3):
        for _ in range(5):
            move = state.legal_moves()[0]
            played.append(game.format_move(move))
            state = state.play(move)
        message = {**watching(played), "state": state.to_data()}
        (text,) = await wire.feed(encode_frame(message))
        assert json.loads(text)["moves"] == played


def test_a_watch_of_a_followed_match_asks_only_for_the_moves_its_history_lacks() -> None:
    """The history holds the positions up to its ply: the page's `watch` asks for the moves from
    `KEPT_PLIES` before it (the moves into the positions a page is sent), and a match no page
    follows is asked for in full, to be replayed once, and by the next page meanwhile for its
    latest moves only. A page speaking version 1 has no `since`: its watches go as they are."""
    game = get_game(GAME)
    histories = Histories()
    state = game.replay(LONG, long_game(KEPT_PLIES + 44))
    histories.put(3, History.starting_at(game, state))
    decoder = FrameDecoder()
    for version, match, since in ((2, 3, 44), (2, 4, None), (2, 4, MAX_COUNT), (1, 3, None)):
        page = PageInput(histories)
        page.frame(json.dumps({"type": "hello", "version": version, "name": "ann"}))
        decoder.feed(page.frame(json.dumps({"type": "watch", "match": match})))
        body = decoder.next_body()
        assert isinstance(body, bytearray)
        assert msgpack.unpackb(body).get("since") == since


LONG = {"no_capture_limit": 1000}


def long_game(plies: int) -> list[str]:
    """The moves of a King's Court game `plies` long: the first legal move that captures
    nothing, so the game goes on."""
    game = get_game(GAME)
    state, moves = game.initial_state(LONG), []
    while len(moves) < plies:
        pieces = state.to_data()
        move = next(
            (m for m in state.legal_moves() if len(m) == 2 and _quiet(state, m, pieces)),
            state.legal_moves()[0],
        )
        moves.append(game.format_move(move))
        state = state.play(move)
    return moves


def _quiet(state: Any, move: Any, before: dict[str, Any]) -> bool:
    after = state.play(move).to_data()
    return sum(row.count(".") for row in after["board"]) == sum(
        row.count(".") for row in before["board"]
    )


async def test_a_long_watch_from_a_followed_history_lists_the_moves_into_the_positions_sent() -> (
    None
):
    """A watching frame that lists only the latest moves (`moves_from`): the page gets the
    positions its history kept and the moves into them, numbered from where they start."""
    moves = long_game(KEPT_PLIES * 3)
    wire = PageWire(shared_by_pages())
    options = LONG
    await wire.feed(encode_frame({**watching(moves[: KEPT_PLIES * 2]), "options": options}))
    state = get_game(GAME).replay(options, moves)
    tail_from = KEPT_PLIES * 2
    message = {**watching(moves[tail_from:]), "moves_from": tail_from, "options": options}
    (text,) = await wire.feed(encode_frame({**message, "state": state.to_data()}))
    shown = json.loads(text)
    assert shown["states_from"] == len(moves) - KEPT_PLIES + 1
    assert shown["moves_from"] == shown["squares_from"] == len(moves) - KEPT_PLIES
    assert shown["moves"] == moves[len(moves) - KEPT_PLIES :]
    assert len(shown["move_squares"]) == KEPT_PLIES
    assert shown["states"][-1] == state.to_data()


async def test_a_long_replay_keeps_the_latest_positions_and_lets_other_tasks_run() -> None:
    """A match no page followed is replayed on the event loop in slices: the history ends at
    the game's position with the latest `KEPT_PLIES` positions, and a task beside it runs
    between the slices, not only once the replay is done."""
    game = get_game(GAME)
    moves = long_game(KEPT_PLIES * 3)
    histories = Histories()
    ticks: list[int] = []
    progress: list[int] = []

    async def beside() -> None:
        while True:
            ticks.append(len(ticks))
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(beside)
        await trio.lowlevel.checkpoint()
        history = await histories.shown(5, game, LONG, moves)
        progress.append(len(ticks))
        nursery.cancel_scope.cancel()
    assert history is not None
    expected = game.replay(LONG, moves)
    assert history.state.to_data() == expected.to_data()
    assert len(history.kept) == KEPT_PLIES
    last = game.replay(LONG, moves[: len(moves) - 1])
    at = history.at(len(moves) - 1)
    assert at is not None
    assert json.loads(at.text) == last.to_data()
    assert progress[0] >= 8  # the task ran between the slices (some tens of them)


async def test_pages_getting_one_long_frame_at_once_wait_for_one_translation() -> None:
    """Many pages starting to watch a long game together get its frame at once: one translates
    it (the replay and the JSON) and the others are given that same text, not one of their own."""
    moves = long_game(KEPT_PLIES * 3)
    shared = shared_by_pages()
    body = encode_frame({**watching(moves), "options": LONG})
    texts: list[str] = []

    async def page() -> None:
        (text,) = await PageWire(shared).feed(body)
        texts.append(text)

    async with trio.open_nursery() as nursery:
        for _ in range(8):
            nursery.start_soon(page)
    assert len(texts) == 8
    assert len({id(text) for text in texts}) == 1
    assert json.loads(texts[0])["moves"] == moves[len(moves) - KEPT_PLIES :]


def latest_of(moves: list[str]) -> dict[str, Any]:
    """The `watching` frame a page asking for the latest moves only is sent: its moves from the
    last multiple of 256 (the server's snapshot step), with the position they reach."""
    moves_from = len(moves) // 256 * 256
    state = get_game(GAME).replay(LONG, moves)
    return {
        **watching(moves[moves_from:]),
        "moves_from": moves_from,
        "options": LONG,
        "state": state.to_data(),
    }


async def test_a_page_asking_for_the_latest_moves_waits_for_the_history_another_is_sent() -> None:
    """Two pages start watching a long game no page follows: the first is sent every move, the
    second only the latest and, translated first, it waits for the first's history, so it is
    shown the same latest positions as if it had been sent every move itself."""
    moves = long_game(KEPT_PLIES * 3 + 10)
    shared = shared_by_pages()
    assert not shared.histories.awaited(9)  # the first page asks for every move
    assert shared.histories.awaited(9)  # the second for the latest only
    shown: dict[str, Any] = {}

    async def page(name: str, message: dict[str, Any]) -> None:
        (text,) = await PageWire(shared).feed(encode_frame({**message, "match": 9}))
        shown[name] = json.loads(text)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(page, "latest", latest_of(moves))
        await trio.sleep(0.05)
        assert "latest" not in shown  # waiting for the history
        nursery.start_soon(page, "whole", {**watching(moves), "options": LONG})
    assert shown["latest"]["states"] == shown["whole"]["states"]
    assert len(shown["latest"]["states"]) == KEPT_PLIES
    assert shown["latest"]["states_from"] == len(moves) - KEPT_PLIES + 1


async def test_a_page_waits_a_bounded_time_for_a_history_whose_frame_never_comes(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The page sent every move left before its frame came: the next page is shown the position
    its own frame holds after `AWAIT_SECONDS`, and the page after it asks for every move."""
    moves = long_game(KEPT_PLIES + 20)
    shared = shared_by_pages()
    assert not shared.histories.awaited(9)
    assert shared.histories.awaited(9)
    began = trio.current_time()
    (text,) = await PageWire(shared).feed(encode_frame({**latest_of(moves), "match": 9}))
    assert trio.current_time() - began >= AWAIT_SECONDS
    assert len(json.loads(text)["states"]) == 1
    assert not shared.histories.awaited(9)
