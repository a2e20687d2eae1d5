"""The limits of a server on an open network (`server.connection.admission`), over real TCP and real
time, each set small by the `admission` marker so the tests run fast."""

from __future__ import annotations

import contextlib
import math
import os
import resource
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trio.lowlevel
import trio.testing

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import (
    RESERVED_FILES,
    UNLIMITED,
    Admission,
    Doorway,
    TokenGate,
    default_max_connections,
    file_limit,
)
from arbiter.server.connection.session import Session
from arbiter.server.storage import accounts
from arbiter.server.storage.engine import open_database
from tests.conftest import HOST, RunningServer
from tests.e2e.helpers import connect, until
from tests.processes import ROOT, SERVER

KINGS_COURT = protocol.Seek(game="kings-court", options={}, time={"move": 30.0}, hints=True)
OPENED: list[trio.SocketStream] = []
"""Every raw client's stream: a test may keep one open to hold a slot to its end, and each is
closed when its test ends."""


@pytest.fixture(autouse=True)
def close_raw_clients() -> Iterator[None]:
    yield
    while OPENED:  # the test's trio run is over: its sockets are closed as plain files
        with contextlib.suppress(OSError):
            os.close(OPENED.pop().socket.detach())


class Raw:
    """A client that does only what the test says: no pongs unless asked."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.wire = protocol.Connection(protocol.CLIENT)
        OPENED.append(stream)

    @classmethod
    async def open(cls, port: int, source: str | None = None) -> Raw:
        """Connected to the server, from the loopback address `source` if given (127.x.y.z all
        reach it, as different machines would)."""
        return cls(await trio.open_tcp_stream(HOST, port, local_address=source))

    async def send(self, *messages: protocol.Message) -> None:
        await self.stream.send_all(b"".join(self.wire.send(m) for m in messages))

    async def hello(
        self, name: str, token: str | None = None, resume: str | None = None
    ) -> protocol.Message | None:
        await self.send(
            protocol.Hello(version=protocol.PROTOCOL_VERSION, name=name, token=token, resume=resume)
        )
        return await self.receive()

    async def receive(self) -> protocol.Message | None:
        """The next message other than a ping (left unanswered); None once the server closed."""
        while True:
            message = self.wire.next_message()
            if message is protocol.NEED_DATA:
                try:
                    data = await self.stream.receive_some()
                except trio.BrokenResourceError:
                    data = b""
                self.wire.receive_data(data)
            elif message is protocol.CLOSED:
                return None
            elif not isinstance(message, protocol.Ping):
                assert isinstance(message, protocol.Message)
                return message

    async def error_then_close(self) -> protocol.Error:
        """The error frame the server closes with (after any other frames), then its end; this
        end is closed too."""
        last = None
        while (message := await self.receive()) is not None:
            last = message
        await self.stream.aclose()
        assert isinstance(last, protocol.Error), last
        return last


def error_code(message: protocol.Message | None) -> str:
    assert isinstance(message, protocol.Error), message
    return message.code


# -- the hello deadline and slow frames -------------------------------------------------------


@pytest.mark.admission(hello_seconds=0.3)
async def test_a_connection_that_never_says_hello_is_closed_at_its_deadline(
    server: RunningServer,
) -> None:
    began = trio.current_time()  # before the server can have started the connection's clock
    silent = await Raw.open(server.port)
    closing = await silent.error_then_close()
    assert closing.code == ErrorCode.HELLO_TIMEOUT
    assert 0.3 <= trio.current_time() - began < 2.0
    late = await connect(server.port, "ann")  # the server itself goes on
    await late.aclose()


@pytest.mark.admission(frame_seconds=0.2, min_bytes_per_second=10)
async def test_a_frame_dripped_in_byte_by_byte_is_cut_off_as_too_slow(
    server: RunningServer,
) -> None:
    client = await Raw.open(server.port)
    assert isinstance(await client.hello("ann"), protocol.Welcome)
    frame = client.wire.send(protocol.ListGames())
    with trio.fail_after(3):
        for byte in frame[:-1]:
            try:
                await client.stream.send_all(bytes([byte]))
            except trio.BrokenResourceError:
                break
            await trio.sleep(0.25)  # 4 bytes a second, where 10 are asked for
        closing = await client.error_then_close()
    assert closing.code == ErrorCode.TOO_SLOW


@pytest.mark.admission(frame_seconds=0.2, min_bytes_per_second=1000)
async def test_a_large_frame_at_a_fair_rate_is_read_whole(server: RunningServer) -> None:
    """2 KB in 100-byte pieces at 2 KB/s: slower than one segment, faster than the minimum."""
    client = await Raw.open(server.port)
    assert isinstance(await client.hello("ann"), protocol.Welcome)
    body = b"\xc1" * 2000  # never valid msgpack: answered bad_msgpack, once it is all read
    frame = len(body).to_bytes(4, "big") + body
    for start in range(0, len(frame), 100):
        await client.stream.send_all(frame[start : start + 100])
        await trio.sleep(0.05)
    assert error_code(await client.receive()) == ErrorCode.BAD_MSGPACK
    await client.send(protocol.ListGames())
    assert isinstance(await client.receive(), protocol.Games)


# -- pings --------------------------------------------------------------------------------------


@pytest.mark.admission(ping_seconds=0.1, pong_seconds=0.6)
async def test_a_player_that_answers_no_pings_is_dropped_and_its_seat_waits_in_grace(
    server: RunningServer,
) -> None:
    ann = await Raw.open(server.port)
    welcomed = trio.current_time()  # no later than the server's welcome, where its wait begins
    welcome = await ann.hello("ann")
    assert isinstance(welcome, protocol.Welcome)
    async with await connect(server.port, "bob") as bob, trio.open_nursery() as pongs:
        await ann.send(KINGS_COURT)
        assert isinstance(await ann.receive(), protocol.Seeking)
        await bob.send(KINGS_COURT)
        await until(bob, protocol.MatchStarted)
        pongs.start_soon(bob.answer_pings)  # bob answers; ann does not
        closing = await ann.error_then_close()
        assert closing.code == ErrorCode.PING_TIMEOUT
        assert 0.6 <= trio.current_time() - welcomed < 3.0
        back = await Raw.open(server.port)
        again = await back.hello("ann", resume=welcome.session)
        assert isinstance(again, protocol.Welcome)
        assert isinstance(await back.receive(), protocol.Resumed)
        pongs.cancel_scope.cancel()


# -- connection caps ----------------------------------------------------------------------------


async def _welcomed_soon(port: int) -> Raw:
    """A connection welcomed once the server has noticed a closed one (a moment after)."""
    for _ in range(40):
        client = await Raw.open(port)
        if isinstance(await client.hello("late"), protocol.Welcome):
            return client
        await client.stream.aclose()
        await trio.sleep(0.05)
    raise AssertionError("never let in")


@pytest.mark.admission(max_per_address=2)
async def test_one_address_past_its_cap_is_refused_at_once_with_a_frame(
    server: RunningServer,
) -> None:
    first, _second = await Raw.open(server.port), await Raw.open(server.port)  # never say hello
    third = await Raw.open(server.port)
    with trio.fail_after(1):
        refused = await third.error_then_close()
    assert refused.code == ErrorCode.TOO_MANY_CONNECTIONS
    assert "2 connections from 127.0.0.1" in refused.message
    await first.stream.aclose()
    await _welcomed_soon(server.port)


@pytest.mark.admission(max_connections=1)
async def test_a_full_server_refuses_with_a_frame(server: RunningServer) -> None:
    first = await connect(server.port, "ann")
    refused = await (await Raw.open(server.port)).error_then_close()
    assert refused.code == ErrorCode.TOO_MANY_CONNECTIONS
    assert "full" in refused.message
    await first.aclose()
    await _welcomed_soon(server.port)


def test_the_default_cap_stays_below_the_file_limit() -> None:
    assert default_max_connections() <= file_limit() - RESERVED_FILES
    assert Admission().max_connections == default_max_connections()


def test_the_doorway_counts_in_all_and_per_address() -> None:
    door = Doorway(Admission(max_connections=3, max_per_address=2))
    assert door.enter("a", 0.0) is None
    assert door.enter("a", 0.0) is None
    assert "2 connections from a" in (door.enter("a", 0.0) or "")
    assert door.enter("b", 0.0) is None
    assert "full" in (door.enter("c", 0.0) or "")
    door.leave("a", 0.0)
    assert door.enter("c", 0.0) is None
    assert door.open == 3


# -- the request rate ---------------------------------------------------------------------------


@pytest.mark.admission(
    requests_per_second=20, request_burst=10, max_refused=5, flood_penalty_seconds=0.5
)
async def test_a_flood_of_requests_is_refused_then_cut_off_and_its_address_barred(
    server: RunningServer,
) -> None:
    client = await Raw.open(server.port)
    assert isinstance(await client.hello("ann"), protocol.Welcome)
    await client.send(*[protocol.Ping(nonce=n) for n in range(30)])
    answers = []
    while (message := await client.receive()) is not None:
        answers.append(message)
    pongs = [m for m in answers if isinstance(m, protocol.Pong)]
    refusals = [m for m in answers if isinstance(m, protocol.Error)]
    assert 9 <= len(pongs) <= 10  # the burst, less the hello
    assert [m.code for m in refusals] == [ErrorCode.RATE_LIMITED] * 6
    assert [m.ref for m in refusals[:5]] == ["ping"] * 5
    assert "closing" in refusals[-1].message
    cut = trio.current_time()
    again = await (await Raw.open(server.port)).error_then_close()
    assert again.code == ErrorCode.RATE_LIMITED
    assert "flooding" in again.message
    await trio.sleep_until(cut + 0.6)
    assert isinstance(await (await Raw.open(server.port)).hello("ann"), protocol.Welcome)


@pytest.mark.admission(requests_per_second=100, request_burst=3, max_refused=1)
async def test_requests_under_the_rate_are_all_answered(server: RunningServer) -> None:
    client = await Raw.open(server.port)
    assert isinstance(await client.hello("ann"), protocol.Welcome)
    for nonce in range(30):  # 25 a second
        await client.send(protocol.Ping(nonce=nonce))
        assert await client.receive() == protocol.Pong(nonce=nonce)
        await trio.sleep(0.04)


@pytest.mark.admission(requests_per_second=1, request_burst=22, max_refused=10)
async def test_a_refusal_behind_a_slow_request_keeps_its_place(server: RunningServer) -> None:
    """A `seek` is answered by a task of its own, the pings behind it after it, in order: the
    refusals of those over the rate too. (The hello spends 1, the seek 20, the first ping the
    last 1.)"""
    client = await Raw.open(server.port)
    assert isinstance(await client.hello("ann"), protocol.Welcome)
    await client.send(KINGS_COURT, *[protocol.Ping(nonce=n) for n in range(3)])
    answers = [await client.receive() for _ in range(4)]
    assert isinstance(answers[0], protocol.Seeking)
    assert answers[1] == protocol.Pong(nonce=0)
    assert [error_code(m) for m in answers[2:]] == [ErrorCode.RATE_LIMITED] * 2


@pytest.mark.admission(
    requests_per_second=1000,
    request_burst=1000,
    address_requests_per_second=1,
    address_request_burst=10,
    max_refused=100,
)
async def test_an_address_has_one_request_budget_across_its_connections(
    server: RunningServer,
) -> None:
    """Two connections from one address, each well under its own rate, share the address's
    budget; a third address is not touched by it."""
    first = await Raw.open(server.port, "127.0.0.7")
    second = await Raw.open(server.port, "127.0.0.7")
    for name, client in (("ann", first), ("bob", second)):
        assert isinstance(await client.hello(name), protocol.Welcome)
    await first.send(*[protocol.Ping(nonce=n) for n in range(4)])
    assert [await first.receive() for _ in range(4)] == [protocol.Pong(nonce=n) for n in range(4)]
    await second.send(*[protocol.Ping(nonce=n) for n in range(6)])
    answers = [await second.receive() for _ in range(6)]
    assert answers[:4] == [protocol.Pong(nonce=n) for n in range(4)]  # 10, less 2 hellos, 4 pings
    refused = [m for m in answers[4:] if isinstance(m, protocol.Error)]
    assert [m.code for m in refused] == [ErrorCode.RATE_LIMITED] * 2
    assert "from 127.0.0.7 across all its connections" in refused[0].message
    elsewhere = await Raw.open(server.port, "127.0.0.8")
    assert isinstance(await elsewhere.hello("cat"), protocol.Welcome)
    await elsewhere.send(*[protocol.Ping(nonce=n) for n in range(5)])
    assert [await elsewhere.receive() for _ in range(5)] == [
        protocol.Pong(nonce=n) for n in range(5)
    ]


@pytest.mark.admission(
    requests_per_second=1000,
    request_burst=1000,
    address_requests_per_second=1,
    address_request_burst=5,
    max_refused=3,
    flood_penalty_seconds=30,
)
async def test_a_connection_refused_for_its_address_is_cut_off_and_the_address_barred(
    server: RunningServer,
) -> None:
    """Refusals for the address's rate count like refusals for the connection's own: a
    connection that goes on flooding is closed, and its address may not come back at once."""
    flooder = await Raw.open(server.port, "127.0.0.9")
    assert isinstance(await flooder.hello("ann"), protocol.Welcome)
    await flooder.send(*[protocol.Ping(nonce=n) for n in range(20)])
    last = await flooder.error_then_close()
    assert last.code == ErrorCode.RATE_LIMITED
    assert "closing" in last.message
    again = await (await Raw.open(server.port, "127.0.0.9")).error_then_close()
    assert again.code == ErrorCode.RATE_LIMITED
    assert "flooding" in again.message


def test_an_address_keeps_its_spent_budget_when_its_connections_close() -> None:
    door = Doorway(Admission(address_requests_per_second=1, address_request_burst=2))
    assert door.enter("a", 0.0) is None
    share = door.share("a", 0.0)
    assert share.spend(0.0)
    assert share.spend(0.0)
    assert not share.spend(0.0)
    door.leave("a", 0.0)
    assert door.share("a", 0.0) is share  # reconnecting does not refill it
    assert not door.share("a", 1.0).spend(1.0)
    assert door.share("a", 3.0).spend(3.0)


@pytest.mark.admission(requests_per_second=1, request_burst=60, max_refused=10)
async def test_a_dear_request_spends_more_of_the_allowance(server: RunningServer) -> None:
    """A `lobby` listing costs the server what fifty pings do, and is counted so."""
    client = await Raw.open(server.port)
    assert isinstance(await client.hello("ann"), protocol.Welcome)
    await client.send(protocol.Lobby(follow=False))
    assert isinstance(await client.receive(), protocol.LobbyListing)
    await client.send(*[protocol.Ping(nonce=n) for n in range(8)], protocol.Lobby(follow=False))
    assert [await client.receive() for _ in range(8)] == [protocol.Pong(nonce=n) for n in range(8)]
    refused = await client.receive()  # 1 left: enough for a ping, not for a listing
    assert error_code(refused) == ErrorCode.RATE_LIMITED
    assert isinstance(refused, protocol.Error)
    assert refused.ref == "lobby"


class Recorder:
    """A `Router` that welcomes every hello and notes, in order, whom it answered."""

    def __init__(self) -> None:
        self.answered: list[Session] = []
        self.first = trio.Event()

    async def handle(self, session: Session, message: protocol.Message, arrived: float) -> None:
        if isinstance(message, protocol.Hello):
            session.send(protocol.Welcome(version=message.version, session="s", server="test"))
            return
        self.answered.append(session)
        self.first.set()

    def forget(self, session: Session) -> None:
        pass


async def test_one_connections_burst_does_not_hold_the_loop() -> None:
    """Thousands of small frames that arrive in one read are answered a few dozen at a time,
    other connections served in between: a ping that arrives once the burst is being answered
    is answered long before the burst's end."""
    router, burst = Recorder(), 2000
    hello = protocol.Hello(version=protocol.PROTOCOL_VERSION, name="x")
    flood_ours, flood_theirs = trio.testing.memory_stream_pair()
    quiet_ours, quiet_theirs = trio.testing.memory_stream_pair()
    flooder, bystander = (Session(s, router, UNLIMITED) for s in (flood_theirs, quiet_theirs))
    wire = protocol.Connection(protocol.CLIENT)
    pings = [protocol.Ping(nonce=n) for n in range(burst)]
    await flood_ours.send_all(b"".join(wire.send(m) for m in (hello, *pings)))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(flooder.run)
        nursery.start_soon(bystander.run)
        await router.first.wait()
        other = protocol.Connection(protocol.CLIENT)
        await quiet_ours.send_all(other.send(hello) + other.send(protocol.Ping(nonce=1)))
        while bystander not in router.answered:
            await trio.lowlevel.checkpoint()
        assert router.answered.index(bystander) < burst // 2
        nursery.cancel_scope.cancel()


