"""Shares of the table of open seeks (`server.play.seeks`): an address holds at most its share
across its connections, and a full table makes room for a newcomer at the expense of the address
holding the most, so a few addresses cannot keep everyone else from seeking."""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest
import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.limits import Limits
from arbiter.server.play.seeks import Seeks
from tests.conftest import HOST, RunningServer
from tests.server.test_admission import Raw, error_code
from tests.server.test_seeks import Seeker, a_seek


def test_an_address_holds_at_most_its_share_across_its_connections() -> None:
    seeks = Seeks(Limits(seeks_per_connection=3, seeks_per_address=4))
    first, second = Seeker("first", "10.0.0.1"), Seeker("second", "10.0.0.1")
    for seeker in (first, first, first, second):
        seeks.add(a_seek(seeks, seeker))
    refusal = seeks.make_room(a_seek(seeks, second))
    assert refusal is not None
    assert "10.0.0.1 holds 4 open seeks" in refusal
    assert "(4)" in refusal
    assert seeks.make_room(a_seek(seeks, Seeker("elsewhere", "10.0.0.2"))) is None
    kept = a_seek(seeks, second)
    kept.kept = True  # a tournament's: counted against its connection, not its address
    assert seeks.make_room(kept) is None


def test_connections_without_an_address_each_count_as_their_own() -> None:
    seeks = Seeks(Limits(seeks_per_connection=3, seeks_per_address=2))
    one, two = Seeker("one"), Seeker("two")
    for seeker in (one, one):
        seeks.add(a_seek(seeks, seeker))
    assert seeks.make_room(a_seek(seeks, one)) is not None
    assert seeks.make_room(a_seek(seeks, two)) is None


def test_a_full_table_gives_a_newcomer_the_place_of_the_biggest_holders_newest_seek() -> None:
    seeks = Seeks(Limits(seeks_per_connection=10, seeks_per_address=10, seeks=6))
    hoarder, modest = Seeker("hoarder", "10.0.0.1"), Seeker("modest", "10.0.0.2")
    hoarded = [a_seek(seeks, hoarder, no_capture_limit=n) for n in range(1, 5)]
    for seek in hoarded:
        seeks.add(seek)
    seeks.add(a_seek(seeks, modest))
    seeks.add(a_seek(seeks, modest))  # full: 4 and 2
    newcomer = Seeker("newcomer", "10.0.0.3")
    assert seeks.make_room(a_seek(seeks, newcomer)) is None
    why, which = hoarder.sent
    assert isinstance(why, protocol.Error)
    assert why.code == ErrorCode.TOO_MANY_SEEKS
    assert f"seek {hoarded[-1].id} withdrawn" in why.message
    assert "your address" in why.message
    assert which == protocol.SeekCancelled(seek=hoarded[-1].id)
    seeks.add(a_seek(seeks, newcomer))  # 3, 2 and 1
    assert seeks.make_room(a_seek(seeks, newcomer)) is None
    assert hoarder.sent[-1] == protocol.SeekCancelled(seek=hoarded[-2].id)
    seeks.add(a_seek(seeks, newcomer))  # 2, 2 and 2: nobody holds two more than another
    refusal = seeks.make_room(a_seek(seeks, newcomer))
    assert refusal is not None
    assert "the server holds 6 open seeks, its most" in refusal
    assert [seek.id for seek in seeks.casual()][:2] == [hoarded[0].id, hoarded[1].id]


def test_kept_seeks_are_never_withdrawn_for_a_newcomer() -> None:
    seeks = Seeks(Limits(seeks_per_connection=10, seeks=3))
    entrant = Seeker("entrant", "10.0.0.1")
    for _ in range(3):
        kept = a_seek(seeks, entrant)
        kept.kept = True
        seeks.add(kept)
    assert seeks.make_room(a_seek(seeks, Seeker("newcomer", "10.0.0.2"))) is not None
    assert not entrant.sent


async def seeker(opened: AsyncExitStack, port: int, address: str, name: str) -> Raw:
    """A raw client from `address` (a loopback address standing for a machine), welcomed, and
    closed when `opened` is."""
    stream = await opened.enter_async_context(
        await trio.open_tcp_stream(HOST, port, local_address=address)
    )
    client = Raw(stream)
    assert isinstance(await client.hello(name), protocol.Welcome)
    return client


def a_seek_for(limit: int) -> protocol.Seek:
    return protocol.Seek(
        game="kings-court", options={"no_capture_limit": limit}, time={"move": 30.0}
    )


@pytest.mark.limits(Limits(seeks_per_connection=4, seeks_per_address=6, seeks=18))
async def test_three_addresses_that_fill_the_table_cannot_keep_a_bystander_from_playing(
    server: RunningServer,
) -> None:
    async with AsyncExitStack() as opened:
        attackers = []
        limit = 1
        for machine in range(1, 4):
            address = f"127.0.5.{machine}"
            for connection in range(2):
                attacker = await seeker(
                    opened, server.port, address, f"hoarder{machine}-{connection}"
                )
                attackers.append(attacker)
                for _ in range(4 if connection == 0 else 2):
                    await attacker.send(a_seek_for(limit))
                    assert isinstance(await attacker.receive(), protocol.Seeking)
                    limit += 1
            await attacker.send(a_seek_for(limit))  # the address's 7th, on a connection with 2
            refusal = await attacker.receive()
            assert error_code(refusal) == ErrorCode.TOO_MANY_SEEKS
            assert isinstance(refusal, protocol.Error)
            assert f"your address {address} holds 6 open seeks" in refusal.message
        bystander = await seeker(opened, server.port, "127.0.9.1", "bystander")
        await bystander.send(a_seek_for(900))  # the table is full: an attacker's newest goes
        assert isinstance(await bystander.receive(), protocol.Seeking)
        why = await attackers[1].receive()  # 127.0.5.1's newest, on its second connection
        assert isinstance(why, protocol.Error)
        assert why.code == ErrorCode.TOO_MANY_SEEKS
        assert isinstance(await attackers[1].receive(), protocol.SeekCancelled)
        partner = await seeker(opened, server.port, "127.0.9.2", "partner")
        await partner.send(a_seek_for(900))
        assert isinstance(await partner.receive(), protocol.MatchStarted)
        assert isinstance(await bystander.receive(), protocol.MatchStarted)
