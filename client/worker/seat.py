"""One hosted seat: what to run for a `host` frame, run in a sandbox whose one channel the worker
joins to a connection of its own to the server, until it ends.

Every hosted agent runs sandboxed (`client.sandbox`): inside, the sandbox's relay listens where
the agent is told the server is; outside, `sandbox.link` joins that channel to the server, and
the stamper (`stamper.py`) rewrites each frame at the link's frame seam: the hello signs in with
the seat's ticket, each move carries the CPU seconds the sandbox's process tree spent on it.
While a move is under way the worker watches its CPU, and tells the server on the same
connection the moment the move has spent its allowance (`out_of_cpu`), without waiting for the
agent.

The agent is told where to connect and as whom in its environment, as every entrant a server
runs is (`ARBITER_SERVER`, `ARBITER_NAME`, `ARBITER_TOKEN`, `ARBITER_GAME`, and
`ARBITER_TOURNAMENT` or `ARBITER_OPPONENT`, with `ARBITER_TIME`, the time control in the command
line's form). `ARBITER_SERVER` is the relay's address inside the sandbox and `ARBITER_TOKEN` a
stand-in: the seat's ticket stays with the worker.

What runs: a built-in agent (`arbiter bot` for a challenge, `arbiter tournament play` for a
tournament's games), a program the worker's owner offers under an agent's name (`--program
NAME=COMMAND`, the folders of the files it names shown read-only), or a submission by its
content hash, fetched once into the worker's cache and prepared there (`prepared.py`).
"""

from __future__ import annotations

import shlex
import ssl
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from arbiter import protocol
from arbiter.agents import all_agent_names
from arbiter.client.connection import open_stream
from arbiter.client.sandbox.launch import inside_port, relay_command
from arbiter.client.sandbox.limits import Limits
from arbiter.client.sandbox.link import link
from arbiter.client.sandbox.process import SandboxedProcess, sandboxed
from arbiter.client.worker.archives import Archives
from arbiter.client.worker.prepared import BuildFailed
from arbiter.client.worker.stamper import Stamper
from arbiter.protocol.submission import SubmissionError

ARBITER = [sys.executable, "-m", "arbiter.client.cli"]
"""The `arbiter` command beside this interpreter, by module (works from a source checkout)."""
PAIRING_SECONDS = 60.0
"""How long an agent hosted for a challenge may wait for its game: a challenger that left
leaves nothing to wait for, and the slot is wanted."""
STAND_IN_TOKEN = "hosted-seat"
"""The token a hosted agent is given: its hello leaves with the seat's ticket instead."""
SEAT_LIMITS = Limits()
"""A hosted seat's sandbox: the defaults, with no CPU or wall-clock cap, since the server's
clock judges every move and a tournament's seat lasts as long as its games."""


class CannotRun(Exception):
    """This worker cannot run what the `host` frame names; the sentence says why."""


@dataclass(frozen=True, slots=True)
class Run:
    """What a seat's sandbox runs: `command` in `workdir`, with `code` shown read-only."""

    command: list[str]
    code: list[Path]
    workdir: str
    log: str = ""
    """What preparing it printed (a build's log)."""


@dataclass(frozen=True, slots=True)
class Hosted:
    """How a hosted seat ended, and the end of what its agent printed on stderr."""

    ending: str
    log: str


async def host_seat(
    host: protocol.Host,
    server: tuple[str, int],
    tls: ssl.SSLContext | None,
    programs: Mapping[str, str],
    archives: Archives,
) -> Hosted:
    """Run `host`'s agent to its end (`CannotRun` if this worker cannot)."""
    relay_port = inside_port(server[1])
    run = await run_for(host, relay_port, programs, archives)
    environment = {
        "ARBITER_NAME": host.name,
        "ARBITER_TOKEN": STAND_IN_TOKEN,
        "ARBITER_GAME": host.game,
        "ARBITER_TIME": protocol.TimeControl.from_wire(host.time).describe(),
    }
    if host.tournament is not None:
        environment["ARBITER_TOURNAMENT"] = host.tournament
    if host.opponent is not None:
        environment["ARBITER_OPPONENT"] = host.opponent
    async with sandboxed(
        relay_command(relay_port, run.command),
        SEAT_LIMITS,
        code=run.code,
        environment=environment,
        workdir=run.workdir,
    ) as sandbox:
        ending = await _play(host, server, tls, sandbox)
    return Hosted(ending, _log(run.log, sandbox.output()))