# -- token checks -------------------------------------------------------------------------------


def _register(db: Path, name: str) -> str:
    connection = open_database(db)
    try:
        return accounts.create(connection, name)
    finally:
        connection.close()


@pytest.mark.admission(token_failures=2, token_backoff_seconds=0.5)
async def test_an_address_whose_token_checks_fail_waits_out_a_backoff(
    server: RunningServer,
) -> None:
    token = _register(server.db, "ann")
    for _ in range(2):
        guess = await Raw.open(server.port)
        assert error_code(await guess.hello("ann", token="guess")) == ErrorCode.BAD_NAME
    began = trio.current_time()
    honest = await Raw.open(server.port)  # even the right token: the address waits
    assert error_code(await honest.hello("ann", token=token)) == ErrorCode.RATE_LIMITED
    assert await honest.receive() is None
    await trio.sleep_until(began + 0.6)
    back = await Raw.open(server.port)
    assert isinstance(await back.hello("ann", token=token), protocol.Welcome)


def test_the_token_backoff_doubles_and_is_forgotten_after_a_quiet_spell() -> None:
    gate = TokenGate(Admission(token_failures=2, token_backoff_seconds=1, token_backoff_max=5))
    gate.failed("a", now=0)
    assert gate.wait("a", now=0) == 0
    gate.failed("a", now=0)
    assert gate.wait("a", now=0) == 1
    gate.failed("a", now=1)
    assert gate.wait("a", now=1) == 2
    for _ in range(5):
        gate.failed("a", now=1)
    assert gate.wait("a", now=1) == 5  # capped
    assert gate.wait("b", now=1) == 0
    gate.failed("a", now=4)  # within 5 s of the last failure: still counted
    assert gate.wait("a", now=4) == 5
    gate.failed("a", now=20)  # after a quiet spell: a first failure again
    assert gate.wait("a", now=20) == 0


