"""Token checks (`server.connection.token_checks`) with real scrypt: a returning player's token is
known without hashing, every other check is paced server-wide (trusted addresses first, the rest
refused past the wait), guesses from addresses that failed lately are paced apart, and a real
player's hello stays fast while many addresses guess (over real TCP, on 127.0.x.y addresses)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import Admission
from arbiter.server.connection.token_checks import SUSPECT_WAIT, TOKEN_WAIT, TokenChecks, TokensBusy
from arbiter.server.storage import accounts
from arbiter.server.storage.accounts import Credentials
from arbiter.server.storage.engine import open_database
from tests.conftest import HOST, RunningServer
from tests.server.test_admission import Raw, _register


def credentials(db: Path, name: str) -> Credentials:
    connection = open_database(db)
    try:
        found = accounts.credentials(connection, name)
    finally:
        connection.close()
    assert found is not None
    return found


def renewed(db: Path, name: str) -> str:
    connection = open_database(db)
    try:
        return accounts.renew(connection, name)
    finally:
        connection.close()


async def test_a_verified_token_is_known_again_without_a_hash_until_it_is_renewed(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arbiter.db"
    token = _register(db, "ann")
    found = credentials(db, "ann")
    checks = TokenChecks(Admission())
    began = time.perf_counter()
    assert await checks.check(found, token, "10.0.0.1") == found.account
    hashed = time.perf_counter() - began
    again = []
    for _ in range(5):
        began = time.perf_counter()
        assert await checks.check(found, token, "10.0.0.2") == found.account
        again.append(time.perf_counter() - began)
    assert min(again) < hashed / 10  # scrypt's 16 MiB take tens of ms; a lookup, microseconds
    assert await checks.check(found, "a guess", "10.0.0.3") is None
    new_token = renewed(db, "ann")
    fresh = credentials(db, "ann")
    assert await checks.check(fresh, token, "10.0.0.1") is None  # the old token: hashed, wrong
    assert await checks.check(fresh, new_token, "10.0.0.1") == fresh.account


async def test_checks_from_addresses_that_failed_lately_are_paced_and_refused_past_the_wait(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arbiter.db"
    _register(db, "ann")
    found = credentials(db, "ann")
    checks = TokenChecks(Admission(suspect_token_checks_per_second=1.0, token_failures=100))
    for address in ("10.0.0.1", "10.0.0.2"):
        assert await checks.check(found, "guess", address) is None  # now both are suspects
    done: list[float] = []
    busy: list[str] = []
    began = trio.current_time()

    async def guess(address: str) -> None:
        try:
            await checks.check(found, "guess", address)
            done.append(trio.current_time() - began)
        except TokensBusy as refused:
            busy.append(str(refused))

    async with trio.open_nursery() as nursery:
        for number in range(6):
            nursery.start_soon(guess, f"10.0.0.{1 + number % 2}")
    assert len(done) == 3
    assert len(busy) == 3
    assert done[1] >= 0.95
    assert done[2] >= 1.95
    assert "try again in 2 s" in busy[0]
    assert await checks.check(found, "guess", "10.0.0.9") is None  # a clean address: at once


async def test_checks_not_remembered_are_paced_server_wide_trusted_addresses_first(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arbiter.db"
    token = _register(db, "ann")
    checks = TokenChecks(Admission(token_checks_per_second=2.0))
    bound = int(2.0 * TOKEN_WAIT)  # checks of untrusted addresses that may wait
    assert await checks.check(credentials(db, "ann"), token, "10.1.0.1")  # now trusted
    new_token = renewed(db, "ann")  # its next check needs a hash again
    fresh = credentials(db, "ann")
    began = trio.current_time()
    guessed: list[float] = []
    busy: list[str] = []
    trusted_at: list[float] = []

    async def guess(address: str) -> None:
        try:
            assert await checks.check(fresh, "guess", address) is None
            guessed.append(trio.current_time() - began)
        except TokensBusy as refused:
            busy.append(str(refused))

    async def trusted() -> None:
        await trio.sleep(0.2)  # after the guesses have all queued
        assert await checks.check(fresh, new_token, "10.1.0.1") == fresh.account
        trusted_at.append(trio.current_time() - began)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trusted)
        for number in range(bound + 4):  # one under way, `bound` waiting, 3 refused
            nursery.start_soon(guess, f"10.2.0.{number}")
    assert len(busy) == 3
    assert len(guessed) == bound + 1
    assert "the server is busy checking tokens: try again in" in busy[0]
    assert max(guessed) >= bound / 2.0 - 0.05  # one every 0.5 s, the trusted one too
    assert trusted_at[0] < sorted(guessed)[3]  # ahead of all but the ones booked before it


@pytest.mark.long
@pytest.mark.admission(token_failures=2, token_backoff_seconds=0.2, token_checks=2)
async def test_a_real_players_hello_stays_fast_while_many_addresses_guess(
    server: RunningServer,
) -> None:
    assert isinstance(server.db, Path)
    _register(server.db, "ann")
    bob = _register(server.db, "bob")
    quiet = {name: _register(server.db, name) for name in ("cid", "dee", "eve")}
    guessers = [f"127.0.6.{number}" for number in range(1, 41)]
    failed: set[str] = set()
    every_guesser_failed = trio.Event()
    checked_at: list[float] = []

    async def guess(address: str) -> None:
        while True:
            async with await trio.open_tcp_stream(HOST, server.port, local_address=address) as s:
                answer = await Raw(s).hello("ann", token="guess")
            assert isinstance(answer, protocol.Error), answer
            if answer.code == ErrorCode.BAD_NAME:  # a check was made, and failed
                failed.add(address)
                checked_at.append(trio.current_time())
                if len(failed) == len(guessers):
                    every_guesser_failed.set()
            else:
                assert answer.code == ErrorCode.RATE_LIMITED, answer
                await trio.sleep(0.5)  # told to wait: a guesser's fastest is to come back soon

    async def hello_time(address: str, name: str, token: str) -> float:
        began = trio.current_time()
        async with await trio.open_tcp_stream(HOST, server.port, local_address=address) as s:
            assert isinstance(await Raw(s).hello(name, token=token), protocol.Welcome)
        return trio.current_time() - began

    alone = sorted([await hello_time("127.0.7.9", *player) for player in quiet.items()])[1]
    async with trio.open_nursery() as nursery:
        for address in guessers:
            for _ in range(2):  # two connections guessing at once from every address
                nursery.start_soon(guess, address)
        with trio.fail_after(30):
            await every_guesser_failed.wait()  # every guesser is a suspect now
        await trio.sleep(0.5)  # the check under way as the last one failed is over
        window = trio.current_time()
        first = await hello_time("127.0.7.1", "bob", bob)  # scrypt, beside the guessers
        returning = await hello_time("127.0.7.2", "bob", bob)  # known from the first: no scrypt
        await trio.sleep(3)
        guessed = sum(at >= window for at in checked_at)
        seconds = trio.current_time() - window
        nursery.cancel_scope.cancel()
    # Queued behind the guessers' hashes it took seconds; now it waits for one guess at most,
    # whatever the machine's load.
    assert first < 4 * alone + 0.5, (first, alone)
    assert returning < alone + 0.3, (returning, alone)
    assert guessed <= 2.0 * (seconds + SUSPECT_WAIT) + 1, (guessed, seconds)  # booked ahead too


def test_new_tokens_never_start_with_a_dash_so_a_command_line_reads_them_as_values() -> None:
    # One draw in 64 of URL-safe base64 starts with '-'; 3,000 draws all miss it by chance
    # about once in 10**20.
    tokens = [accounts.new_token() for _ in range(3000)]
    assert not [token for token in tokens if token.startswith("-")]
    assert len(set(tokens)) == len(tokens)
