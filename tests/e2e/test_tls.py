"""TLS: `arbiter-server --tls-cert --tls-key` and the clients' `--tls`/`--tls-ca`, with
certificates of a private CA that trustme makes for 127.0.0.1."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
import trio
import trustme

from arbiter.agents import make_agent
from arbiter.client.connection import ClientConnection, TLSFailed, client_tls
from arbiter.client.runner import run_bot
from arbiter.protocol import ErrorCode
from arbiter.server import app
from arbiter.server.app import bound_port, serve, server_tls
from tests.client.uploads import BOOK_BYTES, PLAYER, upload_replaced_midway
from tests.processes import CLI, ROOT, SERVER, start_bots, start_server, stop
from tests.tournament.helpers import register

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Certificates:
    ca: Path
    """The private CA's certificate: what a client passes as --tls-ca."""
    cert: Path
    key: Path


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    folder = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    issued = ca.issue_cert(HOST, "localhost")
    made = Certificates(folder / "ca.pem", folder / "cert.pem", folder / "key.pem")
    ca.cert_pem.write_to_path(str(made.ca))
    issued.private_key_pem.write_to_path(str(made.key))
    with made.cert.open("wb") as chain:  # as Let's Encrypt's fullchain.pem: leaf, then issuers
        for blob in issued.cert_chain_pems:
            chain.write(blob.bytes())
    return made


async def start_tls_server(
    nursery: trio.Nursery, tmp_path: Path, certificates: Certificates
) -> int:
    tls = server_tls(certificates.cert, certificates.key)
    listeners = await nursery.start(partial(serve, HOST, 0, tmp_path / "tls.db", tls=tls))
    return bound_port(listeners)


@contextmanager
def tls_server_process(tmp_path: Path, certificates: Certificates) -> Iterator[str]:
    """`arbiter-server --tls-cert --tls-key` on a free port; yields its HOST:PORT."""
    tls = ("--tls-cert", str(certificates.cert), "--tls-key", str(certificates.key))
    server, address = start_server(tmp_path / "tls.db", *tls)
    try:
        yield address
    finally:
        stop(server, signal.SIGTERM)


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_two_bots_play_over_tls(tmp_path: Path, certificates: Certificates) -> None:
    with tls_server_process(tmp_path, certificates) as address:
        bots = start_bots(address, "--tls-ca", str(certificates.ca))
        for bot in bots:
            out, err = bot.communicate(timeout=60)
            assert bot.returncode == 0, err
            assert out.startswith("match 1: "), out


