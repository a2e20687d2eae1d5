"""Hostile clients beside two bot matches: what each attack costs everyone else.

    python bench/abuse.py [--seconds 12] [--attacks watch-flood,idle,...]

One Arbiter server with its default limits (SQLite in a temporary folder, a registered player
`victim`), two King's Court bot matches with a 1 s move limit playing on and on in a child
process, and then, one after the other, each attack of issue 14 for `--seconds`, after a quiet
baseline of the same length. Everything stays on the loopback: the server listens on 127.0.0.1,
the bots connect from 127.0.0.2 and the attackers from 127.0.0.3, as two hosts would (limits per
address hold an attacker, not its neighbours). Every attack is bounded in connections, frames
and time.

Per attack it prints the server's peak resident memory, the bots' move latency (move sent to
the opponent's `your_turn`) p50/p99 against the baseline's, the bots' time forfeits, and how
long the server took to cut off or throttle the attacker (an `error` frame naming a limit, or
the connection closed), the slowest of its connections, each counted from its own connect
(`-` if one never was). The goals (issue 14): peak memory under 300 MB,
p99 within 2x the baseline, no forfeit, every attacker cut off or throttled within 10 s. The
script exits 1 when any is missed.
"""

from __future__ import annotations

import argparse
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio
from frames import FrameStream
from launch import percentile, resident_mb, start_server

from arbiter import protocol
from arbiter.games import get_game
from arbiter.protocol import encode_frame

HOST = "127.0.0.1"
BOTS_FROM = "127.0.0.2"
ATTACKERS_FROM = "127.0.0.3"
VERSION = protocol.PROTOCOL_VERSION
PEAK_MB_GOAL = 300.0
P99_GOAL = 2.0
CUT_OFF_GOAL = 10.0
THROTTLING = {
    "rate_limited",
    "too_many_seeks",
    "too_many_connections",
    "output_limit",
    "already_watching",
}
"""Error codes that mean the server is holding an attacker back (others just answer it)."""


# -- the bystanders: two bot matches in a child process ---------------------------------------


async def bots(port: int) -> None:
    """Play King's Court in two matches forever, printing `lat WALL SECONDS` per move, `over
    WALL REASON` per game and `match ID` per start, for the parent to slice by attack."""
    sent: dict[int, float] = {}
    async with trio.open_nursery() as nursery:
        for index in range(4):
            nursery.start_soon(bot, port, f"bot-{index}", sent)


async def bot(port: int, name: str, sent: dict[int, float]) -> None:
    game = get_game("kings-court")
    link = Link(await trio.open_tcp_stream(HOST, port, local_address=BOTS_FROM))
    await link.send({"type": "hello", "version": VERSION, "name": name})
    seek = {"type": "seek", "game": game.name, "time": {"move": 1.0}}
    await link.send(seek)
    while True:
        frame = await link.receive()
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
        elif kind == "game_over":
            sent.pop(frame["match"], None)
            print(f"over {time.time()} {frame['reason']}", flush=True)
            await link.send(seek)


# -- raw clients -------------------------------------------------------------------------------


class Link(FrameStream):
    """One connection speaking frames, with no checks of its own (an attacker's view)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        super().__init__(stream)
        self.opened = trio.current_time()
        self.sending = trio.Lock()
        """An attacker's flood and its pongs are two tasks writing one stream."""

    async def send(self, *payloads: dict[str, Any]) -> None:
        await self.send_bytes(b"".join(map(encode_frame, payloads)))

    async def send_bytes(self, data: bytes) -> None:
        async with self.sending:
            await self.stream.send_all(data)


@dataclass
class Verdict:
    """When the server first held the attack back: cut a connection or sent a limit's error."""

    started: float = field(default_factory=trio.current_time)
    cut: list[float] = field(default_factory=list)
    connections: int = 0

    def note(self, since: float | None = None) -> None:
        """One connection held back now; `since` is its connect (default: the attack's start)."""
        self.cut.append(trio.current_time() - (self.started if since is None else since))

    def seconds(self) -> float | None:
        """Time until every attacking connection was held back, or None if one never was."""
        return max(self.cut) if self.cut and len(self.cut) >= self.connections else None


