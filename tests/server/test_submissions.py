"""Submissions over real TCP: uploads in parts, the checks at the end, listing, retiring, fetch
rights, and a version 1 client told politely."""

from __future__ import annotations

import hashlib
import os

import msgpack
import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.client.submit import answer, fetch, upload
from arbiter.protocol import ErrorCode
from arbiter.protocol.submission import Manifest, content_hash, pack
from arbiter.server.connection.limits import Limits
from tests.conftest import HOST, RunningServer
from tests.tournament.helpers import register

GAME = "kings-court"
PLAYER = Manifest("player", "python", "agent.py")


def archive_of(body: bytes = b"", padding: int = 0) -> bytes:
    """An archive of a Player module, `padding` random bytes bigger (incompressible)."""
    files = {"agent.py": b"class Player:\n    pass\n" + body}
    if padding:
        files["weights.bin"] = b"#" + os.urandom(padding)
    return pack(files, PLAYER)


async def signed_in(server: RunningServer, name: str, role: str = "player") -> ClientConnection:
    token = register(server.db, name, role=role)[name]
    return await ClientConnection.open(HOST, server.port, name, token)


async def refusal(connection: ClientConnection, kind: type[protocol.Message]) -> ServerError:
    with pytest.raises(ServerError) as caught:
        await answer(connection, kind)
    return caught.value


