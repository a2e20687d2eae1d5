"""The stamper's watch over a hosted move's CPU, without I/O: past the move's allowance it gives
the worker an `out_of_cpu` frame, once, and the agent's late move is dropped."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from arbiter import protocol
from arbiter.client.sandbox.link import Direction
from arbiter.client.worker.stamper import POLL_BOUNDS
from tests.workers.stamping import MATCH_STARTED, FakeTree, signed_in


def body(frame: dict[str, Any]) -> bytes:
    return protocol.encode_frame(frame)[4:]


YOUR_TURN = {"type": "your_turn", "match": 7, "ply": 1, "time_left": 1.0}
MOVE = {"type": "move", "match": 7, "move": "B6C6"}


def test_a_move_past_its_allowance_is_reported_once_with_its_cpu_seconds() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    assert stamper.overspent() is None  # no move under way
    tree.used = 2.0
    stamper.from_server(MATCH_STARTED)
    stamper.from_server(dict(YOUR_TURN))
    tree.used = 3.0  # exactly the allowance: still in time
    assert stamper.overspent() is None
    tree.used = 3.04
    report = stamper.overspent()
    assert report is not None
    assert protocol.decode_body(report) == {"type": "out_of_cpu", "match": 7, "cpu": 1.04}
    assert stamper.overspent() is None  # said once


def test_the_agents_move_after_the_report_is_dropped_until_its_next_turn() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    stamper.from_server(dict(YOUR_TURN))
    tree.used = 1.5
    assert stamper.overspent() is not None
    assert stamper.on_frame(Direction.TO_SERVER, body(MOVE)) is None
    stamper.on_frame(Direction.TO_AGENT, body(MATCH_STARTED))  # the next game
    stamper.on_frame(Direction.TO_AGENT, body(YOUR_TURN))
    passed = stamper.on_frame(Direction.TO_SERVER, body(MOVE))
    assert passed is not None
    assert protocol.decode_body(passed)["cpu"] == 0.0


def test_a_move_in_time_ends_the_watch_and_a_refused_one_reopens_it() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    stamper.from_server(dict(YOUR_TURN))
    tree.used = 0.5
    assert stamper.to_server(dict(MOVE)) is not None
    assert stamper.overspent() is None
    refused = {"type": "move_refused", "match": 7, "move": "B6C6", "code": "illegal_move"}
    stamper.from_server(
        refused
    )  # the retry is charged from the refused move on, as the server does
    tree.used = 0.5 + 0.9
    assert stamper.overspent() is None
    tree.used = 0.5 + 1.1
    assert stamper.overspent() is not None


def test_a_move_refused_as_out_of_turn_opens_no_watch() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    stamper.to_server(dict(MOVE))
    stamper.from_server({"type": "move_refused", "match": 7, "code": "not_your_turn"})
    tree.used = 10.0
    assert stamper.overspent() is None


def test_game_over_ends_the_watch() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    stamper.from_server(dict(YOUR_TURN))
    stamper.from_server({"type": "game_over", "match": 7})
    tree.used = 10.0
    assert stamper.overspent() is None


def test_a_version_1_agents_moves_are_not_watched() -> None:
    """Its connection has no `out_of_cpu`: the server charges its moves their wall time."""
    tree = FakeTree()
    stamper = signed_in(tree, version=1)
    stamper.from_server(dict(YOUR_TURN))
    tree.used = 10.0
    assert stamper.overspent() is None


@pytest.mark.parametrize(("allowance", "interval"), [(0.05, 0.01), (1.0, 0.05), (60.0, 0.1)])
def test_the_watch_looks_often_for_a_short_allowance_and_a_few_times_a_second_for_a_long(
    allowance: float, interval: float
) -> None:
    stamper = signed_in(FakeTree())
    assert stamper.poll_interval() == POLL_BOUNDS[0]  # no move under way
    stamper.from_server({**YOUR_TURN, "time_left": allowance})
    assert stamper.poll_interval() == pytest.approx(interval)


async def test_move_asked_waits_for_a_move_under_way() -> None:
    stamper = signed_in(FakeTree())
    with trio.move_on_after(0.05) as waited:
        await stamper.move_asked()
    assert waited.cancelled_caught
    stamper.from_server(dict(YOUR_TURN))
    with trio.fail_after(1):
        await stamper.move_asked()
