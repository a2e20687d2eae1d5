"""The stamper's rewriting, without I/O: the agent's hello signs in with the seat's ticket, and
its moves carry the CPU seconds the worker measured, whatever the agent wrote."""

from __future__ import annotations

import subprocess
import sys
import time

from arbiter import protocol
from arbiter.client.sandbox.link import Direction
from arbiter.client.sandbox.tree import tree_usage
from tests.workers.stamping import MATCH_STARTED, FakeTree, signed_in


def test_frames_at_the_links_seam_are_rewritten_one_way_and_watched_the_other() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    tree.used = 1.0
    started = protocol.encode_frame(MATCH_STARTED)[4:]
    assert stamper.on_frame(Direction.TO_AGENT, started) == started
    turn = protocol.encode_frame({"type": "your_turn", "match": 7})[4:]
    assert stamper.on_frame(Direction.TO_AGENT, turn) == turn
    tree.used = 1.5
    sent = protocol.encode_frame({"type": "move", "match": 7, "move": "B6C6", "cpu": 0.0})[4:]
    passed = protocol.decode_body(stamper.on_frame(Direction.TO_SERVER, sent))
    assert passed == {"type": "move", "match": 7, "move": "B6C6", "cpu": 0.5}
    assert stamper.on_frame(Direction.TO_SERVER, b"\xc1") == b"\xc1"  # the server judges it


def test_a_move_carries_the_cpu_seconds_since_the_match_began_not_the_agents_figure() -> None:
    tree = FakeTree()
    stamper = signed_in(tree)
    tree.used = 3.0
    stamper.from_server(MATCH_STARTED)
    stamper.from_server({"type": "your_turn", "match": 7})
    tree.used = 4.25
    move = stamper.to_server({"type": "move", "match": 7, "move": "B6C6", "cpu": 0.0})
    assert move is not None
    assert move["cpu"] == 1.25
    tree.used = 4.5  # a retry after a refused move costs only its own time
    retry = stamper.to_server({"type": "move", "match": 7, "move": "B6C5"})
    assert retry is not None
    assert retry["cpu"] == 0.25


def test_thinking_on_the_opponents_time_is_charged_to_the_next_move() -> None:
    """CPU spent between its turns counts from its previous move: pondering is not free."""
    tree = FakeTree()
    stamper = signed_in(tree)
    stamper.from_server(MATCH_STARTED)
    stamper.from_server({"type": "your_turn", "match": 7})
    tree.used = 0.5
    stamper.to_server({"type": "move", "match": 7, "move": "B6C6"})
    tree.used = 2.0  # busy while the opponent moves
    stamper.from_server({"type": "your_turn", "match": 7})
    tree.used = 2.25
    move = stamper.to_server({"type": "move", "match": 7, "move": "C6C5"})
    assert move is not None
    assert move["cpu"] == 1.75


def test_a_version_1_agents_moves_carry_no_cpu_figure() -> None:
    stamper = signed_in(FakeTree(), version=1)
    move = stamper.to_server({"type": "move", "match": 1, "move": "B6C6", "cpu": 0.0})
    assert "cpu" not in move


BURNER = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass"
PARENT = (
    "import subprocess, sys, time\n"
    f"subprocess.run([sys.executable, '-c', {BURNER!r}])\n"
    "time.sleep(30)"
)
"""A process whose child burns half a CPU second and is reaped while the parent sleeps on."""


def test_the_cpu_of_a_process_tree_counts_its_children() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT])
    try:
        deadline = time.monotonic() + 20
        while tree_usage(parent.pid).cpu_seconds < 0.5:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        parent.kill()
        parent.wait()
