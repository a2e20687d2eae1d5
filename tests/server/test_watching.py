"""Watching on memory streams: a live match's snapshot is built once per move and shared, a
repeated watch is refused cheaply, a finished match is read back once, and a match never
outgrows the move list a message can carry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from arbiter import protocol
from arbiter.server.play import messages
from arbiter.server.play.lobby import Lobby
from arbiter.server.play.match import Match
from arbiter.server.play.messages import Table
from arbiter.server.play.snapshots import Shown, snapshots
from tests.server.memory import Client, connect, lobby_on_file, pair


async def play(first: Client, second: Client, plies: int) -> None:
    """Both seats play their first hinted move, `plies` moves in all."""
    clients = (first, second)
    for ply in range(plies):
        mover = clients[ply % 2]
        turn = await mover.expect(protocol.YourTurn)
        assert turn.legal is not None
        await mover.send(protocol.Move(match=turn.match, move=turn.legal[0]))
        await mover.expect(protocol.MoveAccepted)
        await clients[1 - ply % 2].expect(protocol.OpponentMoved)


@asynccontextmanager
async def a_match(
    tmp_path: Path, nursery: trio.Nursery, plies: int
) -> AsyncIterator[tuple[Lobby, Client, Client, Match]]:
    """A lobby, and a King's Court match between ann and bob after `plies` moves."""
    async with lobby_on_file(tmp_path / "arbiter.db") as lobby:
        ann, bob, match = await pair(lobby, nursery, time={"move": 60.0})
        await play(ann, bob, plies)
        yield lobby, ann, bob, match


async def resigned(ann: Client, bob: Client, match: Match) -> None:
    """Ann resigns; once the result is stored, the match is a finished one."""
    await ann.send(protocol.Resign(match=match.id))
    await bob.expect(protocol.GameOver)
    await trio.testing.wait_all_tasks_blocked()


async def watcher(lobby: Lobby, nursery: trio.Nursery, match: Match, name: str) -> Client:
    client = await connect(lobby, nursery, name)
    await client.send(protocol.Watch(match=match.id))
    await client.expect(protocol.Watching)
    return client


