"""The writes queued for the group commit, and the process that commits them: `WriteQueue`.

Every accepted move must be stored before the opponent hears of it. Rather than a transaction
per move, one writer task (`WriteQueue.run`) takes every write queued while the previous batch
was committing and has them committed together by a process of its own
(`server.storage.commit_writer`, which shares no interpreter lock with the event loop). A
callback queued behind writes (`put` of a callable) runs once they are committed, which is how a
match announces a move without waiting for its write.

A write queued while nothing is being committed is sent to the commit process at once, from
`put`, without waiting for the writer task: the match that queued it goes on to the rest of its
step (the next turn's hints and frames) while the commit process, on another core, commits the
move. A few matches' moves each wait for their own commit, so that commit starting early is
most of what a move waits for; under load the writer is never idle, and writes queue into
batches as before.
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgpack
import trio

from arbiter.server.storage.commit_writer import TARGET
from arbiter.server.storage.errors import NotStored, StoreError
from arbiter.server.storage.group_commit import Statement
from arbiter.server.storage.interface import AfterCommit
from arbiter.server.storage.sql_connection import Dialect

log = logging.getLogger(__name__)

RESTART_DELAYS: Final = (0.0, 0.25, 1.0, 3.0)
"""How long to wait after each commit process that died before starting the next, for one
batch: four processes in about 4 s (a killed one is replaced at once; a database that is
restarting gets a few seconds) before its writes fail."""

FIRST_RETRY: Final = 0.5
"""The first wait before a write that must be stored in the end is tried again
(`SQLStorage.finish_unstored`): the wait doubles after each failure, up to `LONGEST_RETRY`."""
LONGEST_RETRY: Final = 30.0


@dataclass(slots=True)
class QueuedWrite:
    """Statements queued for the next group commit, stored together or not at all (a
    `storage.PendingWrite`): `error` is set if they could not be stored, `key` to the id a keyed
    write's first statement returned (`server.storage.group_commit.Write`)."""

    statements: list[Statement]
    done: trio.Event | None = None
    error: BaseException | None = None
    key: int | None = None
    retry: float | None = None
    """For a write that must be stored in the end: how long to wait before trying it again if
    this attempt fails."""


class _CommitProcess:
    """`server.storage.commit_writer` beside the server: a batch out, one answer per write back.

    Started on the first batch, and again after it dies: the batch in flight is then sent again
    to the new process, which commits it unless the dead one had (the batches are numbered, and
    the commit log says which was committed last: `server.storage.group_commit.commit_batch`), so
    a killed commit process costs a pause, not a move. After `RESTART_DELAYS` are spent without an
    answer (a database that is down), the batch's writes fail. A thread would be simpler, but it
    shares the interpreter lock with the event loop: under load its commits wait on the loop, and
    every move on them.
    """

    def __init__(
        self, target: str, errors: Callable[[str, str], Exception], last_batch: int
    ) -> None:
        self._target = target
        self._errors = errors
        self._numbers = itertools.count(last_batch + 1)
        self._process: trio.Process | None = None
        self._stream: trio.SocketStream | None = None
        self._socket: socket.socket | None = None
        """The stream's socket, non-blocking: what `send_now` writes to without a task."""
        self._answers = msgpack.Unpacker(raw=False)

    def message(self, batch: list[QueuedWrite]) -> bytes:
        """The next batch, numbered, as the commit process reads it."""
        message: bytes = msgpack.packb([next(self._numbers), [w.statements for w in batch]])
        return message

    def send_now(self, message: bytes) -> int:
        """Write what the socket takes of `message` at once, without waiting: the number of
        bytes taken (0 with no process running, or a full socket). `commit` sends the rest; a
        process found dead there gets the whole message again from its successor."""
        if self._socket is None:
            return 0
        try:
            return self._socket.send(message)
        except OSError:  # full (BlockingIOError), or the process is gone: `commit` sees which
            return 0

    async def commit(self, batch: list[QueuedWrite], message: bytes, sent: int = 0) -> None:
        """Commit `batch` (its `message`, of which `send_now` sent the first `sent` bytes),
        setting each write's `error` if it was refused or lost, and a keyed write's `key`.
        Shielded: an answer left unread would be taken for the next batch's (the wait is one
        commit, or the restarts' delays)."""
        with trio.CancelScope(shield=True):
            for delay in RESTART_DELAYS:
                try:
                    stream = self._stream or await self._start()
                    if sent < len(message):
                        await stream.send_all(message[sent:])
                    answer = await self._next_answer(stream)
                    break
                except (OSError, EOFError, trio.BrokenResourceError) as error:
                    await self.stop()
                    log.warning("the commit process stopped (%s): starting another", error)
                    lost, sent = error, 0
                    await trio.sleep(delay)
            else:
                failed = NotStored(f"the commit process stopped: {lost}")
                for write in batch:
                    write.error = failed
                return
        for write, given in zip(batch, answer, strict=True):
            if isinstance(given, int):
                write.key = given
            elif given is not None:
                write.error = self._errors(*given)

    async def _start(self) -> trio.SocketStream:
        ours, theirs = socket.socketpair()
        try:
            command = [
                sys.executable,
                "-m",
                "arbiter.server.storage.commit_writer",
                str(theirs.fileno()),
            ]
            self._process = await trio.lowlevel.open_process(
                command, pass_fds=(theirs.fileno(),), env={**os.environ, TARGET: self._target}
            )
        finally:
            theirs.close()
        self._stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
        self._socket = ours
        self._answers = msgpack.Unpacker(raw=False)
        return self._stream

    async def _next_answer(self, stream: trio.SocketStream) -> list[list[str] | int | None]:
        while True:
            for answer in self._answers:
                return answer  # type: ignore[no-any-return]  # msgpack: untyped values
            data = await stream.receive_some(1 << 16)
            if not data:
                raise EOFError("it closed its socket")
            self._answers.feed(data)

    async def stop(self) -> None:
        """Close the socket, which ends the process; kill it if it does not end."""
        with trio.CancelScope(shield=True):
            self._socket = None
            if self._stream is not None:
                await trio.aclose_forcefully(self._stream)
                self._stream = None
            if self._process is not None:
                with trio.move_on_after(5):
                    await self._process.wait()
                if self._process.returncode is None:
                    self._process.kill()
                    await self._process.wait()
                self._process = None