def test_check_relays_to_a_tls_server(tmp_path: Path, certificates: Certificates) -> None:
    """`arbiter check --server --tls-ca`: the client under test talks plain TCP to the check's
    relay, which talks TLS to the server; the probes connect over TLS too."""
    with tls_server_process(tmp_path, certificates) as address:
        done = run(
            [
                *CLI,
                "check",
                "random",
                "--server",
                address,
                "--tls-ca",
                str(certificates.ca),
                "--game",
                "war-of-life",
                "--move-time",
                "1",
            ]
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 of 7 steps passed" in done.stdout


def test_a_plain_client_is_told_to_use_tls(tmp_path: Path, certificates: Certificates) -> None:
    with tls_server_process(tmp_path, certificates) as address:
        done = run([*CLI, "bot", "--server", address, "--game", "kings-court", "--agent", "random"])
    assert done.returncode == 1
    assert "this server speaks TLS: connect with --tls" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_untrusted_certificate_is_one_sentence(
    tmp_path: Path, certificates: Certificates
) -> None:
    """--tls trusts the system's authorities, which never signed trustme's CA."""
    with tls_server_process(tmp_path, certificates) as address:
        done = run(
            [*CLI, "watch", "1", "--server", address, "--tls"],
        )
    assert done.returncode == 1
    assert f"{address}'s certificate is not trusted" in done.stderr
    assert "--tls-ca FILE" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_server_names_a_certificate_it_cannot_use(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.pem")
    done = run([*SERVER, "--port", "0", "--tls-cert", missing, "--tls-key", missing])
    assert done.returncode == 1
    assert "cannot use the TLS certificate and key" in done.stderr
    done = run([*SERVER, "--port", "0", "--tls-cert", missing])
    assert done.returncode == 2
    assert "--tls-cert and --tls-key go together" in done.stderr


def test_a_bad_ca_file_is_named_before_connecting(tmp_path: Path) -> None:
    done = run([*CLI, "tournament", "status", "t", "--server", "127.0.0.1:1", "--tls-ca", "nope"])
    assert done.returncode == 2
    assert "cannot use 'nope' as a CA certificate" in done.stderr


async def test_games_over_tls_in_process(
    nursery: trio.Nursery, tmp_path: Path, certificates: Certificates
) -> None:
    port = await start_tls_server(nursery, tmp_path, certificates)
    tls = client_tls(str(certificates.ca))
    results = []
    async with trio.open_nursery() as players:
        for agent in ("greedy", "random"):
            bot = partial(
                run_bot,
                HOST,
                port,
                "war-of-life",
                lambda game, number, agent=agent: make_agent(agent, game, number),
                name=agent,
                games=2,
                tls=tls,
                on_result=results.append,
            )
            players.start_soon(bot)
    assert len(results) == 4
    assert {record.match for record in results} == {1, 2}


async def test_another_cas_certificate_is_not_trusted(
    nursery: trio.Nursery, tmp_path: Path, certificates: Certificates
) -> None:
    port = await start_tls_server(nursery, tmp_path, certificates)
    other = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    with pytest.raises(TLSFailed) as caught:
        await ClientConnection.open(HOST, port, "alice", tls=client_tls(str(other)))
    assert str(caught.value) == (
        f"{HOST}:{port}'s certificate is not trusted (unable to get local issuer certificate):"
        " with a private CA, name its certificate with --tls-ca FILE"
    )


async def test_an_upload_replaced_midway_over_tls_ends_with_session_replaced(
    nursery: trio.Nursery, tmp_path: Path, certificates: Certificates
) -> None:
    """Over TLS, a client cannot read on after a reset (its TLS stream is broken), so only the
    server's hang-up lets it read why it was closed: it must not reset the client mid-upload."""
    port = await start_tls_server(nursery, tmp_path, certificates)
    token = register(tmp_path / "tls.db", "ann")["ann"]
    tls = client_tls(str(certificates.ca))
    for round in range(5):
        files = {"agent.py": PLAYER, "book.txt": bytes([round]) * BOOK_BYTES}
        refusal = await upload_replaced_midway(port, token, f"agent-{round}", files, tls)
        assert refusal is not None, "the upload went through before the newer hello"
        assert refusal.code == ErrorCode.SESSION_REPLACED


async def test_a_tls_client_against_a_plain_server(nursery: trio.Nursery, tmp_path: Path) -> None:
    listeners = await nursery.start(partial(serve, HOST, 0, tmp_path / "plain.db"))
    with pytest.raises(TLSFailed, match="does that server serve TLS"):
        await ClientConnection.open(HOST, bound_port(listeners), "alice", tls=client_tls())


async def test_a_stalled_handshake_is_cut_off_and_blocks_nobody(
    nursery: trio.Nursery,
    tmp_path: Path,
    certificates: Certificates,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client that connects and sends nothing, and one that starts a handshake and stops,
    do not stop the next client's handshake; both are closed at the deadline."""
    monkeypatch.setattr(app, "HANDSHAKE_SECONDS", 0.5)
    port = await start_tls_server(nursery, tmp_path, certificates)
    async with (
        await trio.open_tcp_stream(HOST, port) as silent,
        await trio.open_tcp_stream(HOST, port) as halfway,
    ):
        await halfway.send_all(b"\x16\x03\x01")  # the start of a TLS record, and no more
        started = trio.current_time()
        async with await ClientConnection.open(
            HOST, port, "alice", tls=client_tls(str(certificates.ca))
        ) as connection:
            assert connection.session
        assert trio.current_time() - started < 0.4
        with trio.fail_after(3):
            for stalled in (silent, halfway):
                assert await stalled.receive_some(100) == b""  # the server closed it
        assert trio.current_time() - started >= 0.4
