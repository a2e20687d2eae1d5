"""Hostile clients beside two bot matches: what each attack costs everyone else.

    python bench/abuse.py [--seconds 12] [--attacks watch-flood,idle,...] [--move-time 2]
                          [--full-disk] [--remote-attackers]

One Arbiter server with its default limits and its web front (SQLite in a temporary folder, a
registered player `victim`), two King's Court bot matches with a `--move-time` limit playing on
and on in a child process (bench/bystanders.py), and then, one after the other, each attack for
`--seconds`, after a quiet baseline of the same length. The attacks (bench/attacks_tcp.py,
attacks_web.py, attacks_storage.py) share one server, except the TLS one (a TLS server of its
own, bots included) and the storage faults (a server each: a fault may leave it broken), each
such session with its own baseline. Everything stays on the loopback: the server listens on
127.0.0.1, the bots connect from 127.0.0.2, a bystander from 127.0.0.4, and each attack from
its own 127.0.x.y range, as other machines would. Every attack is bounded in connections,
frames and time.

Per attack it prints the server's peak resident memory and its memory a second after the
attack ended, the bots' move latency (move sent to the opponent's `your_turn`) p50/p99 against
the baseline's, the bots' forfeits (on time or by a lost connection), how long the server took
to cut off or throttle the attacker (an `error` frame naming a limit, an HTTP 429/503, or the
connection closed; the slowest of its connections, each counted from its own connect; `-` if
one never was), the slowest bystander hello, registered player's hello and page load (`fail`
if one failed or took over 5 s), and for storage faults the matches left `playing` once the
bots had left and the moves the bots were told were accepted against those stored. Lines under
the table give each attack's own figures.

With `--remote-attackers` the attackers (and the probes: they share this process) run in the
idle scheduling class while a phase is measured, as attackers on other machines would: on two
cores their own work otherwise takes the server's and the bots' CPU, which measures the
machine's cores as much as the server. The attacks are the same; the lines under the table say
whether they reached the same size (watches made, frames sent).

The goals, every attack: peak memory under 300 MB and released after it; p99 within 2x the
baseline; no forfeit; every attacker cut off or throttled within 10 s (but for heavy use within
every limit, `Attack.within_limits`); bystanders served; after a fault no match left `playing`
and no acknowledged move lost. The script exits 1 when any is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import attacks_storage
import attacks_tcp
import attacks_web
import trio
import trustme
from attacking import HOST, Attack, Target, Verdict, client_tls
from bystanders import Probes, bots, probe
from launch import child_pids, cpu_seconds, percentile, resident_mb, start_server

PEAK_MB_GOAL = 300.0
RELEASE_MB_GOAL = 100.0
"""Memory still held a second after an attack, over what the server had before it."""
P99_GOAL = 2.0
CUT_OFF_GOAL = 10.0
GRACE = 2.0
"""The server's grace period: how long a bot's seat waits for it once the bots are gone."""
FORFEITS = ("time", "disconnected")
"""Words of a `game_over` reason that mean a seat lost without its own fault (bots answer at
once and never leave while measured)."""
ATTACKS = {
    attack.name: attack
    for attack in (*attacks_tcp.ATTACKS, *attacks_web.ATTACKS, *attacks_storage.ATTACKS)
}
TMPFS_MB = 64
"""The size of the tmpfs `full-disk` fills."""


# -- one phase: an attack (or the baseline) beside the bots ------------------------------------


@dataclass
class Phase:
    name: str
    attack: Attack | None = None
    start: float = 0.0
    end: float = 0.0
    start_mb: float = 0.0
    peak_mb: float = 0.0
    end_mb: float = 0.0
    verdict: Verdict = field(default_factory=Verdict)
    probes: Probes = field(default_factory=Probes)
    stored: Stored | None = None
    latencies: list[float] = field(default_factory=list)
    forfeits: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    """The `error` codes the bots were sent, with their counts."""


@dataclass
class Stored:
    """What the database holds once the bots have left: matches still `playing`, and of the
    moves the bots were told were accepted, how many are stored."""

    playing: int
    acknowledged: int
    kept: int


async def run_phase(attack: Attack | None, seconds: float, target: Target, remote: bool) -> Phase:
    phase = Phase("baseline" if attack is None else attack.name, attack)
    async with trio.open_nursery() as prepared:  # what `prepare` starts lives through the phase
        if attack is not None and attack.prepare is not None:
            await attack.prepare(target, prepared)
        phase.start, phase.start_mb = time.time(), resident_mb(target.server_pid)
        phase.verdict = Verdict()
        try:
            with attackers_elsewhere(remote), trio.move_on_after(seconds):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(probe, target, phase.probes)
                    if attack is not None:
                        nursery.start_soon(attack.run, target, phase.verdict, nursery)
                    while True:
                        phase.peak_mb = max(phase.peak_mb, resident_mb(target.server_pid))
                        await trio.sleep(0.05)
        except* Exception as group:  # an attack that broke is reported, not the whole run
            phase.verdict.notes.append(f"the attack stopped: {group.exceptions[0]!r}")
            phase.verdict.missed.append("attack failed")
        phase.end = time.time()
        prepared.cancel_scope.cancel()
    await trio.sleep(1.0)
    phase.end_mb = resident_mb(target.server_pid)
    return phase


SETTLE_MAX = 15.0
"""The longest wait for the server to calm down after an attack before the next one."""


async def settle(server_pid: int, quiet: float, phase: Phase) -> None:
    """Wait until the server uses no more CPU than in the baseline (half a core of slack),
    so what one attack left behind does not count against the next; note a long wait."""
    began = trio.current_time()
    with trio.move_on_after(SETTLE_MAX):
        while True:
            before = cpu_seconds(server_pid, children=True)
            await trio.sleep(0.5)
            if cpu_seconds(server_pid, children=True) - before <= 0.5 * (quiet + 0.5):
                return
    phase.verdict.notes.append(
        f"the server stayed busy {trio.current_time() - began:.0f} s after it"
    )


def cpu_rate(server_pid: int) -> Callable[[], float]:
    """A stopwatch of the server's CPU: call it again for the cores used since."""
    began, used = time.monotonic(), cpu_seconds(server_pid, children=True)
    return lambda: (cpu_seconds(server_pid, children=True) - used) / (time.monotonic() - began)