async def run_for(
    host: protocol.Host, relay_port: int, programs: Mapping[str, str], archives: Archives
) -> Run:
    """What to run for `host`; `CannotRun` with the reason."""
    kind = host.run.get("kind")
    if kind == "submission":
        return await _submission(host, archives)
    agent = host.run.get("agent")
    if kind != "agent" or not isinstance(agent, str):
        raise CannotRun(f"this worker runs agents and submissions, not {host.run!r}")
    if agent in programs:
        command = shlex.split(programs[agent])
        return Run(command, await trio.to_thread.run_sync(_folders_named, command), "/")
    if agent not in all_agent_names():
        offered = sorted([*all_agent_names(), *programs])
        raise CannotRun(f"no agent {agent!r} on this worker (agents: {', '.join(offered)})")
    control = protocol.TimeControl.from_wire(host.time).describe()
    common = ["--server", f"127.0.0.1:{relay_port}", "--name", host.name, "--agent", agent]
    if host.tournament is not None:
        seed = str(host.run.get("seed", 0))
        play = ["tournament", "play", host.tournament, *common, "--seed", seed]
        return Run([*ARBITER, *play, "--reconnect", "0"], [], "/")
    opponent = ["--opponent", host.opponent] if host.opponent is not None else []
    bot = ["bot", *common, "--game", host.game, "--time", control, *opponent, "--games", "1"]
    return Run([*ARBITER, *bot], [], "/")


async def _submission(host: protocol.Host, archives: Archives) -> Run:
    digest = host.run.get("hash")
    if not isinstance(digest, str):
        raise CannotRun(f"a submission is run by its hash, not {host.run!r}")
    try:
        prepared = await archives.prepared(digest)
    except BuildFailed as failed:
        raise CannotRun(f"{failed}\n{failed.log}") from None
    except SubmissionError as error:
        raise CannotRun(f"the submission cannot run: {error}") from None
    return Run(prepared.command, [prepared.folder], str(prepared.folder), prepared.log)


def _folders_named(command: list[str]) -> list[Path]:
    """The folders of the files a program's command names: shown to it read-only."""
    return sorted({Path(word).parent for word in command if Path(word).is_file()})


def _log(build: str, output: bytes) -> str:
    """The end of the build's log and the agent's stderr, cut to what `host_ended` carries."""
    text = build + output.decode(errors="replace")
    return text[-protocol.MAX_HOSTED_LOG :]


async def _play(
    host: protocol.Host,
    server: tuple[str, int],
    tls: ssl.SSLContext | None,
    sandbox: SandboxedProcess,
) -> str:
    """Link the sandbox to the server until the agent ends; how it ended."""
    paired, unpaired = trio.Event(), trio.Event()
    stamper = Stamper(host.ticket, sandbox.cpu_seconds, paired)
    to_server, from_worker = trio.open_memory_channel[bytes](1)
    dial = partial(open_stream, *server, tls)
    try:
        async with trio.open_nursery() as nursery:
            channel = sandbox.channel
            nursery.start_soon(link, channel, channel, dial, stamper.on_frame, from_worker)
            nursery.start_soon(_watch_cpu, stamper, to_server)
            if host.opponent is not None:
                nursery.start_soon(_stop_unpaired, paired, unpaired, sandbox)
            ending = await sandbox.ended()
            nursery.cancel_scope.cancel()
    except* OSError as unreachable:  # the server, when the agent first spoke
        raise unreachable.exceptions[0] from None
    if unpaired.is_set():
        return f"not paired with {host.opponent} within {PAIRING_SECONDS:g} s: {ending.sentence}"
    return ending.sentence


async def _watch_cpu(stamper: Stamper, to_server: trio.MemorySendChannel[bytes]) -> None:
    """Look at the CPU of each move under way, and send the server the stamper's `out_of_cpu`
    once the move has spent its allowance."""
    async with to_server:
        while True:
            await stamper.move_asked()
            await trio.sleep(stamper.poll_interval())
            if (body := stamper.overspent()) is not None:
                await to_server.send(body)


async def _stop_unpaired(
    paired: trio.Event, unpaired: trio.Event, sandbox: SandboxedProcess
) -> None:
    """Stop an agent hosted for a challenge whose game has not begun in `PAIRING_SECONDS`
    (and set `unpaired`)."""
    with trio.move_on_after(PAIRING_SECONDS):
        await paired.wait()
        return
    unpaired.set()
    sandbox.stop()
