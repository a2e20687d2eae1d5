"""An upload whose connection a newer `hello` under the author's name replaces midway ends with
the server's `session_replaced` sentence, not "connection reset", in `upload` and in
`arbiter submit`, against a real server."""

from __future__ import annotations

from pathlib import Path

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
        refusal = await _upload_replaced_midway(server.port, token, f"agent-{round}", files)
        assert refusal is not None, "the upload went through before the newer hello"
        assert refusal.code == ErrorCode.SESSION_REPLACED


async def _upload_replaced_midway(
    port: int, token: str, name: str, files: dict[str, bytes]
) -> ServerError | None:
    """Upload `files` as ann while, once the first part is sent, a newer connection says hello
    as ann: the error the upload ends with (None if it went through)."""
    manifest = guess_manifest(files)
    archive = pack(files, manifest)
    first = await ClientConnection.open(HOST, port, "ann", token)
    sending = trio.Event()

    def sent(done: int, total: int) -> None:
        sending.set()

    async def say_hello_again() -> None:
        await sending.wait()
        newer = await ClientConnection.open(HOST, port, "ann", token)
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
    """`arbiter submit` while other connections say hello as its author, one every few
    milliseconds: whenever the newer one comes (during the upload, most often), it prints the
    server's sentence."""
    token = register(server.db, "ann")["ann"]
    folder = tmp_path / "big-agent"
    folder.mkdir()
    (folder / "agent.py").write_bytes(PLAYER)
    (folder / "book.txt").write_bytes(b"b" * BOOK_BYTES)
    submit = ["submit", "kings-court", str(folder), "--server", f"{HOST}:{server.port}"]
    submit += ["--author", "ann", "--token", token]
    for _ in range(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_say_hello_until_cancelled, server.port, token)
            done = await arbiter_here(*submit)
            nursery.cancel_scope.cancel()
        summary, *told = done.stderr.decode().splitlines(keepends=True)
        assert summary.startswith("big-agent: a python player, 2 files")
        assert (done.returncode, told) == (1, [SENTENCE])


async def _say_hello_until_cancelled(port: int, token: str) -> None:
    """Connect as ann every few milliseconds, each connection replacing the one before."""
    latest: ClientConnection | None = None
    try:
        while True:
            newer = await ClientConnection.open(HOST, port, "ann", token)
            if latest is not None:
                await latest.aclose()
            latest = newer
            await trio.sleep(0.005)
    finally:
        if latest is not None:
            await trio.aclose_forcefully(latest)