async def measure_session(
    attacks: list[Attack],
    seconds: float,
    target: Target,
    bot_process: subprocess.Popen[str],
    remote: bool,
) -> tuple[list[Phase], list[str]]:
    lines: list[str] = []
    async with trio.open_nursery() as nursery:
        reader = partial(trio.to_thread.run_sync, abandon_on_cancel=True)
        nursery.start_soon(reader, bot_lines, bot_process, lines, target)
        await trio.sleep(2.0)  # the bots seek, pair and finish a few games to watch
        quiet = cpu_rate(target.server_pid)
        phases = [await run_phase(None, seconds, target, remote)]
        cores = quiet()
        for index, attack in enumerate(attacks):
            target.subnet = 10 + index
            phases.append(await run_phase(attack, max(seconds, attack.min_seconds), target, remote))
            await settle(target.server_pid, cores, phases[-1])
        nursery.cancel_scope.cancel()
    return phases, lines


def bot_lines(process: subprocess.Popen[str], sink: list[str], target: Target) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        sink.append(line)
        if line.startswith("match "):
            target.live_matches.append(int(line.split()[1]))


# -- one session: a server, its bots, its baseline and attacks ---------------------------------


def run_session(attacks: list[Attack], args: argparse.Namespace) -> list[Phase]:
    """Start a server (TLS or on a tmpfs if an attack needs it) and the bots, measure, then
    check the database once the bots have gone."""
    with tempfile.TemporaryDirectory(prefix="arbiter-abuse-") as folder:
        scratch = Path(folder)
        small_disk = any(attack.name == "full-disk" for attack in attacks)
        if small_disk:
            mount = ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs", folder]
            mounted = subprocess.run(mount, capture_output=True, text=True)
            if mounted.returncode != 0:
                print(f"full-disk skipped: cannot mount a tmpfs ({mounted.stderr.strip()})")
                return []
        try:
            return serve_and_measure(attacks, args, scratch)
        finally:
            if small_disk:
                subprocess.run(["umount", folder], check=True)