async def watch_for_cut(link: Link, verdict: Verdict, answer_pings: bool = True) -> None:
    """Read until the server closes the connection or names a limit; note when."""
    try:
        while True:
            frame = await link.receive()
            if frame["type"] == "ping" and answer_pings:
                await link.send({"type": "pong", "nonce": frame["nonce"]})
            elif frame["type"] == "error" and frame["code"] in THROTTLING:
                break
    except (EOFError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    verdict.note(link.opened)


async def connect(verdict: Verdict) -> Link:
    verdict.connections += 1
    return Link(await trio.open_tcp_stream(HOST, port_of_server, local_address=ATTACKERS_FROM))


async def hello(verdict: Verdict, name: str, **extra: Any) -> Link:
    link = await connect(verdict)
    await link.send({"type": "hello", "version": VERSION, "name": name, **extra})
    return link


# -- the attacks (each bounded in connections, frames and time) --------------------------------


async def watch_flood(verdict: Verdict, nursery: trio.Nursery) -> None:
    """Two connections each sending 1,000 `watch` of 20 finished matches in one write."""
    for index in range(2):
        link = await hello(verdict, f"watcher-{index}")
        await link.send(*[{"type": "watch", "match": 1 + n % 20} for n in range(1000)])
        nursery.start_soon(watch_for_cut, link, verdict)


TCP_CLOSED_STATES = (7, 8)
"""TCP_CLOSE and TCP_CLOSE_WAIT in Linux's `tcp_info.tcpi_state`: the peer reset or closed."""


async def until_closed_unread(link: Link, verdict: Verdict) -> None:
    """Wait, reading nothing, until the server closes the connection (seen in the kernel's
    TCP state, which reading would change)."""
    while True:
        info = link.stream.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
        if info[0] in TCP_CLOSED_STATES:
            verdict.note(link.opened)
            return
        await trio.sleep(0.1)


async def idle(verdict: Verdict, nursery: trio.Nursery) -> None:
    """300 connections that never say `hello`."""
    for _ in range(300):
        try:
            link = await connect(verdict)
        except OSError:
            verdict.note()
            continue
        nursery.start_soon(watch_for_cut, link, verdict)


async def slowloris(verdict: Verdict, nursery: trio.Nursery) -> None:
    """50 connections sending a `hello` one byte a second."""
    frame = encode_frame({"type": "hello", "version": VERSION, "name": "slow"})
    for _ in range(50):
        link = await connect(verdict)
        nursery.start_soon(drip, link, frame, verdict)


async def drip(link: Link, frame: bytes, verdict: Verdict) -> None:
    try:
        for byte in frame:
            await link.send_bytes(bytes([byte]))
            await trio.sleep(1.0)
        await trio.sleep_forever()
    except (trio.BrokenResourceError, OSError):
        verdict.note(link.opened)


async def silent(verdict: Verdict, nursery: trio.Nursery) -> None:
    """A client that reads everything and never answers a ping."""
    link = await hello(verdict, "silent")
    nursery.start_soon(watch_for_cut, link, verdict, False)


async def ping_flood(verdict: Verdict, nursery: trio.Nursery) -> None:
    """One connection sending pings as fast as it can (at most 2,000,000)."""
    link = await hello(verdict, "pinger")
    nursery.start_soon(watch_for_cut, link, verdict, False)  # a pong could wait on the flood
    batch = encode_frame({"type": "ping", "nonce": 1}) * 1000
    try:
        for _ in range(2000):
            await link.send_bytes(batch)
    except (trio.BrokenResourceError, OSError):
        pass


async def seek_flood(verdict: Verdict, nursery: trio.Nursery) -> None:
    """30,000 open seeks from one connection (Amazons: no bot pairs with them)."""
    link = await hello(verdict, "seeker")
    nursery.start_soon(watch_for_cut, link, verdict, False)
    seeks = [{"type": "seek", "game": "amazons"}] * 1000
    try:
        for _ in range(30):
            await link.send(*seeks)
    except (trio.BrokenResourceError, OSError):
        pass


async def token_guess(verdict: Verdict, nursery: trio.Nursery) -> None:
    """16 wrong-token `hello`s a second for the registered player `victim`."""
    guesser = Verdict(connections=0)
    for attempt in range(16 * 20):
        link = await hello(guesser, "victim", token=f"guess-{attempt:032d}")
        try:
            with trio.move_on_after(1.0):
                frame = await link.receive()
                if frame["type"] == "error" and frame["code"] in THROTTLING:
                    break
        except (EOFError, trio.BrokenResourceError, OSError):
            pass
        await trio.aclose_forcefully(link.stream)
        await trio.sleep(1 / 16)
    else:
        return
    verdict.connections = 1
    verdict.note()


async def non_readers(verdict: Verdict, nursery: trio.Nursery) -> None:
    """100 clients watching the bots' live matches, never reading."""
    for index in range(100):
        link = await hello(verdict, f"gazer-{index}")
        await link.send(*[{"type": "watch", "match": m} for m in live_matches[-2:]])
        nursery.start_soon(until_closed_unread, link, verdict)


async def huge_option(verdict: Verdict, nursery: trio.Nursery) -> None:
    """A King's Court seek whose game could outgrow every message: `no_capture_limit` 2**62."""
    link = await hello(verdict, "bigopt")
    await link.send({"type": "seek", "game": "kings-court", "options": {"no_capture_limit": 2**62}})
    try:
        while True:
            frame = await link.receive()
            if frame["type"] == "error" and frame["code"] == "bad_option":
                verdict.note()
                return
    except (EOFError, trio.BrokenResourceError, OSError):
        verdict.note()


ATTACKS: dict[str, Callable[[Verdict, trio.Nursery], Awaitable[None]]] = {
    "watch-flood": watch_flood,
    "idle": idle,
    "slowloris": slowloris,
    "silent": silent,
    "ping-flood": ping_flood,
    "seek-flood": seek_flood,
    "token-guess": token_guess,
    "non-readers": non_readers,
    "huge-option": huge_option,
}

port_of_server = 0
live_matches: list[int] = []


# -- measuring ---------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    start: float = 0.0
    end: float = 0.0
    peak_mb: float = 0.0
    cut_off: float | None = None


async def run_phase(name: str, seconds: float, server_pid: int) -> Phase:
    phase = Phase(name, start=time.time())
    verdict = Verdict()
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            if name != "baseline":
                nursery.start_soon(ATTACKS[name], verdict, nursery)
            while True:
                phase.peak_mb = max(phase.peak_mb, resident_mb(server_pid))
                await trio.sleep(0.05)
    phase.end = time.time()
    phase.cut_off = verdict.seconds()
    return phase


def bot_lines(process: subprocess.Popen[str], sink: list[str]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        sink.append(line)
        if line.startswith("match "):
            live_matches.append(int(line.split()[1]))


def main() -> None:
    global port_of_server
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="per attack and baseline")
    parser.add_argument("--attacks", default=",".join(ATTACKS), help="comma-separated")
    parser.add_argument("--bots", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bots:
        trio.run(bots, args.bots)
        return
    names = [name.strip() for name in args.attacks.split(",") if name.strip()]
    unknown = [name for name in names if name not in ATTACKS]
    if unknown:
        parser.error(f"unknown attack {unknown[0]!r} (attacks: {', '.join(ATTACKS)})")
    with tempfile.TemporaryDirectory(prefix="arbiter-abuse-") as scratch:
        db = Path(scratch) / "abuse.db"
        subprocess.run(
            [sys.executable, "-m", "arbiter.server", "admin", "--db", str(db), "add", "victim"],
            check=True,
            capture_output=True,
        )
        command = [sys.executable, "-m", "arbiter.server", "--port", "0", "--host", HOST]
        server, port_of_server = start_server([*command, "--db", str(db), "--grace", "2"])
        bot_process = subprocess.Popen(
            [sys.executable, __file__, "--bots", str(port_of_server)],
            stdout=subprocess.PIPE,
            text=True,
        )
        lines: list[str] = []
        try:
            phases = trio.run(measure_all, names, args.seconds, server.pid, bot_process, lines)
        finally:
            for process in (bot_process, server):
                process.kill()
                process.wait()
    sys.exit(report(phases, lines))


async def measure_all(
    names: list[str],
    seconds: float,
    server_pid: int,
    bot_process: subprocess.Popen[str],
    lines: list[str],
) -> list[Phase]:
    async with trio.open_nursery() as nursery:
        reader = partial(trio.to_thread.run_sync, abandon_on_cancel=True)
        nursery.start_soon(reader, bot_lines, bot_process, lines)
        await trio.sleep(2.0)  # the bots seek, pair and finish a few games to watch
        phases = [await run_phase("baseline", seconds, server_pid)]
        for name in names:
            phases.append(await run_phase(name, seconds, server_pid))
            await trio.sleep(1.0)  # let the server settle before the next attack
        nursery.cancel_scope.cancel()
    return phases


def report(phases: list[Phase], lines: list[str]) -> int:
    latencies: dict[str, list[float]] = {phase.name: [] for phase in phases}
    forfeits = dict.fromkeys(latencies, 0)
    for line in lines:
        words = line.split(maxsplit=2)
        if words[0] not in ("lat", "over"):
            continue
        at = float(words[1])
        for phase in phases:
            if phase.start <= at < phase.end:
                if words[0] == "lat":
                    latencies[phase.name].append(float(words[2]))
                elif "time" in words[2]:
                    forfeits[phase.name] += 1
    base = latencies["baseline"]
    base_p99 = percentile(base, 0.99)
    print(
        f"{'attack':<12} {'peak MB':>8} {'moves':>6} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'p99/base':>8} {'forfeits':>8} {'cut off s':>9}  goals"
    )
    missed = 0
    for phase in phases:
        sample = latencies[phase.name]
        p99 = percentile(sample, 0.99)
        ratio = p99 / base_p99 if base_p99 else float("nan")
        goals = []
        if phase.peak_mb >= PEAK_MB_GOAL:
            goals.append("memory")
        if phase.name != "baseline" and not ratio <= P99_GOAL:
            goals.append("latency")
        if forfeits[phase.name]:
            goals.append("forfeits")
        if phase.name != "baseline" and (phase.cut_off is None or phase.cut_off > CUT_OFF_GOAL):
            goals.append("cut off")
        missed += bool(goals)
        cut = "-" if phase.cut_off is None else f"{phase.cut_off:.1f}"
        verdict = "missed: " + ", ".join(goals) if goals else "met"
        print(
            f"{phase.name:<12} {phase.peak_mb:>8.0f} {len(sample):>6}"
            f" {percentile(sample, 0.5) * 1e3:>7.1f} {p99 * 1e3:>7.1f} {ratio:>8.2f}"
            f" {forfeits[phase.name]:>8} {cut:>9}  {verdict}"
        )
    if not base:
        print("the bots made no move in the baseline: nothing to compare with")
        return 1
    print(f"\n{missed} of {len(phases)} phases missed a goal" if missed else "\nevery goal met")
    return 1 if missed else 0


if __name__ == "__main__":
    main()
