"""One hosted seat: what to run for a `host` frame, run as an agent process joined to the server
through the relay, until it ends.

The agent is told where to connect and as whom in its environment, as every entrant a server
runs is (`ARBITER_SERVER`, `ARBITER_NAME`, `ARBITER_TOKEN`, `ARBITER_GAME`, and
`ARBITER_TOURNAMENT` or `ARBITER_OPPONENT`, with `ARBITER_TIME`, the time control in the
command line's form). `ARBITER_SERVER` is the relay's loopback address and `ARBITER_TOKEN` a
token of the relay's: the seat's ticket stays with the worker (`relay`).

What runs: a built-in agent (`arbiter bot` for a challenge, `arbiter tournament play` for a
tournament's games), or a program the worker's owner offers under an agent's name
(`--program NAME=COMMAND`), which speaks the protocol itself.
"""

from __future__ import annotations

import secrets
import shlex
import ssl
import sys
from collections.abc import Mapping
from functools import partial

import trio

from arbiter import protocol
from arbiter.agents import all_agent_names
from arbiter.client.connection import open_stream
from arbiter.client.worker.agent_process import AgentProcess, Launch, Starter
from arbiter.client.worker.relay import Stamper, relay

ARBITER = [sys.executable, "-m", "arbiter.client.cli"]
"""The `arbiter` command beside this interpreter, by module (works from a source checkout)."""
LOOPBACK = "127.0.0.1"
PAIRING_SECONDS = 60.0
"""How long an agent hosted for a challenge may wait for its game: a challenger that left
leaves nothing to wait for, and the slot is wanted."""


class CannotRun(Exception):
    """This worker cannot run what the `host` frame names; the sentence says why."""


def launch_for(
    host: protocol.Host, relay_port: int, local_token: str, programs: Mapping[str, str]
) -> Launch:
    """The command and environment for `host`'s agent; `CannotRun` if this worker has none."""
    kind, agent = host.run.get("kind"), host.run.get("agent")
    if kind != "agent" or not isinstance(agent, str):
        raise CannotRun(f"this worker runs agents by name, not {host.run!r}")
    control = protocol.TimeControl.from_wire(host.time).describe()
    address = f"{LOOPBACK}:{relay_port}"
    environment = {
        "ARBITER_SERVER": address,
        "ARBITER_NAME": host.name,
        "ARBITER_TOKEN": local_token,
        "ARBITER_GAME": host.game,
        "ARBITER_TIME": control,
    }
    if host.tournament is not None:
        environment["ARBITER_TOURNAMENT"] = host.tournament
    if host.opponent is not None:
        environment["ARBITER_OPPONENT"] = host.opponent
    if agent in programs:
        return Launch(shlex.split(programs[agent]), environment)
    if agent not in all_agent_names():
        offered = sorted([*all_agent_names(), *programs])
        raise CannotRun(f"no agent {agent!r} on this worker (agents: {', '.join(offered)})")
    common = ["--server", address, "--name", host.name, "--agent", agent]
    if host.tournament is not None:
        seed = str(host.run.get("seed", 0))
        play = ["tournament", "play", host.tournament, *common, "--seed", seed]
        return Launch([*ARBITER, *play, "--reconnect", "0"], environment)
    opponent = ["--opponent", host.opponent] if host.opponent is not None else []
    bot = ["bot", *common, "--game", host.game, "--time", control, *opponent]
    return Launch([*ARBITER, *bot, "--games", "1"], environment)


async def host_seat(
    host: protocol.Host,
    server: tuple[str, int],
    tls: ssl.SSLContext | None,
    programs: Mapping[str, str],
    start: Starter,
) -> str:
    """Run `host`'s agent to its end; the sentence says how it ended."""
    local_token = secrets.token_hex(16)
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    try:
        port = listeners[0].socket.getsockname()[1]
        process = await start(launch_for(host, port, local_token, programs))
        try:
            ending = await _play(host, server, tls, local_token, process, listeners)
        finally:
            process.stop()
    finally:
        for listener in listeners:
            await trio.aclose_forcefully(listener)
    return ending


async def _play(
    host: protocol.Host,
    server: tuple[str, int],
    tls: ssl.SSLContext | None,
    local_token: str,
    process: AgentProcess,
    listeners: list[trio.SocketListener],
) -> str:
    """Relay the agent's connections until it ends; how it ended."""
    paired, unpaired = trio.Event(), trio.Event()
    stamper = Stamper(local_token, host.ticket, process.cpu_seconds, paired)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, partial(_join, server, tls, stamper), listeners)
        if host.opponent is not None:
            nursery.start_soon(_stop_unpaired, paired, unpaired, process)
        ending = await process.wait()
        nursery.cancel_scope.cancel()  # its relays end with it
    if unpaired.is_set():
        return f"not paired with {host.opponent} within {PAIRING_SECONDS:g} s: {ending}"
    return ending


async def _stop_unpaired(paired: trio.Event, unpaired: trio.Event, process: AgentProcess) -> None:
    """Stop an agent hosted for a challenge whose game has not begun in `PAIRING_SECONDS`
    (and set `unpaired`)."""
    with trio.move_on_after(PAIRING_SECONDS):
        await paired.wait()
        return
    unpaired.set()
    process.stop()


async def _join(
    server: tuple[str, int],
    tls: ssl.SSLContext | None,
    stamper: Stamper,
    agent: trio.SocketStream,
) -> None:
    """One connection of the agent, relayed to a connection of our own to the server."""
    try:
        upstream = await open_stream(*server, tls)
    except OSError:
        await agent.aclose()
        return
    await relay(agent, upstream, stamper)
