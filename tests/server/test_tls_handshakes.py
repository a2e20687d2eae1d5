"""TLS handshakes are paced (`admission.Handshakes`), per address and server-wide, so a flood
of them cannot crowd the event loop: real TLS with trustme's certificates, on 127.0.x.y."""

from __future__ import annotations

import ssl
from functools import partial
from pathlib import Path

import pytest
import trio
import trustme

from arbiter.server.app import bound_port, serve, server_tls
from arbiter.server.connection.admission import Admission, Handshakes
from tests.conftest import HOST


def test_a_handshake_waits_for_its_turn_of_its_address_and_of_the_server() -> None:
    handshakes = Handshakes(
        Admission(tls_handshakes_per_address=2, max_per_address=3, tls_handshakes_per_second=5),
        now=0,
    )
    turns = [handshakes.turn("a", now=0, within=10) for _ in range(5)]
    assert turns == [0, 0, 0, 0.5, 1.0]  # a burst of 3, then 2 a second
    assert handshakes.turn("b", now=0, within=10) == 0  # the server's burst is 10
    assert handshakes.turn("a", now=0, within=1.2) is None  # its turn would come at 1.5
    for _ in range(4):
        handshakes.turn(f"c{_}", now=0, within=10)
    assert handshakes.turn("d", now=0, within=10) == 0.2  # the server's burst of 10 is spent
    assert handshakes.turn("e", now=0, within=0.1) is None


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The CA's certificate, the server's chain and its key, for 127.0.0.1."""
    folder = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    issued = ca.issue_cert(HOST)
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca.cert_pem.write_to_path(str(paths[0]))
    issued.private_key_pem.write_to_path(str(paths[2]))
    paths[1].write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
    return paths


async def tls_server(
    nursery: trio.Nursery, tmp_path: Path, certificates: tuple[Path, Path, Path], **limits: float
) -> int:
    tls = server_tls(certificates[1], certificates[2])
    start = partial(serve, HOST, 0, tmp_path / "tls.db", tls=tls, admission=Admission(**limits))
    return bound_port(await nursery.start(start))


async def handshake(port: int, address: str, ca: Path) -> float:
    """Seconds from connecting to a finished handshake; closes the connection after."""
    began = trio.current_time()
    stream = await trio.open_tcp_stream(HOST, port, local_address=address)
    secure = trio.SSLStream(stream, ssl.create_default_context(cafile=ca), server_hostname=HOST)
    try:
        await secure.do_handshake()
        return trio.current_time() - began
    finally:
        await trio.aclose_forcefully(secure)


async def test_an_address_past_its_handshake_burst_waits_its_turn_and_others_do_not(
    nursery: trio.Nursery, tmp_path: Path, certificates: tuple[Path, Path, Path]
) -> None:
    port = await tls_server(
        nursery, tmp_path, certificates, tls_handshakes_per_address=2.0, max_per_address=3
    )
    ca = certificates[0]
    began = trio.current_time()
    for _ in range(3):
        assert await handshake(port, "127.0.8.1", ca) < 0.3  # its burst
    waited = [await handshake(port, "127.0.8.1", ca) for _ in range(2)]
    assert all(0.3 < seconds < 1.0 for seconds in waited), waited  # then 2 a second
    assert trio.current_time() - began >= 0.9
    assert await handshake(port, "127.0.8.2", ca) < 0.3  # another address: its own burst


async def test_a_handshake_whose_turn_comes_after_its_deadline_is_closed_at_once(
    nursery: trio.Nursery, tmp_path: Path, certificates: tuple[Path, Path, Path]
) -> None:
    port = await tls_server(
        nursery, tmp_path, certificates, tls_handshakes_per_address=0.05, max_per_address=1
    )
    ca = certificates[0]
    await handshake(port, "127.0.8.3", ca)
    began = trio.current_time()
    with pytest.raises(trio.BrokenResourceError):  # its turn is 20 s away, past the 10 s
        await handshake(port, "127.0.8.3", ca)
    assert trio.current_time() - began < 1.0
    assert await handshake(port, "127.0.8.4", ca) < 0.3


async def test_a_flood_of_handshakes_from_many_addresses_keeps_to_the_servers_rate(
    nursery: trio.Nursery, tmp_path: Path, certificates: tuple[Path, Path, Path]
) -> None:
    port = await tls_server(nursery, tmp_path, certificates, tls_handshakes_per_second=10.0)
    ca = certificates[0]
    finished: list[float] = []
    began = trio.current_time()

    async def flood(address: str) -> None:
        finished.extend([await handshake(port, address, ca) for _ in range(4)])

    async with trio.open_nursery() as flooders:
        for number in range(1, 21):
            flooders.start_soon(flood, f"127.0.9.{number}")
    seconds = trio.current_time() - began
    assert len(finished) == 80
    assert seconds >= (80 - 20) / 10 - 0.5, seconds  # a burst of 20, then 10 a second