@contextlib.contextmanager
def attackers_elsewhere(wanted: bool) -> Iterator[None]:
    """With `wanted`, this process (the attackers and the probes) runs in the idle scheduling
    class while a phase is measured: on two cores the attackers' own CPU would otherwise be
    taken from the server and the bots, which attackers on other machines do not. What an
    attack prepares (the long game) and the processes this one starts run at the normal class."""
    if not wanted:
        yield
        return
    normal = os.sched_getscheduler(0), os.sched_getparam(0)
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    try:
        yield
    finally:
        os.sched_setscheduler(0, normal[0], normal[1])


def serve_and_measure(
    attacks: list[Attack], args: argparse.Namespace, scratch: Path
) -> list[Phase]:
    db = scratch / "abuse.db"
    admin = [sys.executable, "-m", "arbiter.server", "admin", "--db", str(db), "add", "victim"]
    token = subprocess.run(admin, check=True, capture_output=True, text=True).stdout.strip()
    command = [sys.executable, "-m", "arbiter.server", "--port", "0", "--host", HOST]
    command += ["--db", str(db), "--grace", str(GRACE), "--http", "0", "--log-level", "error"]
    bot_command = [sys.executable, __file__, "--move-time", str(args.move_time)]
    tls = None
    if any(attack.server == "tls" for attack in attacks):
        ca_file = certificates(scratch)
        command += ["--tls-cert", str(scratch / "cert.pem"), "--tls-key", str(scratch / "key.pem")]
        bot_command += ["--tls-ca", str(ca_file)]
        tls = client_tls(ca_file)
    log = (scratch / "server.log").open("w")
    server, port = start_server(command, stderr=log)
    assert server.stdout is not None
    web_url = server.stdout.readline().split()[-1]
    target = Target(port, server.pid, db, scratch, web_url, tls, token)
    bot_process = subprocess.Popen(
        [*bot_command, "--bots", str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        phases, lines = trio.run(
            measure_session, attacks, args.seconds, target, bot_process, args.remote_attackers
        )
        bot_process.kill()
        bot_process.wait()
        stored = stored_after(db, lines)
    finally:
        bot_process.kill()
        bot_process.wait()
        stop_server(server)
        log.close()
    slice_bot_lines(phases, lines)
    logged = (scratch / "server.log").read_text().count("ERROR")
    if logged:
        phases[-1].verdict.notes.append(f"the server logged {logged} errors in its session")
    for phase in phases:
        if phase.attack is not None and phase.attack.fault:
            phase.stored = stored
    if not any(phase.stored for phase in phases):
        print(session_line(attacks, stored))
        if stored.playing or stored.kept < stored.acknowledged:
            phases[0].verdict.missed.append("storage")
    return phases


def stop_server(server: subprocess.Popen[str]) -> None:
    """Stop the server as Ctrl-C does, and make sure its commit process is gone too (it holds
    the database open, and a tmpfs could not be unmounted)."""
    children = child_pids(server.pid)
    server.send_signal(signal.SIGINT)
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)  # a stopped one could not end
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)
            os.kill(pid, signal.SIGKILL)


