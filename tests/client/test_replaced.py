"""An upload whose connection a newer `hello` under the author's name replaces midway ends with
the server's `session_replaced` sentence, not "connection reset", in `upload` and in
`arbiter submit`, against a real server."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
import trio

from arbiter.client.connection import ClientConnection, ServerError
from arbiter.client.submit import upload
from arbiter.protocol import ErrorCode
from arbiter.protocol.submission import MAX_ARCHIVE_BYTES, guess_manifest, pack
from tests.conftest import HOST, RunningServer
from tests.tournament.helpers import arbiter_here, register

ROUNDS = 20
PLAYER = b"class Player:\n    def __init__(self, colour):\n        pass\n"
BOOK_BYTES = MAX_ARCHIVE_BYTES - 4096
"""A book that makes the upload as large as one may be, less room for the archive's own bytes:
the longer the upload, the surer a newer hello comes while it is still being sent."""
SENTENCE = "arbiter: session_replaced: a newer connection said hello as 'ann': this one closes\n"


async def test_an_upload_replaced_midway_ends_with_session_replaced(
    server: RunningServer,
) -> None:
    """Every time: the newer hello comes once the first part is sent, while the rest is on its
    way (a server that closed with those bytes unread reset the connection, and the upload's
    next send failed with "connection reset by the server")."""
    token = register(server.db, "ann")["ann"]
    for round in range(ROUNDS):
        files = {"agent.py": PLAYER, "book.txt": bytes([round]) * BOOK_BYTES}
        refusal = await upload_replaced_midway(server.port, token, f"agent-{round}", files)
        assert refusal is not None, "the upload went through before the newer hello"
        assert refusal.code == ErrorCode.SESSION_REPLACED


async def upload_replaced_midway(
    port: int, token: str, name: str, files: dict[str, bytes], tls: ssl.SSLContext | None = None
) -> ServerError | None:
    """Upload `files` as ann while, once the first part is sent, a newer connection says hello
    as ann (both over TLS with `tls`): the error the upload ends with (None if it went
    through)."""
    manifest = guess_manifest(files)
    archive = pack(files, manifest)
    first = await ClientConnection.open(HOST, port, "ann", token, tls=tls)
    sending = trio.Event()

    def sent(done: int, total: int) -> None:
        sending.set()

    async def say_hello_again() -> None:
        await sending.wait()
        newer = await ClientConnection.open(HOST, port, "ann", token, tls=tls)
        await newer.aclose()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(say_hello_again)
            try:
                await upload(first, "kings-court", name, archive, manifest.to_wire(), sent)
            except ServerError as error:
                return error
        return None
    finally:
        await first.aclose()


async def test_arbiter_submit_says_its_session_was_replaced(
    server: RunningServer, tmp_path: Path
) -> None:
    """`arbiter submit`, replaced as soon as its hello is answered (during the upload, most
    often), prints the server's sentence."""
    token = register(server.db, "ann")["ann"]
    folder = tmp_path / "big-agent"
    folder.mkdir()
    (folder / "agent.py").write_bytes(PLAYER)
    (folder / "book.txt").write_bytes(b"b" * BOOK_BYTES)
    submit = ["submit", "kings-court", str(folder), "--server", f"{HOST}:{server.port}"]
    submit += ["--author", "ann", "--token", token]
    for _ in range(5):
        watcher = await ClientConnection.open(HOST, server.port, "ann", token)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_replace_the_next, watcher, server.port, token)
            done = await arbiter_here(*submit)
            nursery.cancel_scope.cancel()  # it is done unless the command never said hello
        summary, *told = done.stderr.decode().splitlines(keepends=True)
        assert summary.startswith("big-agent: a python player, 2 files")
        assert (done.returncode, told) == (1, [SENTENCE])


async def _replace_the_next(watcher: ClientConnection, port: int, token: str) -> None:
    """Once a newer connection replaces `watcher` (ann's), replace that one in turn."""
    try:
        with pytest.raises(ServerError) as replaced:
            await watcher.receive()
        assert replaced.value.code == ErrorCode.SESSION_REPLACED
    finally:
        await watcher.aclose()
    newer = await ClientConnection.open(HOST, port, "ann", token)
    await newer.aclose()
