"""docs/protocol.md is generated where it can be, so it can never disagree with the code."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import msgpack
import pytest

from arbiter import protocol

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"


def load_generator() -> ModuleType:
    path = ROOT / "docs" / "make_protocol_tables.py"
    spec = importlib.util.spec_from_file_location("make_protocol_tables", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = load_generator()


@pytest.mark.parametrize("name", list(GENERATOR.BLOCKS))
def test_doc_holds_the_current_output_of_the_generator(name: str) -> None:
    block = GENERATOR.marked(name, GENERATOR.BLOCKS[name]())
    assert block in DOC.read_text(), (
        f"docs/protocol.md block {name!r} is stale: run python docs/make_protocol_tables.py --write"
    )


def test_rewriting_the_doc_changes_nothing() -> None:
    text = DOC.read_text()
    assert GENERATOR.rewrite(text) == text


def test_session_table_lists_every_phase_and_both_handshake_steps() -> None:
    table = GENERATOR.session_table()
    for phase in protocol.Phase:
        assert f"| {phase.value} |" in table
    assert "`hello` -> GREETING" in table
    assert "`welcome` -> OPEN" in table


def test_every_message_and_error_code_is_documented() -> None:
    text = DOC.read_text()
    for kind in protocol.MESSAGE_TYPES:
        assert f"#### `{kind}`" in text
    for code in protocol.ErrorCode:
        assert f"| `{code.value}` |" in text


def test_frame_dump_bytes_are_the_real_frame() -> None:
    dump = GENERATOR.frame_dump()
    hex_line = re.search(r"```\n([0-9a-f ]+)\n```", dump)
    assert hex_line is not None
    frame = bytes.fromhex(hex_line.group(1))
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert msgpack.unpackb(frame[4:]) == {"type": "move", "match": 7, "move": "B4C4"}


def test_example_session_covers_a_whole_match_in_order() -> None:
    kinds = [message.TYPE for _, message, _ in GENERATOR.checked_session()]
    for expected in (
        "hello", "welcome", "seek", "seeking", "match_started", "your_turn", "move",
        "move_accepted", "opponent_moved", "move_refused", "game_over",
    ):  # fmt: skip
        assert expected in kinds
    assert kinds[:2] == ["hello", "welcome"]
    assert kinds[-1] == "game_over"


def test_example_session_first_turn_offers_the_eight_opening_slides() -> None:
    first_turn = next(
        message for _, message, _ in GENERATOR.checked_session() if message.TYPE == "your_turn"
    )
    assert isinstance(first_turn, protocol.YourTurn)
    assert sorted(first_turn.legal or []) == sorted(
        ["B4C4", "B6C6", "D2D3", "F2F3", "C7C6", "E7E6", "G3F3", "G5F5"]
    )


@pytest.mark.parametrize(("block", "version"), [("example-session", 1), ("example-session-v2", 2)])
def test_the_raw_example_sessions_in_the_doc_still_play(block: str, version: int) -> None:
    """Each line of the doc's example session, as printed, is a frame of the stated size that a
    client and a server `Connection` pass in order: the version 1 session plays unchanged."""
    text = DOC.read_text()
    body = text[text.index(f"<!-- BEGIN {block} -->") : text.index(f"<!-- END {block} -->")]
    ends = {role: protocol.Connection(role) for role in (protocol.CLIENT, protocol.SERVER)}
    lines = re.findall(r"^(C->S|S->C) +(\d+)  (\{.*\})$", body, re.MULTILINE)
    assert len(lines) > 10
    for arrow, size, shown in lines:
        sender = protocol.CLIENT if arrow == "C->S" else protocol.SERVER
        frame = protocol.encode_frame(json.loads(shown))
        assert len(frame) == int(size)
        receiver = ends[sender.peer]
        receiver.receive_data(frame)
        message = receiver.next_message()
        assert isinstance(message, protocol.Message)
        assert ends[sender].send(message) == frame, "sent again, the same bytes"
    assert ends[protocol.CLIENT].version == ends[protocol.SERVER].version == version