class WriteQueue:
    """Writes and callbacks in the order they were queued; `run` commits them in batches."""

    def __init__(
        self,
        target: str,
        refusal: Callable[[str, str], Exception],
        last_batch: int,
        dialect: Dialect,
    ) -> None:
        self._target = target
        self._refusal = refusal
        self._last_batch = last_batch
        """The last group commit's number: this server's are numbered after it."""
        self._dialect = dialect
        # Unbounded: queueing never blocks. What is queued is bounded by the live matches: each
        # has at most one move (and its announcement) waiting, as its next move needs it sent.
        # A plain deque and a parking lot rather than a memory channel: two items per move go
        # through here, and the writer takes them all at once anyway.
        self._queue: deque[QueuedWrite | AfterCommit] = deque()
        self._queued = trio.lowlevel.ParkingLot()
        self._committer: _CommitProcess | None = None
        self._sent_early: tuple[bytes, int] | None = None
        """The message of the write at the head of the queue, and the bytes of it `put` sent
        to the commit process at once, while the writer task waited for work."""

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The group-commit loop; runs until cancelled."""
        committer = self._committer = _CommitProcess(self._target, self._refusal, self._last_batch)
        try:
            async with trio.open_nursery() as retries:
                task_status.started()
                while True:
                    while not self._queue:
                        await self._queued.park()
                    batch, sent_early = self._next_batch(), self._sent_early
                    self._sent_early = None
                    writes = [item for item in batch if isinstance(item, QueuedWrite)]
                    if sent_early is not None:
                        await committer.commit(writes, *sent_early)
                    elif writes:
                        await committer.commit(writes, committer.message(writes))
                    for item in batch:
                        if not isinstance(item, QueuedWrite):
                            self._call_back(item)
                        elif item.error is not None and item.retry is not None:
                            retries.start_soon(self._try_again, item)
                        elif item.done is not None:
                            item.done.set()
        finally:
            self._committer = None
            await committer.stop()

    def _next_batch(self) -> list[QueuedWrite | AfterCommit]:
        """What the writer commits next: everything queued; or, after a write sent early, that
        write and the callbacks right behind it (the writes queued after it make the next
        batch, as its message is sent already)."""
        if self._sent_early is None:
            batch = list(self._queue)
            self._queue.clear()
            return batch
        batch = [self._queue.popleft()]
        while self._queue and not isinstance(self._queue[0], QueuedWrite):
            batch.append(self._queue.popleft())
        return batch

    async def _try_again(self, write: QueuedWrite) -> None:
        """Queue a write that must be stored again, after its wait (doubled for the next)."""
        assert write.retry is not None
        log.error("could not store a write (%s): trying again in %g s", write.error, write.retry)
        await trio.sleep(write.retry)
        write.error, write.retry = None, min(2 * write.retry, LONGEST_RETRY)
        self.put(write)

    def put(self, item: QueuedWrite | AfterCommit) -> None:
        """Queue a write, or a callback to run once every write queued before it is committed.
        A write that finds the writer waiting for work (so nothing else queued) is sent to the
        commit process now."""
        self._queue.append(item)
        if self._queued:
            if isinstance(item, QueuedWrite) and self._committer is not None:
                message = self._committer.message([item])
                self._sent_early = message, self._committer.send_now(message)
            self._queued.unpark()

    @staticmethod
    def _call_back(callback: AfterCommit) -> None:
        try:
            callback()
        except Exception:  # one match's bug must not stop every match's storage
            log.exception("after-commit callback failed")

    async def write(self, *statements: Statement) -> QueuedWrite:
        """Store `statements` together in the next group commit, and wait until they are;
        `NotStored` if they are not."""
        done = trio.Event()
        write = QueuedWrite(list(statements), done)
        self.put(write)
        await done.wait()
        if isinstance(write.error, StoreError):
            raise write.error
        if write.error is not None:
            raise NotStored(f"{self._dialect.name} refused it: {write.error}") from write.error
        return write