# -- sessions -----------------------------------------------------------------------------------


async def _seated(port: int, name: str, token: str | None = None) -> tuple[Raw, protocol.Welcome]:
    """A raw client `name` with a seat in a match against a raw `bob` (who is left to himself)."""
    client = await Raw.open(port)
    welcome = await client.hello(name, token=token)
    assert isinstance(welcome, protocol.Welcome)
    bob = await Raw.open(port)
    assert isinstance(await bob.hello("bob"), protocol.Welcome)
    await client.send(KINGS_COURT)
    assert isinstance(await client.receive(), protocol.Seeking)
    await bob.send(KINGS_COURT)
    while not isinstance(await bob.receive(), protocol.MatchStarted):
        pass
    return client, welcome


@pytest.mark.grace(30.0)
async def test_a_seat_resumes_only_under_its_name_and_with_a_new_session_id(
    server: RunningServer,
) -> None:
    ann, welcome = await _seated(server.port, "ann")
    await ann.stream.aclose()
    thief = await Raw.open(server.port)
    assert isinstance(await thief.hello("eve", resume=welcome.session), protocol.Welcome)
    assert error_code(await thief.receive()) == ErrorCode.UNKNOWN_SESSION
    back = await Raw.open(server.port)
    again = await back.hello("ann", resume=welcome.session)
    assert isinstance(again, protocol.Welcome)
    assert again.session != welcome.session
    assert isinstance(await back.receive(), protocol.Resumed)


