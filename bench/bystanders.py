"""The people an attack must not hurt: two bot matches, and a bystander's hello and page load.

The bots run in a child process of bench/abuse.py (`--bots PORT`), so the attacker's work in
the parent takes none of their time, and print one line per event for the parent to slice by
attack (WALL is `time.time()`):

    match ID                    a match started
    lat WALL SECONDS            a move's latency: sent to the opponent's next `your_turn`
    ack MATCH PLY               the server accepted our move (`move_accepted`)
    over WALL MATCH REASON      a game ended
    error WALL CODE MATCH       an `error` frame (MATCH `-` when it names none)

The probes run in the parent beside each attack, from 127.0.0.4.
"""

from __future__ import annotations

import random
import ssl
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field

import trio
from attacking import (
    BOTS_FROM,
    BYSTANDERS_FROM,
    CLOSED,
    VERSION,
    HttpLink,
    Link,
    Target,
    open_stream,
)

from arbiter.games import get_game

STUCK_TURNS = 3
"""A bot that hears nothing for this many move limits seeks a new match (its match stalled)."""


async def bots(port: int, move_seconds: float, tls: ssl.SSLContext | None) -> None:
    """Play King's Court in two matches forever."""
    sent: dict[int, float] = {}
    async with trio.open_nursery() as nursery:
        for index in range(4):
            nursery.start_soon(bot, port, tls, f"bot-{index}", move_seconds, sent)


async def bot(
    port: int, tls: ssl.SSLContext | None, name: str, move_seconds: float, sent: dict[int, float]
) -> None:
    game = get_game("kings-court")
    link = Link(await open_stream(port, tls, BOTS_FROM))
    await link.send({"type": "hello", "version": VERSION, "name": name})
    seek = {"type": "seek", "game": game.name, "time": {"move": move_seconds}}
    await link.send(seek)
    while True:
        with trio.move_on_after(STUCK_TURNS * move_seconds) as waited:
            frame = await link.receive()
        if waited.cancelled_caught:
            await link.send(seek)
            continue
        kind = frame["type"]
        if kind == "ping":
            await link.send({"type": "pong", "nonce": frame["nonce"]})
        elif kind == "match_started":
            print(f"match {frame['match']}", flush=True)
        elif kind == "your_turn":
            match = frame["match"]
            if match in sent:
                print(f"lat {time.time()} {trio.current_time() - sent.pop(match)}", flush=True)
            legal = frame["legal"]
            if legal is None:
                state = game.state_from_data(frame["state"])
                legal = game.format_moves(state.legal_moves())
            sent[match] = trio.current_time()
            await link.send({"type": "move", "match": match, "move": random.choice(legal)})
        elif kind == "move_accepted":
            print(f"ack {frame['match']} {frame['ply']}", flush=True)
        elif kind == "game_over":
            sent.pop(frame["match"], None)
            print(f"over {time.time()} {frame['match']} {frame['reason']}", flush=True)
            await link.send(seek)
        elif kind == "error":
            match = frame.get("match")
            print(f"error {time.time()} {frame['code']} {match or '-'}", flush=True)
            if match is not None:
                sent.pop(match, None)
                await link.send(seek)  # that match is lost to us: play another


PROBE_EVERY = 2.0
PROBE_TIMEOUT = 5.0
"""A probe that takes longer failed: no bystander waits this long for a hello or a page."""


@dataclass
class Probes:
    """A bystander's hello, a registered player's hello and a page load, timed every
    `PROBE_EVERY` seconds; None for one that failed or timed out."""

    seconds: dict[str, list[float | None]] = field(default_factory=dict)

    def failed(self) -> list[str]:
        return [name for name, times in self.seconds.items() if None in times]


async def probe(target: Target, probes: Probes) -> None:
    """Probe until cancelled."""
    count = 0
    while True:
        count += 1
        await _time(probes, "hello", _hello(target, f"bystander-{count}"))
        await _time(probes, "token", _hello(target, "victim", token=target.victim_token))
        if target.web_url is not None:
            await _time(probes, "page", _page(target))
        await trio.sleep(PROBE_EVERY)


async def _time(probes: Probes, name: str, attempt: Awaitable[None]) -> None:
    began = trio.current_time()
    outcome: float | None = None
    with trio.move_on_after(PROBE_TIMEOUT):
        try:
            await attempt
            outcome = trio.current_time() - began
        except CLOSED:
            pass
    probes.seconds.setdefault(name, []).append(outcome)


async def _hello(target: Target, name: str, **extra: str) -> None:
    """Connect, say hello, wait for `welcome` (EOFError if refused), and leave."""
    link = Link(await open_stream(target.port, target.tls, BYSTANDERS_FROM))
    try:
        await link.send({"type": "hello", "version": VERSION, "name": name, **extra})
        while (frame := await link.receive())["type"] != "welcome":
            if frame["type"] == "error":
                raise EOFError(f"hello refused: {frame['code']}")
    finally:
        await trio.aclose_forcefully(link.stream)


async def _page(target: Target) -> None:
    page = await HttpLink.open(target, BYSTANDERS_FROM)
    try:
        status, _ = await page.get("/")
        if status != 200:
            raise EOFError(f"the lobby page answered {status}")
    finally:
        await trio.aclose_forcefully(page.stream)
