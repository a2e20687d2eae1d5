"""The ways to sit at the terminal: against a server's players, a local agent or a friend
(hot seat), or watching a match or two agents.

Local games run on a real server in this process on 127.0.0.1 (a throwaway SQLite file, no
grace for a dropped seat), and every seat is an ordinary TCP client of it, so a game here is
refereed exactly as one across machines: same protocol, same clocks. A person's seek asks for
`illegal="retry"`: a move refused by the server costs only the move. Moves are checked before
they are sent anyway, so only a race (a move crossing the clock's end) can be refused.
"""

from __future__ import annotations

import dataclasses
import ssl
from typing import Any

import trio

from arbiter import protocol
from arbiter.agents import Agent
from arbiter.client.connection import ClientConnection
from arbiter.client.play.session import Display, Session, start_watching
from arbiter.client.player_module import PlayerCrashed, make_any_agent, play_seat, player_name
from arbiter.client.referee import seeded_options
from arbiter.games import Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import local_server


@dataclasses.dataclass(frozen=True, slots=True)
class Setup:
    """What every mode shares: the game, the start and the time control."""

    game: Game[Any, Any]
    seed: int | None
    time: TimeControl | None
    """None: the server's default for the game."""
    opponent: str | None = None
    """The only player a person's seek on a server pairs with (a challenge), or None."""

    def wire_time(self) -> dict[str, float]:
        return {} if self.time is None else self.time.to_wire()

    def human_seek(self) -> protocol.Seek:
        return protocol.Seek(
            game=self.game.name,
            options=seeded_options(self.game, self.seed),
            time=self.wire_time(),
            hints=True,
            illegal="retry",
            opponent=self.opponent,
        )


class AgentSeat:
    """An agent playing one game on its own connection, and the moments a mode waits for: its
    seek open (so the next seek is paired with it), its match started (to watch it)."""

    def __init__(self, connection: ClientConnection, agent: Agent, crashes: list[str]) -> None:
        self.connection = connection
        self.agent = agent
        self.crashes = crashes
        self.seeking = trio.Event()
        self.started = trio.Event()
        self.match: int | None = None

    async def play(self, setup: Setup) -> None:
        """Play the game. A crashed Player module just loses its seat (the server defaults it
        when the connection closes), its report kept for after the screen; whatever happens,
        nobody is left waiting for a seek or a match that will not come."""
        async with self.connection:
            try:
                await play_seat(
                    self.connection,
                    setup.game,
                    self.agent,
                    options=seeded_options(setup.game, setup.seed),
                    time_control=setup.wire_time(),
                    on_message=self._heard,
                    on_crash=lambda crash: self.crashes.append(crash.report()),
                )
            except PlayerCrashed:
                pass
            finally:
                self.seeking.set()
                self.started.set()

    def _heard(self, message: protocol.Message) -> None:
        if isinstance(message, protocol.Seeking):
            self.seeking.set()
        elif isinstance(message, protocol.MatchStarted):
            self.match = message.match
            self.started.set()


async def play_on_server(
    setup: Setup,
    display: Display,
    host: str,
    port: int,
    name: str,
    tls: ssl.SSLContext | None = None,
) -> int:
    session = Session(setup.game, display)
    async with await ClientConnection.open(host, port, name, tls=tls) as connection:
        await session.seek(connection, setup.human_seek())
        return await session.run()


async def play_hot_seat(setup: Setup, display: Display, names: tuple[str, str]) -> int:
    session = Session(setup.game, display)
    async with local_server() as (host, port):
        first = await ClientConnection.open(host, port, names[0])
        second = await ClientConnection.open(host, port, names[1])
        async with first, second:
            await session.seek(first, setup.human_seek())
            await session.seek(second, setup.human_seek())
            await session.started()
            return await session.run()


async def play_agent(
    setup: Setup,
    display: Display,
    agent_name: str,
    name: str,
    human_seat: int,
    crashes: list[str],
) -> int:
    """The person takes `human_seat`; whoever seeks first takes the first seat."""
    session = Session(setup.game, display)
    agent = make_any_agent(agent_name, setup.game, setup.seed)
    async with local_server() as (host, port), trio.open_nursery() as agents:
        bot = AgentSeat(
            await ClientConnection.open(host, port, player_name(agent_name)), agent, crashes
        )
        async with await ClientConnection.open(host, port, name) as human:
            if human_seat == 0:
                await session.seek(human, setup.human_seek())
                agents.start_soon(bot.play, setup)
            else:
                agents.start_soon(bot.play, setup)
                await bot.seeking.wait()
                if crashes:
                    return 1
                await session.seek(human, setup.human_seek())
            status = await session.run()
        agents.cancel_scope.cancel()
    return status


async def watch_on_server(
    display: Display, host: str, port: int, match: int, tls: ssl.SSLContext | None = None
) -> int:
    async with await ClientConnection.open(host, port, "spectator", tls=tls) as connection:
        watching = await start_watching(connection, match)
        session = Session(get_game(watching.game), display, watching=True)
        session.follow(connection, watching, replay=False)
        return await session.run()


async def watch_agents(
    setup: Setup, display: Display, agent_names: tuple[str, str], delay: float, crashes: list[str]
) -> int:
    """Two agents play on a local server; a spectator connection shows their game, from its
    first move, at `delay` seconds a move however fast they play."""
    session = Session(setup.game, display, watching=True, delay=delay)
    agents = [
        make_any_agent(name, setup.game, None if setup.seed is None else setup.seed + index)
        for index, name in enumerate(agent_names)
    ]
    async with local_server() as (host, port), trio.open_nursery() as players:
        first, second = [
            AgentSeat(await ClientConnection.open(host, port, player_name(name)), agent, crashes)
            for name, agent in zip(agent_names, agents, strict=True)
        ]
        players.start_soon(first.play, setup)
        await first.seeking.wait()
        players.start_soon(second.play, setup)
        await first.started.wait()
        if first.match is None:
            return 1  # its Player module crashed before the game: the report follows
        async with await ClientConnection.open(host, port, "spectator") as spectator:
            session.follow(spectator, await start_watching(spectator, first.match), replay=True)
            status = await session.run()
        players.cancel_scope.cancel()
    return status