async def test_an_upload_larger_than_a_frame_is_stored_and_fetched_back(
    server: RunningServer,
) -> None:
    archive = archive_of(padding=300_000)
    sent: list[int] = []
    async with await signed_in(server, "ann") as ann:
        entry = await upload(
            ann, GAME, "bot", archive, PLAYER.to_wire(), lambda done, _: sent.append(done)
        )
        assert (entry["name"], entry["version"], entry["status"]) == ("bot", 1, "validating")
        assert entry["hash"] == hashlib.sha256(archive).hexdigest()
        assert len(sent) == -(-len(archive) // protocol.PART_BYTES) > 1
        assert await fetch(ann, entry["hash"]) == archive
        await ann.send(protocol.Submissions(game=None))
        listed = (await answer(ann, protocol.SubmissionList)).submissions
        assert [(e["name"], e["version"]) for e in listed] == [("bot", 1)]


async def test_a_bad_hash_is_refused_and_nothing_stored(server: RunningServer) -> None:
    archive = archive_of()
    async with await signed_in(server, "ann") as ann:
        wrong = "0" * 64
        await ann.send(
            protocol.SubmitBegin(
                game=GAME, name="bot", manifest=PLAYER.to_wire(), hash=wrong, size=len(archive)
            )
        )
        await answer(ann, protocol.SubmitReady)
        await ann.send(protocol.SubmitPart(index=0, data=archive), protocol.SubmitEnd(parts=1))
        error = await refusal(ann, protocol.Submitted)
        assert error.code == ErrorCode.BAD_SUBMISSION
        assert f"sha256 is {content_hash(archive)}, not the {wrong}" in error.message
        await ann.send(protocol.Submissions())
        assert (await answer(ann, protocol.SubmissionList)).submissions == []


async def test_a_part_out_of_order_drops_the_upload(server: RunningServer) -> None:
    archive = archive_of(padding=100_000)
    async with await signed_in(server, "ann") as ann:
        await ann.send(
            protocol.SubmitBegin(
                game=GAME,
                name="bot",
                manifest=PLAYER.to_wire(),
                hash=content_hash(archive),
                size=len(archive),
            )
        )
        await answer(ann, protocol.SubmitReady)
        await ann.send(protocol.SubmitPart(index=1, data=archive[:10]))
        error = await refusal(ann, protocol.Submitted)
        assert (error.code, error.message) == (
            ErrorCode.BAD_SUBMISSION,
            "part 1 came where part 0 was due: the upload is dropped, begin again",
        )
        await ann.send(protocol.SubmitEnd(parts=0))
        error = await refusal(ann, protocol.Submitted)
        assert error.code == ErrorCode.UNKNOWN_SUBMISSION
        # the connection goes on: a whole upload after it is stored
        assert (await upload(ann, GAME, "bot", archive, PLAYER.to_wire()))["version"] == 1


async def test_a_too_large_upload_is_refused_before_any_part(server: RunningServer) -> None:
    async with await signed_in(server, "ann") as ann:
        await ann.send(
            protocol.SubmitBegin(
                game=GAME, name="bot", manifest=PLAYER.to_wire(), hash="a" * 64, size=5 * 2**20
            )
        )
        error = await refusal(ann, protocol.SubmitReady)
        assert error.code == ErrorCode.BAD_SUBMISSION
        assert "5,242,880 bytes: a submission is 1 to 4,194,304 bytes (4 MiB)" in error.message


async def test_more_bytes_than_announced_drop_the_upload(server: RunningServer) -> None:
    archive = archive_of()
    async with await signed_in(server, "ann") as ann:
        await ann.send(
            protocol.SubmitBegin(
                game=GAME, name="bot", manifest=PLAYER.to_wire(), hash="a" * 64, size=10
            )
        )
        await answer(ann, protocol.SubmitReady)
        await ann.send(protocol.SubmitPart(index=0, data=archive))
        error = await refusal(ann, protocol.Submitted)
        assert "more than the 10 bytes submit_begin announced" in error.message


async def test_an_archive_that_fails_its_checks_is_refused_with_the_sentence(
    server: RunningServer,
) -> None:
    forged = msgpack.packb(
        {
            "format": 1,
            "manifest": PLAYER.to_wire(),
            "files": {"../../etc/cron.d/x": b"", "agent.py": b"class Player: pass"},
        },
        use_bin_type=True,
    )
    async with await signed_in(server, "ann") as ann:
        with pytest.raises(ServerError, match="leaves or loops in the submission's folder"):
            await upload(ann, GAME, "bot", forged, PLAYER.to_wire())


@pytest.mark.limits(Limits(upload_seconds=0.5))
async def test_a_stalled_upload_is_dropped(server: RunningServer) -> None:
    archive = archive_of()
    async with await signed_in(server, "ann") as ann:
        await ann.send(
            protocol.SubmitBegin(
                game=GAME,
                name="bot",
                manifest=PLAYER.to_wire(),
                hash=content_hash(archive),
                size=len(archive),
            )
        )
        await answer(ann, protocol.SubmitReady)
        await trio.sleep(0.7)
        await ann.send(protocol.SubmitPart(index=0, data=archive))
        error = await refusal(ann, protocol.Submitted)
        assert "the upload took over 0.5 s: it is dropped" in error.message


@pytest.mark.limits(Limits(uploads_per_hour=2))
async def test_identical_uploads_and_the_hourly_limit(server: RunningServer) -> None:
    async with await signed_in(server, "ann") as ann:
        await upload(ann, GAME, "bot", archive_of(b"#1"), PLAYER.to_wire())
        with pytest.raises(ServerError, match="identical to bot v1"):
            await upload(ann, GAME, "bot", archive_of(b"#1"), PLAYER.to_wire())
        await upload(ann, GAME, "bot", archive_of(b"#2"), PLAYER.to_wire())
        with pytest.raises(ServerError, match="2 versions in the last hour"):
            await upload(ann, GAME, "bot", archive_of(b"#3"), PLAYER.to_wire())


async def test_retire_and_list_per_game(server: RunningServer) -> None:
    async with await signed_in(server, "ann") as ann:
        await upload(ann, GAME, "bot", archive_of(b"#1"), PLAYER.to_wire())
        await upload(ann, "amazons", "queen", archive_of(b"#1"), PLAYER.to_wire())
        await ann.send(protocol.Retire(name="bot", version=1))
        retired = (await answer(ann, protocol.Retired)).submission
        assert (retired["name"], retired["status"]) == ("bot", "retired")
        await ann.send(protocol.Retire(name="bot", version=1))
        error = await refusal(ann, protocol.Retired)
        assert (error.code, error.message) == (
            ErrorCode.UNKNOWN_SUBMISSION,
            "bot v1 is retired already",
        )
        await ann.send(protocol.Submissions(game="amazons"))
        listed = (await answer(ann, protocol.SubmissionList)).submissions
        assert [(e["name"], e["status"]) for e in listed] == [("queen", "validating")]


async def test_fetch_rights_the_author_an_admin_and_nobody_else(server: RunningServer) -> None:
    archive = archive_of(b"#mine")
    async with await signed_in(server, "ann") as ann:
        digest = (await upload(ann, GAME, "bot", archive, PLAYER.to_wire()))["hash"]
    async with await signed_in(server, "bob") as bob:
        with pytest.raises(ServerError, match="fetched by its author, an admin or a worker"):
            await fetch(bob, digest)
        with pytest.raises(ServerError, match=r"no archive 0{64} is stored"):
            await fetch(bob, "0" * 64)
    async with await signed_in(server, "boss", role="admin") as boss:
        assert await fetch(boss, digest) == archive
        await boss.send(protocol.SubmissionFetch(hash=digest, index=5))
        error = await refusal(boss, protocol.ArchivePart)
        assert error.message == f"archive {digest} has 1 parts: no part 5"


async def test_a_casual_name_may_not_upload(server: RunningServer) -> None:
    async with await ClientConnection.open(HOST, server.port, "guest") as guest:
        await guest.send(protocol.Submissions())
        error = await refusal(guest, protocol.SubmissionList)
        assert (error.code, error.message) == (
            ErrorCode.NOT_ALLOWED,
            "submissions needs a registered name: say hello with the name and its token",
        )


async def test_a_version_1_client_is_refused_politely_and_stays(server: RunningServer) -> None:
    """A version 1 client sends a version 2 type by hand: one `error`, the connection open."""
    stream = await trio.open_tcp_stream(HOST, server.port)
    wire = protocol.Connection(protocol.CLIENT)
    received: list[protocol.Message] = []

    async def until(kind: type[protocol.Message]) -> None:
        with trio.fail_after(10):
            while not any(isinstance(m, kind) for m in received):
                wire.receive_data(await stream.receive_some(65536))
                while isinstance(message := wire.next_message(), protocol.Message):
                    received.append(message)

    await stream.send_all(wire.send(protocol.Hello(version=1, name="old")))
    await until(protocol.Welcome)
    await stream.send_all(protocol.encode_frame({"type": "submissions", "game": None}))
    await stream.send_all(wire.send(protocol.ListGames()))
    await until(protocol.Games)
    errors = [m for m in received if isinstance(m, protocol.Error)]
    assert [(e.code, e.message) for e in errors] == [
        (
            ErrorCode.NEEDS_VERSION,
            "'submissions' needs protocol version 2; this connection said hello with version 1",
        )
    ]
    await stream.aclose()