async def test_every_spectator_is_shown_one_snapshot_per_move_and_a_second_watch_is_refused(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    async with a_match(tmp_path, nursery, 2) as (lobby, ann, bob, match):
        shown = match.snapshot()
        cat = await watcher(lobby, nursery, match, "cat")
        await watcher(lobby, nursery, match, "dan")
        assert match.snapshot() is shown  # built once for both
        await cat.send(*[protocol.Watch(match=match.id)] * 100)
        for _ in range(100):
            error = await cat.expect(protocol.Error)
            assert error.code == protocol.ErrorCode.ALREADY_WATCHING
        await play(ann, bob, 1)
        moved = await cat.expect(protocol.OpponentMoved)  # still watching, once
        assert moved.ply == 3
        assert match.snapshot() is not shown


async def test_a_finished_match_is_read_back_once_for_every_spectator(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    async with a_match(tmp_path, nursery, 4) as (lobby, ann, bob, match):
        await resigned(ann, bob, match)
        views = []
        for name in ("cat", "dan"):
            client = await connect(lobby, nursery, name)
            await client.send(protocol.Watch(match=match.id))
            views.append(
                (await client.expect(protocol.Watching), await client.expect(protocol.GameOver))
            )
        assert views[0] == views[1]
        assert len(views[0][0].moves) == 4
        kept = lobby.snapshots.get(match.id)
        assert kept is not None
        assert kept[0].message == views[0][0]


async def test_spectators_asking_at_once_for_a_finished_match_wait_for_one_reading(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    async with a_match(tmp_path, nursery, 6) as (lobby, ann, bob, match):
        await resigned(ann, bob, match)
        storage = lobby.storage
        reads: list[int] = []
        load_match = storage.load_match

        async def counted(match_id: int) -> Any:
            reads.append(match_id)
            return await load_match(match_id)

        storage.load_match = counted  # type: ignore[method-assign]
        clients = [await connect(lobby, nursery, f"fan{number}") for number in range(8)]
        for client in clients:
            await client.send(protocol.Watch(match=match.id))
        views = [await client.expect(protocol.Watching) for client in clients]
        assert reads == [match.id]
        assert all(view == views[0] for view in views)
        assert len(views[0].moves) == 6


async def test_a_finished_match_is_shown_once_per_connection(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    """A finished match does not change: watching it again is refused, cheaply, however often."""
    async with a_match(tmp_path, nursery, 2) as (lobby, ann, bob, match):
        await resigned(ann, bob, match)
        cat = await connect(lobby, nursery, "cat")
        await cat.send(*[protocol.Watch(match=match.id)] * 50, protocol.Ping(nonce=7))
        await cat.expect(protocol.Watching)
        await cat.expect(protocol.GameOver)
        for _ in range(49):
            error = await cat.expect(protocol.Error)
            assert (error.code, error.match) == (protocol.ErrorCode.ALREADY_WATCHING, match.id)
        assert (await cat.expect(protocol.Pong)).nonce == 7
        dan = await connect(lobby, nursery, "dan")  # another connection is shown it
        await dan.send(protocol.Watch(match=match.id))
        assert len((await dan.expect(protocol.Watching)).moves) == 2


async def test_a_match_that_reaches_the_most_moves_a_message_carries_is_drawn(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    async with a_match(tmp_path, nursery, 0) as (lobby, ann, bob, match):
        match.max_moves = 6  # as if 65,536, for a game whose rules would allow more
        cat = await watcher(lobby, nursery, match, "cat")
        await play(ann, bob, 6)
        for client in (ann, bob, cat):
            while not isinstance(message := await client.receive(), protocol.GameOver):
                assert not isinstance(message, protocol.Error), message
            assert message.result == "draw"
            assert len(message.moves) == 6
            assert "the most a message can carry" in message.reason


def test_kept_snapshots_stay_within_their_bytes_and_the_least_recently_watched_go_first() -> None:
    def shown(moves: int) -> Shown:
        over = protocol.GameOver(
            match=1, result="draw", winner=None, reason="r", state={}, moves=["B4C4"] * moves
        )
        return protocol.Encoded(over), protocol.Encoded(over)

    size = 2 * len(shown(1000)[0].frame)
    kept = snapshots(limit=2 * size)
    kept.put(1, shown(1000))
    kept.put(2, shown(1000))
    assert kept.get(1) is not None  # 1 is now the most recently watched
    kept.put(3, shown(1000))
    assert kept.get(2) is None
    assert kept.get(1) is not None
    assert kept.get(3) is not None
    assert kept.size == 2 * size
    kept.put(4, shown(10_000))  # larger than all it may keep: not kept, nothing dropped
    assert kept.get(4) is None
    assert kept.size == 2 * size


@given(st.integers(min_value=0, max_value=5000) | st.none(), st.integers(0, 5000))
def test_a_snapshot_starts_at_a_shared_step_at_or_before_the_moves_a_spectator_lacks(
    since: int | None, played: int
) -> None:
    start = messages.snapshot_start(since, ["a1b1"] * played)
    assert 0 <= start <= (played if since is None else min(since, played))
    assert start % messages.SNAPSHOT_STEP == 0
    assert start == 0 or (since is not None and start > min(since, played) - messages.SNAPSHOT_STEP)


async def test_a_spectator_that_knows_the_first_moves_is_shown_the_rest(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    """`since` is a hint the server rounds down to a step: a short game is listed in full, and
    the snapshot lists the moves from `moves_from` on, as the table holds them."""
    async with a_match(tmp_path, nursery, 3) as (lobby, _, _, match):
        cat = await connect(lobby, nursery, "cat")
        await cat.send(protocol.Watch(match=match.id, since=2))
        shown = await cat.expect(protocol.Watching)
        assert (shown.moves_from, shown.moves) == (0, match.moves)
        long = Table(1, match.game, ["ann", "bob"], {}, {}, match.table().position, ["m"] * 600)
        tail = messages.watching(long, messages.snapshot_start(599, long.moves))
        assert (tail.moves_from, len(tail.moves)) == (512, 88)
