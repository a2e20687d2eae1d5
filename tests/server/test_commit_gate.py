"""The commit gate on a real SQLite file: frames wait for the moves they announce, keep their
order per client, and are never sent once a move could not be stored."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from arbiter import protocol
from arbiter.server.connection.peer import OnWritten
from arbiter.server.play.commit_gate import CommitGate
from arbiter.server.storage.interface import Storage
from tests.server.memory import FORFEITS, writing_to


class Recorder:
    """A peer that keeps each write it is given (a list of frames)."""

    name = "recorder"
    rtt = 0.0
    closed = False

    def __init__(self) -> None:
        self.writes: list[list[protocol.Message]] = []

    def send(self, message: protocol.Message, on_written: OnWritten | None = None) -> None:
        self.writes.append([message])

    def send_many(self, frames: Sequence[tuple[protocol.Message, OnWritten | None]]) -> None:
        self.writes.append([message for message, _ in frames])


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    async with writing_to(tmp_path / "arbiter.db") as running:
        yield running


def pong(nonce: int) -> protocol.Pong:
    return protocol.Pong(nonce=nonce)


async def test_frames_wait_for_their_commit_and_keep_their_order(storage: Storage) -> None:
    match = await storage.create_match(
        "kings-court", {}, {"move": 5.0}, FORFEITS, ["w", "b"], ["a", "b"]
    )
    lost: list[BaseException] = []
    gate = CommitGate(storage, lost.append)
    mover, other = Recorder(), Recorder()
    gate.tell(mover, pong(1))
    gate.tell(other, pong(2))
    gate.tell(other, pong(3))
    gate.depends_on(storage.record_move(match, 1, "w", "A2A3", 1.0))
    gate.flush()
    gate.tell(other, pong(4))  # nothing to store, but behind frames still held
    gate.flush()
    assert mover.writes == other.writes == [], "nothing is said before the move is stored"
    await gate.drain()
    assert mover.writes == [[pong(1)]]
    assert other.writes == [[pong(2), pong(3)], [pong(4)]], "one write per step, in order"
    assert lost == []
    assert gate.lost_write is None


async def test_nothing_is_sent_after_a_move_that_could_not_be_stored(storage: Storage) -> None:
    lost: list[BaseException] = []
    gate = CommitGate(storage, lost.append)
    peer = Recorder()
    gate.tell(peer, pong(1))
    gate.depends_on(storage.record_move(999, 1, "w", "A2A3", 1.0))  # no match 999: refused
    gate.flush()
    gate.tell(peer, pong(2))
    await gate.drain()
    assert peer.writes == []
    assert len(lost) == 1
    assert gate.lost_write is lost[0]
