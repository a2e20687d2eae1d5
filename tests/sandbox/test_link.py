"""The channel: the relay inside and the link outside carry an agent's connection byte-exact
in both directions, half-closes included, and the link reports each frame that passes."""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.lowlevel
import trio.testing

from arbiter.client.sandbox.launch import relay_command
from arbiter.client.sandbox.limits import Limits
from arbiter.client.sandbox.link import Direction, link
from arbiter.client.sandbox.process import sandboxed
from arbiter.protocol import FrameDecoder, encode_frame
from tests.sandbox.helpers import code_folder, need_bwrap

pytestmark = pytest.mark.usefixtures("bwrap")
SIZE = 1_000_000


@pytest.fixture
def bwrap() -> None:
    need_bwrap()


AGENT = f"""
import hashlib, os, random, socket
host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
data = random.Random(1).randbytes({SIZE})
with socket.create_connection((host, int(port))) as connection:
    for start in range(0, len(data), 7919):  # odd-sized writes: no chunk boundary is kept
        connection.sendall(data[start : start + 7919])
    connection.shutdown(socket.SHUT_WR)  # the end of its side passes, and the reply still comes
    got = bytearray()
    while chunk := connection.recv(65536):
        got += chunk
print("agent got", hashlib.sha256(got).hexdigest())
"""


async def test_a_megabyte_each_way_passes_byte_exact(tmp_path: Path) -> None:
    reply = random.Random(2).randbytes(SIZE)
    received = bytearray()

    async def server(stream: trio.SocketStream) -> None:
        while chunk := await stream.receive_some(65536):
            received.extend(chunk)
        await stream.send_all(reply)
        await stream.aclose()

    code = code_folder(tmp_path, AGENT)
    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(partial(trio.serve_tcp, server, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        command = relay_command(port, [sys.executable, str(code / "agent.py")])
        async with sandboxed(command, Limits(wall_seconds=30), code=[code]) as sandbox:
            await link(
                sandbox.channel, sandbox.channel, partial(trio.open_tcp_stream, "127.0.0.1", port)
            )
            ended = await sandbox.ended()
        nursery.cancel_scope.cancel()
    assert ended.normal, (ended, sandbox.output())
    assert bytes(received) == random.Random(1).randbytes(SIZE)
    assert f"agent got {hashlib.sha256(reply).hexdigest()}" in sandbox.output().decode()


def dialling(stream: trio.abc.Stream) -> Callable[[], Awaitable[trio.abc.Stream]]:
    """A dialler that connects to `stream`."""

    async def dial() -> trio.abc.Stream:
        return stream

    return dial


async def test_the_server_is_dialled_when_the_agent_first_speaks_and_never_for_a_silent_one() -> (
    None
):
    dialled: list[int] = []
    to_agent, from_server = trio.testing.memory_stream_pair()

    async def dial() -> trio.abc.Stream:
        dialled.append(1)
        return to_agent

    agent_in, _agent_reads = trio.testing.memory_stream_pair()
    agent_writer, agent_out = trio.testing.memory_stream_pair()
    hello = encode_frame({"type": "hello", "name": "bot"})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(link, agent_out, agent_in, dial)
        await trio.testing.wait_all_tasks_blocked()
        assert dialled == []  # a slow starter's hello deadline has not begun
        await agent_writer.send_all(hello)
        assert await _read(from_server, len(hello)) == hello
        assert dialled == [1]
        await agent_writer.aclose()
        await from_server.aclose()

    silent_in, silent_reads = trio.testing.memory_stream_pair()
    silent_writer, silent_out = trio.testing.memory_stream_pair()
    await silent_writer.aclose()
    await link(silent_out, silent_in, dial)
    assert dialled == [1]
    assert await silent_reads.receive_some(1) == b""  # its side was ended


async def test_a_server_that_cannot_be_reached_ends_the_agents_side_and_says_so() -> None:
    async def refused() -> trio.abc.Stream:
        raise OSError("cannot connect to 127.0.0.1:9: is an Arbiter server listening there?")

    agent_in, agent_reads = trio.testing.memory_stream_pair()
    agent_writer, agent_out = trio.testing.memory_stream_pair()
    await agent_writer.send_all(encode_frame({"type": "hello", "name": "bot"}))
    with pytest.raises(OSError, match=r"cannot connect to 127\.0\.0\.1:9"):
        await link(agent_out, agent_in, refused)
    assert await agent_reads.receive_some(1) == b""


def _noting(frames: list[tuple[Direction, bytes]]) -> Callable[[Direction, bytes], bytes]:
    def note(direction: Direction, body: bytes) -> bytes:
        frames.append((direction, body))
        return body

    return note


async def test_the_link_reports_each_frame_in_each_direction() -> None:
    to_agent, from_server = trio.testing.memory_stream_pair()
    agent_in, agent_out_reader = trio.testing.memory_stream_pair()
    agent_writer, agent_out = trio.testing.memory_stream_pair()
    frames: list[tuple[Direction, bytes]] = []
    hello = encode_frame({"type": "hello", "name": "bot"})
    welcome = encode_frame({"type": "welcome"})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(link, agent_out, agent_in, dialling(to_agent), _noting(frames))
        for byte in hello:  # one byte at a time: frames are whole however the bytes come
            await agent_writer.send_all(bytes([byte]))
        assert await _read(from_server, len(hello)) == hello
        await from_server.send_all(welcome)
        assert await _read(agent_out_reader, len(welcome)) == welcome
        await agent_writer.aclose()
        await from_server.aclose()
    assert frames == [(Direction.TO_SERVER, hello[4:]), (Direction.TO_AGENT, welcome[4:])]


async def _read(stream: trio.abc.ReceiveStream, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        data += await stream.receive_some(size - len(data))
    return bytes(data)


async def test_the_workers_frames_go_whole_between_the_agents_and_dropped_ones_never() -> None:
    """The server reads slowly (a lockstep stream: each send waits for its reader), so the
    agent's frames and the worker's are sent at the same time: each arrives whole, the agent's
    in order, and the ones the hook drops never arrive."""
    to_agent, from_server = trio.testing.lockstep_stream_pair()
    agent_in, _agent_reads = trio.testing.memory_stream_pair()
    agent_writer, agent_out = trio.testing.memory_stream_pair()
    worker_sends, worker_frames = trio.open_memory_channel[bytes](100)
    agent = [encode_frame({"type": "move", "n": n}) for n in range(200)]
    worker = [encode_frame({"type": "out_of_cpu", "n": n}) for n in range(50)]

    def drop_odd_moves(direction: Direction, body: bytes) -> bytes | None:
        return None if body[-1] % 2 else body  # the last byte is `n`, under 256

    received = bytearray()

    async def read_slowly() -> None:
        while chunk := await from_server.receive_some(7):
            received.extend(chunk)
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_slowly)
        nursery.start_soon(
            link, agent_out, agent_in, dialling(to_agent), drop_odd_moves, worker_frames
        )
        async with worker_sends:
            for index, frame in enumerate(agent):
                await agent_writer.send_all(frame)
                if index % 4 == 0:
                    await worker_sends.send(worker[index // 4][4:])
        await trio.testing.wait_all_tasks_blocked()  # all sent: then the agent's side ends
        await agent_writer.aclose()
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    decoder = FrameDecoder()
    decoder.feed(received)
    frames = []
    while isinstance(message := decoder.next_frame(), dict):
        frames.append(message)
    assert [f["n"] for f in frames if f["type"] == "move"] == list(range(0, 200, 2))
    assert [f["n"] for f in frames if f["type"] == "out_of_cpu"] == list(range(50))
