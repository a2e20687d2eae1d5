"""The agents' optional lifecycle (`load`, `observe`, `finish`, `close`): found by
`agents.lifecycle`, no-ops when left out, and called by the runner around a real game."""

from __future__ import annotations

from typing import Any

import trio

from arbiter import protocol
from arbiter.agents import AgentBase, lifecycle
from arbiter.client.connection import ClientConnection
from arbiter.client.runner import play_one
from arbiter.games import State, get_game
from tests.conftest import RunningServer

GAME = get_game("kings-court")
QUICK = {"no_capture_limit": 2}
TIME = {"move": 5.0}


class Plain:
    def choose(self, state: State[Any], budget: float) -> Any:
        return state.legal_moves()[0]


class Recording(AgentBase):
    """Notes every lifecycle call; fails in `choose` when asked to."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.fail = fail

    def load(self) -> None:
        self.calls.append("load")

    def observe(self, message: object) -> None:
        self.calls.append(f"observe {type(message).__name__}")

    def choose(self, state: State[Any], budget: float) -> Any:
        self.calls.append("choose")
        if self.fail:
            raise RuntimeError("thinking failed")
        return state.legal_moves()[0]

    def finish(self) -> None:
        self.calls.append("finish")

    def close(self) -> None:
        self.calls.append("close")


def test_an_agent_without_lifecycle_methods_gets_no_ops() -> None:
    hooks = lifecycle(Plain())
    hooks.load()
    hooks.observe(protocol.Ping(nonce=1))
    hooks.finish()
    hooks.close()


def test_the_base_class_and_an_agent_s_own_methods_are_found() -> None:
    AgentBase().load()
    agent = Recording()
    hooks = lifecycle(agent)
    hooks.load()
    hooks.observe("a message")
    hooks.close()
    assert agent.calls == ["load", "observe str", "close"]


async def play_against_plain(server: RunningServer, agent: Recording) -> None:
    """`agent` seeks first (so it takes the first seat) and plays a plain agent."""
    async with (
        await ClientConnection.open(server.host, server.port, "recorder") as mine,
        await ClientConnection.open(server.host, server.port, "plain") as theirs,
        trio.open_nursery() as nursery,
    ):
        seeking = trio.Event()

        def hook(message: protocol.Message) -> None:
            if isinstance(message, protocol.Seeking):
                seeking.set()

        async def other() -> None:
            await seeking.wait()
            await play_one(theirs, GAME, Plain(), options=QUICK, time_control=TIME)

        nursery.start_soon(other)
        try:
            await play_one(mine, GAME, agent, options=QUICK, time_control=TIME, on_message=hook)
        finally:
            nursery.cancel_scope.cancel()


async def test_the_runner_calls_the_lifecycle_around_a_game(server: RunningServer) -> None:
    agent = Recording()
    with trio.fail_after(30):
        await play_against_plain(server, agent)
    assert agent.calls[0] == "load"
    assert agent.calls[1] == "observe Seeking"
    assert "choose" in agent.calls
    assert agent.calls[-3:] == ["observe GameOver", "finish", "close"]


async def test_close_is_called_when_the_agent_fails(server: RunningServer) -> None:
    agent = Recording(fail=True)
    failed = False
    with trio.fail_after(30):
        try:
            await play_against_plain(server, agent)
        except* RuntimeError:
            failed = True
    assert failed
    assert agent.calls[-2:] == ["choose", "close"]
