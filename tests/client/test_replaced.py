"""An upload whose connection a newer `hello` under the author's name replaces midway ends with
the server's `session_replaced` sentence, not "connection reset", in `upload` and in
`arbiter submit`, against a real server."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from arbiter.client.connection import ClientConnection, ServerError
from arbiter.protocol import ErrorCode
from tests.client.uploads import BOOK_BYTES, PLAYER, upload_replaced_midway
from tests.conftest import HOST, RunningServer
from tests.tournament.helpers import arbiter_here, register

ROUNDS = 20
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