async def test_a_second_hello_with_a_token_replaces_the_first_connection(
    server: RunningServer,
) -> None:
    token = _register(server.db, "ann")
    first, welcome = await _seated(server.port, "ann", token)
    second = await Raw.open(server.port)
    assert isinstance(
        await second.hello("ann", token=token, resume=welcome.session), protocol.Welcome
    )
    assert isinstance(await second.receive(), protocol.Resumed)
    closing = await first.error_then_close()
    assert closing.code == ErrorCode.SESSION_REPLACED


def test_limits_are_checked_when_set() -> None:
    with pytest.raises(ValueError, match="max_per_address"):
        Admission(max_per_address=0)
    with pytest.raises(ValueError, match="request_burst"):
        Admission(request_burst=0.5)
    assert Admission(hello_seconds=math.inf).hello_seconds == math.inf


# -- the crowd: a real process with a small file limit ---------------------------------


def _small_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


async def test_a_crowd_that_never_says_hello_neither_exhausts_files_nor_locks_players_out(
    tmp_path: Path,
) -> None:
    """300 silent connections to a server allowed 256 files: those past the cap (256 less the
    files reserved) are refused with a frame, the rest are closed at the hello deadline, accept
    never fails for want of files, and a player still gets in."""
    command = [*SERVER, "--host", HOST, "--port", "0", "--db", str(tmp_path / "a.db")]
    command += ["--hello-timeout", "1", "--max-per-address", "1000"]
    # Started and read without trio: nothing else runs until the server has said its port.
    server = subprocess.Popen(  # noqa: ASYNC220
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        preexec_fn=_small_file_limit,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().rsplit(":", 1)[1])
        crowd = [await Raw.open(port) for _ in range(300)]
        with trio.fail_after(30):
            closings = [await silent.error_then_close() for silent in crowd]
        codes = [closing.code for closing in closings]
        assert codes.count(ErrorCode.TOO_MANY_CONNECTIONS) == 300 - (256 - RESERVED_FILES)
        assert codes.count(ErrorCode.HELLO_TIMEOUT) == 256 - RESERVED_FILES
        player = await connect(port, "ann")
        await player.aclose()
    finally:
        server.kill()
        _, errors = server.communicate()
    assert "Too many open files" not in errors
