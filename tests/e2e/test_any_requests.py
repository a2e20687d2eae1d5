"""Whatever well-formed requests a client sends, in any order, the server answers each one and
stays up: a property over real TCP, with two bots playing on the same server meanwhile, so moves,
resignations and watches can name live matches that are not the sender's."""

from __future__ import annotations

import dataclasses
import itertools
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter import protocol
from arbiter.protocol import CLIENT, MESSAGE_TYPES, ErrorCode, FrameDecoder, encode_frame
from tests.processes import CLI, start_server, stop
from tests.protocol.test_messages import messages

BOT = [*CLI, "bot", "--game", "kings-court", "--agent", "random"]
CLIENT_TYPES = [cls for cls in MESSAGE_TYPES.values() if CLIENT in cls.SENDERS]
LAST_PING = 2**53
"""The nonce of the ping each example ends with: its pong proves every request was answered."""
names = itertools.count()


def with_live_ids(message: protocol.Message) -> st.SearchStrategy[protocol.Message]:
    """The message, or, half the time when it names a match, the same naming one of the first
    few matches instead (the bots' games, live or finished)."""
    if not any(field.name == "match" for field in dataclasses.fields(message)):
        return st.just(message)
    return st.just(message) | st.builds(
        lambda match: dataclasses.replace(message, match=match), st.integers(1, 4)
    )


REQUESTS = st.lists(messages(CLIENT_TYPES).flatmap(with_live_ids), max_size=8)


@pytest.fixture(scope="module")
def busy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A server process on a free port, with two random bots playing King's Court on it until
    the module's tests end; yields its port."""
    db = tmp_path_factory.mktemp("busy") / "arbiter.db"
    server, address = start_server(db)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        for name in ("bot-a", "bot-b"):
            bot = [*BOT, "--server", address, "--name", name, "--games", "10000"]
            bots.append(subprocess.Popen(bot, stdout=subprocess.DEVNULL))
        with sqlite3.connect(db) as reader:  # until the bots' first match is stored
            deadline = time.monotonic() + 10
            while not reader.execute("SELECT count(*) FROM moves").fetchone()[0]:
                assert time.monotonic() < deadline, "the bots never started playing"
                time.sleep(0.02)
        yield int(address.rsplit(":", 1)[1])
    finally:
        for process in (*bots, server):
            stop(process)


async def answers_to(port: int, requests: list[protocol.Message]) -> list[dict[str, Any]]:
    """Say hello, send `requests` and a last ping in one write; every frame until its pong."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        hello = protocol.Hello(version=protocol.PROTOCOL_VERSION, name=f"prober-{next(names)}")
        frames = [*requests, protocol.Ping(nonce=LAST_PING)]
        await stream.send_all(b"".join(encode_frame(m.to_wire()) for m in [hello, *frames]))
        decoder = FrameDecoder(max_frame=1 << 24)
        seen: list[dict[str, Any]] = []
        with trio.fail_after(10):
            while True:
                frame = decoder.next_frame()
                if frame is protocol.NEED_DATA:
                    data = await stream.receive_some(1 << 16)
                    assert data, f"the server closed the connection after {seen}"
                    decoder.feed(data)
                    continue
                assert isinstance(frame, dict)
                seen.append(frame)
                if frame == {"type": "pong", "nonce": LAST_PING}:
                    return seen


@pytest.mark.long
@settings(max_examples=150, deadline=None)
@given(requests=REQUESTS)
def test_any_requests_are_answered_and_none_fails_the_server(
    busy_server: int, requests: list[protocol.Message]
) -> None:
    seen = trio.run(answers_to, busy_server, requests)
    assert seen[0]["type"] == "welcome"
    failures = [f for f in seen if f["type"] == "error" and f["code"] == ErrorCode.INTERNAL_ERROR]
    assert not failures, failures