def certificates(scratch: Path) -> Path:
    """A throwaway certificate authority and a certificate for 127.0.0.1 signed by it (the
    server's cert.pem and key.pem in `scratch`): the CA's file, for the clients."""
    authority = trustme.CA()
    issued = authority.issue_cert(HOST)
    issued.private_key_pem.write_to_path(str(scratch / "key.pem"))
    with (scratch / "cert.pem").open("wb") as chain:
        for blob in issued.cert_chain_pems:
            chain.write(blob.bytes())
    authority.cert_pem.write_to_path(str(scratch / "ca.pem"))
    return scratch / "ca.pem"


def stored_after(db: Path, lines: list[str]) -> Stored:
    """Once the bots have gone and their seats' grace has run out: the matches still
    `playing`, and the acknowledged moves against the stored ones."""
    acknowledged = {tuple(map(int, line.split()[1:3])) for line in lines if line.startswith("ack ")}
    deadline = time.monotonic() + 3 * GRACE + 6
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as store:
        while True:
            (playing,) = store.execute(
                "SELECT COUNT(*) FROM matches WHERE status = 'playing'"
            ).fetchone()
            if playing == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        moves = set(store.execute("SELECT match_id, ply FROM moves").fetchall())
    return Stored(playing, len(acknowledged), len(acknowledged & moves))


def session_line(attacks: list[Attack], stored: Stored) -> str:
    names = ", ".join(attack.name for attack in attacks) or "baseline"
    return (
        f"session ({names}): {stored.playing} matches left playing after the bots left;"
        f" {stored.kept} of {stored.acknowledged} acknowledged moves stored"
    )


def slice_bot_lines(phases: list[Phase], lines: list[str]) -> None:
    """Give each phase the bots' latencies, forfeits and errors that fell within it."""
    for line in lines:
        words = line.split(maxsplit=3)
        if words[0] not in ("lat", "over", "error"):
            continue
        at = float(words[1])
        for phase in phases:
            if phase.start <= at < phase.end:
                tally(phase, words)


def tally(phase: Phase, words: list[str]) -> None:
    if words[0] == "lat":
        phase.latencies.append(float(words[2]))
    elif words[0] == "over":
        phase.forfeits += any(word in words[3] for word in FORFEITS)
    else:
        phase.errors[words[2]] = phase.errors.get(words[2], 0) + 1


# -- the report --------------------------------------------------------------------------------


def report(phases: list[Phase]) -> int:
    print(
        f"{'attack':<17} {'peak MB':>7} {'end MB':>6} {'moves':>6} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'p99/base':>8} {'forfeits':>8} {'cut s':>6} {'hello':>6} {'token':>6} {'page':>6}"
        f" {'playing':>7} {'acked/stored':>13}  goals"
    )
    missed = 0
    base_p99 = float("nan")
    notes = []
    for phase in phases:
        if phase.attack is None:
            base_p99 = percentile(phase.latencies, 0.99)
        goals = judge(phase, base_p99)
        missed += bool(goals)
        print(row(phase, base_p99, goals))
        notes += [f"  {phase.name}: {note}" for note in phase.verdict.notes]
        if phase.errors:
            counts = ", ".join(f"{code} x{n}" for code, n in phase.errors.items())
            notes.append(f"  {phase.name}: the bots were sent errors: {counts}")
    print("\n".join(notes))
    print(f"\n{missed} of {len(phases)} phases missed a goal" if missed else "\nevery goal met")
    return 1 if missed else 0


