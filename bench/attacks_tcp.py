"""The attacks on the protocol port (TCP, or TLS for `tls-handshakes`): floods under and over
the per-connection limits, idle and slow clients, seeks, token guesses, non-readers. Each is
bounded in connections, frames and time; bench/abuse.py runs them."""

from __future__ import annotations

import itertools
import socket
import ssl
import statistics
import threading
import time
from collections.abc import Callable
from functools import partial

import trio
from attacking import (
    BYSTANDERS_FROM,
    CLOSED,
    HOST,
    VERSION,
    Attack,
    Link,
    Target,
    Verdict,
    connect,
    flood,
    hello,
    holds_back,
    socket_of,
    until_closed_unread,
    watch_for_cut,
)

from arbiter.protocol import encode_frame
from arbiter.server.connection.admission import DEFAULT

FLOOD_CONNECTIONS = 64
"""Connections from one address in the floods: the default per-address cap."""
PACE_SLACK = 1.1
"""How far over a server-wide pace (TLS handshakes, token checks) an attacker may get and still
count as held to it: the server books a turn as a request arrives, the bench times its end."""


async def watch_flood(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """Two connections each sending 1,000 `watch` of 20 finished matches in one write."""
    for index in range(2):
        link = await hello(target, verdict, f"watcher-{index}")
        await link.send(*[{"type": "watch", "match": 1 + n % 20} for n in range(1000)])
        nursery.start_soon(watch_for_cut, link, verdict)


async def idle(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """300 connections that never say `hello`."""
    for _ in range(300):
        try:
            link = await connect(target, verdict)
        except OSError:
            verdict.note()
            continue
        nursery.start_soon(watch_for_cut, link, verdict)


async def slowloris(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """50 connections sending a `hello` one byte a second."""
    frame = encode_frame({"type": "hello", "version": VERSION, "name": "slow"})
    for _ in range(50):
        link = await connect(target, verdict)
        nursery.start_soon(drip, link, frame, verdict)


async def drip(link: Link, frame: bytes, verdict: Verdict) -> None:
    try:
        for byte in frame:
            await link.send_bytes(bytes([byte]))
            await trio.sleep(1.0)
        await trio.sleep_forever()
    except CLOSED:
        verdict.note(link.opened)


async def silent(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """A client that reads everything and never answers a ping."""
    link = await hello(target, verdict, "silent")
    nursery.start_soon(watch_for_cut, link, verdict, False)


async def ping_flood(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """One connection sending pings as fast as it can (at most 2,000,000)."""
    link = await hello(target, verdict, "pinger")
    nursery.start_soon(watch_for_cut, link, verdict, False)  # a pong could wait on the flood
    batch = encode_frame({"type": "ping", "nonce": 1}) * 1000
    try:
        for _ in range(2000):
            await link.send_bytes(batch)
    except CLOSED:
        pass


async def seek_flood(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """30,000 open seeks from one connection (Amazons: no bot pairs with them)."""
    link = await hello(target, verdict, "seeker")
    nursery.start_soon(watch_for_cut, link, verdict, False)
    seeks = [{"type": "seek", "game": "amazons"}] * 1000
    try:
        for _ in range(30):
            await link.send(*seeks)
    except CLOSED:
        pass


async def token_guess(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """16 wrong-token `hello`s a second for the registered player `victim`, from one address."""
    guesser = Verdict()
    for attempt in range(16 * 20):
        if await guess(target, guesser, target.address(), attempt):
            verdict.connections = 1
            verdict.note()
            return
        await trio.sleep(1 / 16)


async def guess(target: Target, verdict: Verdict, address: str, attempt: int) -> bool:
    """One wrong-token hello for `victim`: whether the server answered with a limit."""
    try:
        link = await hello(target, verdict, "victim", address, token=f"guess-{attempt:032d}")
    except OSError:
        return True  # refused at the door
    try:
        with trio.move_on_after(5.0):
            frame = await link.receive()
            return frame["type"] == "error" and holds_back(frame["code"])
    except CLOSED:
        pass
    finally:
        await trio.aclose_forcefully(link.stream)
    return False


async def token_spray(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """Wrong-token `hello`s for `victim` from 150 addresses at once, each address guessing
    one after the other (at most 10 each, so under a per-address backoff).

    One attacker spread over addresses, held back by a server-wide pace of token checks
    (`Admission.token_checks_per_second`) and refusals past its queue: it is cut off at the
    server's first refusal, and misses "token pace" if it still got more guesses checked
    than that pace allows. (Each address's last refusal is no measure: an address whose
    guesses are checked slowly, at the pace, is refused late or never.)"""
    guessed: list[float] = []

    async def from_address(index: int) -> None:
        for attempt in range(10):
            if await guess(target, Verdict(), target.address(index), 1000 * index + attempt):
                if not verdict.cut:
                    verdict.note()
                return
            guessed.append(trio.current_time())

    verdict.connections = 1
    try:
        async with trio.open_nursery() as guessers:
            for index in range(150):
                guessers.start_soon(from_address, index)
    finally:
        elapsed = (guessed[-1] - verdict.started) if guessed else 0.0
        rate = len(guessed) / elapsed if elapsed else 0.0
        pace = DEFAULT.token_checks_per_second
        verdict.notes.append(
            f"{len(guessed)} wrong tokens checked, {rate:.1f}/s (the server's pace: {pace:g}/s)"
        )
        if len(guessed) > PACE_SLACK * pace * elapsed + 1:
            verdict.missed.append("token pace")


def batches(*frames: dict[str, object]) -> bytes:
    return b"".join(map(encode_frame, frames))


async def many_floods(
    target: Target,
    verdict: Verdict,
    nursery: trio.Nursery,
    name: str,
    frames: Callable[[int], bytes],
) -> None:
    """`FLOOD_CONNECTIONS` connections from one address, each flooding `frames(n)`."""
    for index in range(FLOOD_CONNECTIONS):
        try:
            link = await hello(target, verdict, f"{name}-{index}")
        except OSError:
            verdict.note()
            continue
        nursery.start_soon(flood, link, frames, verdict)


PINGS = batches(*[{"type": "ping", "nonce": n} for n in range(90)])


async def ping_flood_64(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """64 connections from one address, each at 900 pings a second: under the per-connection
    rate (1,000/s), over what the server can answer for everyone."""
    await many_floods(target, verdict, nursery, "pinger", lambda _: PINGS)


LIST_GAMES = batches(*[{"type": "list_games"}] * 20)


async def list_games_flood(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """64 connections from one address, each asking `list_games` 200 times a second (about
    3 KB of answer each), reading every answer."""
    await many_floods(target, verdict, nursery, "lister", lambda _: LIST_GAMES)


UNKNOWN = 1 << 40
"""Match ids far above any the server has made."""


async def unknown_watch(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """64 connections from one address, each sending 500 `watch`es a second of match ids that
    do not exist (a fresh id each time, so no answer can be remembered per id)."""

    def watches(batch: int) -> bytes:
        first = UNKNOWN + 50 * batch
        return batches(*[{"type": "watch", "match": first + n} for n in range(50)])

    counter = itertools.count()
    await many_floods(target, verdict, nursery, "unknown", lambda _: watches(next(counter)))


SEEK_FILL_ADDRESSES = 5
SEEKS_PER_CONNECTION = 32
"""The server's default `Limits.seeks_per_connection`: the fill stays under it."""


async def seek_fill(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """64 connections from each of 5 addresses, each holding 32 challenges no one will take
    (the server-wide table holds 10,000); every 2 s two bystanders challenge each other and
    should be paired (from the start, as the table fills).

    Judged by address, not by connection: the limit that holds this attack back is an
    address's share of the table (`seeks_per_address`), so an address's first connections,
    whose seeks fit its share, are rightly never refused anything; the attack is throttled
    once every address has been refused (`too_many_seeks`) or cut off."""
    nursery.start_soon(bystander_pairs, target, verdict)
    addresses = [target.address(index) for index in range(SEEK_FILL_ADDRESSES)]
    held_back: set[str] = set()
    verdict.connections = len(addresses)

    def refused(address: str) -> None:
        if address not in held_back:
            held_back.add(address)
            verdict.note()

    async def until_refused(link: Link, address: str) -> None:
        await watch_for_cut(link, Verdict())
        refused(address)

    for index in range(SEEK_FILL_ADDRESSES * FLOOD_CONNECTIONS):
        address = addresses[index % SEEK_FILL_ADDRESSES]
        try:
            link = await hello(target, Verdict(), f"filler-{index}", address)
            seeks = [
                {"type": "seek", "game": "amazons", "opponent": f"nobody-{index}-{n}"}
                for n in range(SEEKS_PER_CONNECTION)
            ]
            await link.send(*seeks)
        except OSError:
            refused(address)
            continue
        nursery.start_soon(until_refused, link, address)


async def bystander_pairs(target: Target, verdict: Verdict) -> None:
    paired: list[float] = []
    refused: list[str] = []
    try:
        for round_ in itertools.count():
            began = trio.current_time()
            outcome = await pair_two(target, round_)
            if outcome is None:
                paired.append(trio.current_time() - began)
            else:
                refused.append(outcome)
            await trio.sleep(2.0)
    finally:
        tried = len(paired) + len(refused)
        median = f" in {1e3 * statistics.median(paired):.0f} ms (median)" if paired else ""
        why = f"; not paired: {', '.join(sorted(set(refused)))}" if refused else ""
        verdict.notes.append(
            f"bystanders' challenges: {len(paired)} of {tried} paired{median}{why}"
        )
        if refused or not tried:
            verdict.missed.append("bystander seek")


async def pair_two(target: Target, round_: int) -> str | None:
    """Two bystanders challenge each other: None once paired, else why not."""
    names = (f"pair-a-{round_}", f"pair-b-{round_}")
    links: list[Link] = []
    try:
        with trio.move_on_after(5.0):
            for mine, theirs in (names, names[::-1]):
                link = await hello(target, Verdict(), mine, BYSTANDERS_FROM)
                links.append(link)
                await link.send({"type": "seek", "game": "amazons", "opponent": theirs})
            while True:
                frame = await links[0].receive()
                if frame["type"] == "match_started":
                    await links[0].send({"type": "resign", "match": frame["match"]})
                    return None
                if frame["type"] == "error":
                    return str(frame["code"])
        return "timed out"
    except CLOSED:
        return "closed"
    finally:
        for link in links:
            await trio.aclose_forcefully(link.stream)


async def non_readers(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """100 clients following the lobby and watching the bots' live matches, never reading."""
    for index in range(100):
        link = await hello(target, verdict, f"gazer-{index}", target.address(index // 50))
        follow = {"type": "lobby", "follow": True}
        await link.send(follow, *[{"type": "watch", "match": m} for m in target.live_matches[-2:]])
        nursery.start_soon(until_closed_unread, socket_of(link.stream), link.opened, verdict)


async def huge_option(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """A King's Court seek whose game could outgrow every message: `no_capture_limit` 2**62."""
    link = await hello(target, verdict, "bigopt")
    await link.send({"type": "seek", "game": "kings-court", "options": {"no_capture_limit": 2**62}})
    try:
        while True:
            frame = await link.receive()
            if frame["type"] == "error" and frame["code"] == "bad_option":
                verdict.note()
                return
    except CLOSED:
        verdict.note()


HANDSHAKE_THREADS = 16
HANDSHAKES_PER_THREAD = 400


async def tls_handshakes(target: Target, verdict: Verdict, nursery: trio.Nursery) -> None:
    """16 threads each making TLS handshakes one after the other (at most 400 each), from 16
    addresses, closing each connection as soon as it is secure.

    The server holds this attack back by pacing, not refusing: a handshake over its rate
    (`Admission.tls_handshakes_per_second`, after a burst of twice that) waits its turn. So
    the attacker counts as throttled when one was refused, or when all it achieved stayed
    within that pace (the burst, then the rate), from the moment its burst was spent: the
    server then did all it promised, each handshake's cost to the loop bounded."""
    assert target.tls is not None, "tls-handshakes needs the TLS server"
    rate = DEFAULT.tls_handshakes_per_second
    burst = 2 * rate
    stop = threading.Event()
    done: list[float] = []
    refused: list[float] = []

    def handshakes(address: str) -> None:
        for _ in range(HANDSHAKES_PER_THREAD):
            if stop.is_set():
                return
            try:
                with socket.create_connection((HOST, target.port), 5.0, (address, 0)) as raw:
                    assert target.tls is not None
                    with target.tls.wrap_socket(raw, server_hostname=HOST):
                        done.append(time.monotonic())
            except (OSError, ssl.SSLError):
                refused.append(time.monotonic())

    verdict.connections = 1
    began = time.monotonic()
    try:
        async with trio.open_nursery() as threads:
            for index in range(HANDSHAKE_THREADS):
                run = partial(trio.to_thread.run_sync, abandon_on_cancel=True)
                threads.start_soon(run, handshakes, target.address(index))
    finally:
        stop.set()
        elapsed = time.monotonic() - began
        verdict.notes.append(
            f"{len(done)} TLS handshakes, {len(done) / elapsed:.0f}/s (the server's pace:"
            f" {rate:g}/s after {burst:g} at once); {len(refused)} refused"
        )
        paced = burst < len(done) <= PACE_SLACK * (burst + rate * elapsed)
        if refused:
            verdict.cut.append(refused[0] - began)
        elif paced:
            verdict.cut.append(sorted(done)[int(burst)] - began)


ATTACKS = [
    Attack("watch-flood", watch_flood),
    Attack("idle", idle),
    Attack("slowloris", slowloris),
    Attack("silent", silent),
    Attack("ping-flood", ping_flood),
    Attack("seek-flood", seek_flood),
    Attack("token-guess", token_guess),
    Attack("non-readers", non_readers),
    Attack("huge-option", huge_option),
    Attack("ping-flood-64", ping_flood_64),
    Attack("list-games-flood", list_games_flood),
    Attack("unknown-watch", unknown_watch),
    Attack("token-spray", token_spray),
    Attack("seek-fill", seek_fill),
    Attack("tls-handshakes", tls_handshakes, server="tls"),
]
