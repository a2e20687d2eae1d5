"""`arbiter referee`: one game between two agents through a real server on 127.0.0.1.

The server runs in this process on a free port with a throwaway SQLite file, and both agents
connect to it as ordinary TCP clients, so a local game is refereed exactly as a remote one:
same protocol, same clocks, same defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from arbiter import protocol
from arbiter.agents import Agent
from arbiter.client.connection import ClientConnection
from arbiter.client.player_module import PlayerCrashed, make_any_agent, play_seat, player_name
from arbiter.client.runner import GameRecord, MessageHook
from arbiter.games import Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import local_server


def seeded_options(game: Game[Any, Any], seed: int | None) -> dict[str, Any]:
    """The game's seed option set to `seed`, for games with a random start."""
    if seed is None:
        return {}
    return {option.name: seed for option in game.options if option.is_seed}


async def referee(
    game_name: str,
    agent_names: tuple[str, str],
    *,
    seed: int | None = None,
    time_control: TimeControl | str | None = None,
    db_path: Path | None = None,
    on_move: Callable[[int, str, str], None] | None = None,
    sandboxed: bool = True,
) -> GameRecord:
    """Play one game, the first agent in the first seat; returns the record as seat 0 saw it
    (as seat 1 saw it when seat 0's Player module crashed, which the server scores a default).

    An agent name may be a Player module's path (`client.player_module`), whose process runs
    in the sandbox (`client.sandbox`) unless `sandboxed` is False. `time_control` is a
    `TimeControl` or its command-line form (`move=5`, `clock=300+2`); None for the game's
    default. The server keeps no grace period for a dropped seat: in one process there is no
    network to come back over.
    """
    game = get_game(game_name)
    control = time_control or game.default_time_control
    time = (TimeControl.parse(control) if isinstance(control, str) else control).to_wire()
    agents = [
        make_any_agent(name, game, None if seed is None else seed + index, sandboxed=sandboxed)
        for index, name in enumerate(agent_names)
    ]
    names = (player_name(agent_names[0]), player_name(agent_names[1]))
    async with local_server(db_path) as server:
        return await referee_on(
            server, game, names, (agents[0], agents[1]), seed=seed, time=time, on_move=on_move
        )


async def referee_on(
    server: tuple[str, int],
    game: Game[Any, Any],
    names: tuple[str, str],
    agents: tuple[Agent, Agent],
    *,
    seed: int | None = None,
    time: dict[str, Any],
    on_move: Callable[[int, str, str], None] | None = None,
) -> GameRecord:
    """One game on a running server: `agents` connect as `names` (the first in the first seat)
    and play it under the time control `time` (its wire form), with the start `seed` picks.
    Returns the record as `referee` does. A ladder plays all its games on one server."""
    host, port = server
    records: dict[int, GameRecord] = {}
    reporter = _Reporter(on_move)

    async def seat(index: int, hook: MessageHook | None) -> None:
        async with await ClientConnection.open(host, port, names[index]) as conn:
            try:
                records[index] = await play_seat(
                    conn,
                    game,
                    agents[index],
                    options=seeded_options(game, seed),
                    time_control=time,
                    on_message=hook,
                )
            except PlayerCrashed:
                return  # reported on stderr; leaving closes the seat's connection

    async with trio.open_nursery() as players:
        players.start_soon(seat, 0, reporter)
        await reporter.seeking.wait()
        players.start_soon(seat, 1, None)
    return records[min(records)]


class _Reporter:
    """Watches the first seat's messages: when its seek is open, and every move of the game."""

    def __init__(self, on_move: Callable[[int, str, str], None] | None) -> None:
        self.seeking = trio.Event()
        self._on_move = on_move
        self._seat = ""

    def __call__(self, message: protocol.Message) -> None:
        match message:
            case protocol.Seeking():
                self.seeking.set()
            case protocol.MatchStarted(seat=seat):
                self._seat = seat
            case protocol.MoveAccepted(ply=ply, move=move) if self._on_move:
                self._on_move(ply, self._seat, move)
            case protocol.OpponentMoved(ply=ply, seat=seat, move=move) if self._on_move:
                self._on_move(ply, seat, move)
