"""Uploads a newer `hello` under the author's name replaces midway: what the client tests, the
server's hang-up test and the TLS test share."""

from __future__ import annotations

import ssl

import trio

from arbiter.client.connection import ClientConnection, ServerError
from arbiter.client.submit import upload
from arbiter.protocol.submission import MAX_ARCHIVE_BYTES, guess_manifest, pack
from tests.conftest import HOST

PLAYER = b"class Player:\n    def __init__(self, colour):\n        pass\n"
"""A Player module that does nothing: an upload's smallest agent."""
BOOK_BYTES = MAX_ARCHIVE_BYTES - 4096
"""A book that makes the upload as large as one may be, less room for the archive's own bytes:
the longer the upload, the surer a newer hello comes while it is still being sent."""


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