def judge(phase: Phase, base_p99: float) -> list[str]:
    latencies = phase.latencies
    attacked = phase.attack is not None
    judged_by_cut = phase.attack is not None and not (
        phase.attack.fault or phase.attack.within_limits
    )
    goals = list(phase.verdict.missed)
    if not latencies:
        goals.append("no moves")
    if phase.peak_mb >= PEAK_MB_GOAL:
        goals.append("memory")
    if attacked and phase.end_mb - phase.start_mb > RELEASE_MB_GOAL:
        goals.append("release")
    if attacked and not percentile(latencies, 0.99) / base_p99 <= P99_GOAL:
        goals.append("latency")
    if phase.forfeits:
        goals.append("forfeits")
    cut = phase.verdict.seconds()
    if judged_by_cut and (cut is None or cut > CUT_OFF_GOAL):
        goals.append("cut off")
    if phase.probes.failed():
        goals.append("bystander")
    if phase.stored is not None:
        if phase.stored.playing:
            goals.append("left playing")
        if phase.stored.kept < phase.stored.acknowledged:
            goals.append("moves lost")
    return goals


def row(phase: Phase, base_p99: float, goals: list[str]) -> str:
    latencies = phase.latencies
    p99 = percentile(latencies, 0.99)
    cut = phase.verdict.seconds()
    probes = [slowest(phase.probes.seconds.get(name)) for name in ("hello", "token", "page")]
    stored = phase.stored
    playing = "-" if stored is None else str(stored.playing)
    kept = "-" if stored is None else f"{stored.acknowledged}/{stored.kept}"
    return (
        f"{phase.name:<17} {phase.peak_mb:>7.0f} {phase.end_mb:>6.0f} {len(latencies):>6}"
        f" {percentile(latencies, 0.5) * 1e3:>7.1f} {p99 * 1e3:>7.1f} {p99 / base_p99:>8.2f}"
        f" {phase.forfeits:>8} {'-' if cut is None else f'{cut:.1f}':>6}"
        f" {probes[0]:>6} {probes[1]:>6} {probes[2]:>6} {playing:>7} {kept:>13}  "
        + ("missed: " + ", ".join(goals) if goals else "met")
    )


def slowest(times: list[float | None] | None) -> str:
    """The slowest probe in ms, `fail` if one failed, `-` if none ran."""
    if not times:
        return "-"
    if None in times:
        return "fail"
    return f"{1e3 * max(t for t in times if t is not None):.0f}"


# -- the command -------------------------------------------------------------------------------


def sessions(attacks: list[Attack]) -> list[list[Attack]]:
    """The attacks grouped by the server they need: the shared ones, the TLS ones, then each
    fault alone."""
    shared = [attack for attack in attacks if attack.server == "shared"]
    tls = [attack for attack in attacks if attack.server == "tls"]
    own = [[attack] for attack in attacks if attack.server == "own"]
    return [group for group in (shared, tls) if group] + own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="per attack and baseline")
    parser.add_argument("--attacks", help="comma-separated (default: all)")
    parser.add_argument("--move-time", type=float, default=2.0, help="the bots' move limit, s")
    parser.add_argument(
        "--full-disk", action="store_true", help="add the full-disk fault (root: a tmpfs)"
    )
    parser.add_argument(
        "--remote-attackers",
        action="store_true",
        help="the attackers take only the CPU the server and bots leave (the idle class)",
    )
    parser.add_argument("--bots", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tls-ca", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bots:
        tls = None if args.tls_ca is None else client_tls(args.tls_ca)
        trio.run(bots, args.bots, args.move_time, tls)
        return
    known = {**ATTACKS, attacks_storage.FULL_DISK.name: attacks_storage.FULL_DISK}
    default = [*ATTACKS, *(["full-disk"] if args.full_disk else [])]
    names = default if args.attacks is None else [n.strip() for n in args.attacks.split(",")]
    unknown = [name for name in names if name and name not in known]
    if unknown:
        parser.error(f"unknown attack {unknown[0]!r} (attacks: {', '.join(known)})")
    if "full-disk" in names and not args.full_disk:
        parser.error("the full-disk attack mounts a tmpfs: give --full-disk (as root) for it")
    chosen = [known[name] for name in names if name]
    print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}", flush=True)
    phases = [phase for group in sessions(chosen) for phase in run_session(group, args)]
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    sys.exit(report(phases))


if __name__ == "__main__":
    main()
