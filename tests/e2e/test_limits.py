"""What clients can make the server hold is bounded: a client that does not read is cut off
with an error saying why, and the others play on."""

from __future__ import annotations

import random
import socket

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ServerError
from arbiter.server.connection.limits import Limits
from tests.e2e.helpers import Dial, RawPeer, hello, packed, seek, until


async def unread_requests(peer: RawPeer, count: int) -> None:
    """Ask for the games list `count` times (about 3 KB each) without reading the answers."""
    peer.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await peer.stream.send_all(packed(type="list_games") * count)


def is_slide(move: str) -> bool:
    """A King's Court move between adjacent squares (`B4C4`)."""
    return abs(ord(move[0]) - ord(move[2])) + abs(int(move[1]) - int(move[3])) == 1


async def frames_until_closed(peer: RawPeer) -> list[dict[str, object]]:
    """Every frame until the server closes; read through a normal receive buffer again, as a
    4 KiB window behind loopback's 64 KiB segments advances only on the kernel's window probes
    (seconds, past the server's flush deadline, for what its writer had in hand)."""
    peer.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    frames = []
    with trio.fail_after(5):
        while (frame := await peer.read_frame()) is not None:
            frames.append(frame)
    return frames


@pytest.mark.limits(Limits(output_bytes=64 * 1024))
async def test_a_client_that_does_not_read_is_cut_off_with_output_limit(
    dial: Dial,
) -> None:
    peer = await dial.raw()
    await hello(peer)
    await unread_requests(peer, 2000)
    await trio.sleep(0.5)  # the server reads on and queues the answers, past the limit
    frames = await frames_until_closed(peer)
    last = frames[-1]
    assert (last["type"], last["code"]) == ("error", "output_limit"), last
    assert "per connection" in str(last["message"])
    assert sum(frame["type"] == "games" for frame in frames) < 2000


@pytest.mark.limits(Limits(output_bytes=4 * 1024 * 1024, output_budget=256 * 1024))
async def test_past_the_budget_the_largest_backlog_is_cut_and_the_others_kept(
    dial: Dial,
) -> None:
    greedy, modest = await dial.raw(), await dial.raw()
    await hello(greedy)
    await hello(modest)
    await unread_requests(modest, 30)
    await trio.sleep(0.2)
    await unread_requests(greedy, 2000)
    await trio.sleep(0.5)
    frames = await frames_until_closed(greedy)
    assert frames[-1]["code"] == "output_limit", frames[-1]
    assert "the most of any client" in str(frames[-1]["message"])
    await modest.stream.send_all(packed(type="ping", nonce=99))
    answers = []
    with trio.fail_after(5):
        while not answers or answers[-1]["type"] != "pong":
            frame = await modest.read_frame()
            assert frame is not None
            answers.append(frame)
    assert [frame["type"] for frame in answers] == ["games"] * 30 + ["pong"]


@pytest.mark.limits(Limits(seeks_per_connection=3, seeks=5))
async def test_open_seeks_are_capped_per_connection_and_on_the_server(
    dial: Dial,
) -> None:
    hoarder = await dial.client("hoarder")
    for limit in (10, 11, 12):
        assert isinstance(await seek(hoarder, no_capture_limit=limit), protocol.Seeking)
    with pytest.raises(ServerError, match="too_many_seeks: you have 3 open seeks"):
        await seek(hoarder, no_capture_limit=13)
    other = await dial.client("other")
    for limit in (20, 21):
        assert isinstance(await seek(other, no_capture_limit=limit), protocol.Seeking)
    third = await dial.client("third")
    with pytest.raises(ServerError, match="too_many_seeks: the server holds 5 open seeks"):
        await seek(third, no_capture_limit=30)
    assert isinstance(await seek(third, no_capture_limit=10), protocol.MatchStarted)  # pairs
    await hoarder.send(
        protocol.Seek(game="kings-court", options={"no_capture_limit": 13}, time={"move": 5.0})
    )
    await until(hoarder, protocol.Seeking)  # room again, once one was paired


async def test_an_option_past_what_a_game_can_finish_in_is_refused_naming_its_range(
    dial: Dial,
) -> None:
    client = await dial.client("attacker")
    with pytest.raises(ServerError, match=r"bad_option: .* must be from 1 to 1000, not 4611"):
        await seek(client, no_capture_limit=2**62)
    with pytest.raises(ServerError, match=r"bad_option: .* must be from 1 to 2000"):
        await seek(client, game="shobu", no_capture_limit=10_000)


async def test_a_long_game_at_the_widest_option_can_be_watched_and_resigned(
    dial: Dial,
) -> None:
    ann, bob = await dial.client("ann"), await dial.client("bob")
    await seek(ann, no_capture_limit=1000)
    await seek(bob, no_capture_limit=1000)
    started = await until(ann, protocol.MatchStarted)
    players = {"white": ann, "black": bob}
    rng = random.Random(14)
    mover = ann
    with trio.fail_after(30):
        for _ in range(300):  # slides only: they never capture, so the game goes on
            turn = await until(mover, protocol.YourTurn)
            assert turn.legal is not None
            slides = [move for move in turn.legal if len(move) == 4 and is_slide(move)]
            await mover.send(protocol.Move(match=turn.match, move=rng.choice(slides)))
            moved = await until(mover, protocol.MoveAccepted)
            mover = players["black" if moved.ply % 2 else "white"]
    cat = await dial.client("cat")
    await cat.send(protocol.Watch(match=started.match))
    watching = await until(cat, protocol.Watching)
    assert len(watching.moves) == 300
    assert watching.options == {"no_capture_limit": 1000}
    await ann.send(protocol.Resign(match=started.match))
    for client in (ann, bob, cat):
        over = await until(client, protocol.GameOver)
        assert over.result == "win"
        assert over.winner == "black"
        assert len(over.moves) == 300
