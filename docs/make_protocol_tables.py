"""Print the generated parts of docs/protocol.md from the protocol package's own tables.

The session table and diagram come from `protocol.TRANSITIONS`, the message field tables from each
message's field specs, the error codes from `protocol.ERROR_CODES`, the frame dump from a real
encoded frame, and the example session from a real King's Court game (the rules in games/) whose
every frame passes through a client and a server `Connection`. docs/protocol.md holds each block
between `<!-- BEGIN name -->` and `<!-- END name -->` markers; tests/protocol/test_docs.py fails
when a block differs from what this prints, so the spec cannot drift from the code.

    python docs/make_protocol_tables.py           # print every block
    python docs/make_protocol_tables.py --write   # rewrite the blocks in docs/protocol.md
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import msgpack

from arbiter import protocol
from arbiter.games import IllegalMoveError, get_game

ROOT = Path(__file__).resolve().parent.parent

DOC = ROOT / "docs" / "protocol.md"
EXAMPLE_FRAME = protocol.Move(match=7, move="B4C4")
EXAMPLE_PLIES = [("b4c4", 1.25), ("G4F4", 2.5), ("c4d4", 0.75), ("G6F6", 3.0)]
"""The example game's moves with their thinking times; Alice types hers in lower case."""
EXAMPLE_ILLEGAL = "D4D6"
SERVER = "arbiter 0.1.0"
ROLES = (protocol.CLIENT, protocol.SERVER)


def session_table() -> str:
    lines = [
        "| phase | the client may send | the server may send |",
        "| --- | --- | --- |",
    ]
    for phase, rows in protocol.TRANSITIONS.items():
        cells = [_allowed(phase, rows[role]) for role in ROLES]
        lines.append(f"| {phase.value} | {cells[0]} | {cells[1]} |")
    lines.append("| *any* | end of stream (EOF) -> CLOSED | end of stream (EOF) -> CLOSED |")
    return "\n".join(lines)


def _allowed(phase: protocol.Phase, row: dict[str, protocol.Phase]) -> str:
    if not row:
        return "nothing"
    return ", ".join(
        f"`{kind}`" if after is phase else f"`{kind}` -> {after.value}"
        for kind, after in row.items()
    )


def session_diagram() -> str:
    lines = ["```mermaid", "stateDiagram-v2", "    [*] --> START"]
    for phase, rows in protocol.TRANSITIONS.items():
        for role in ROLES:
            for kind, after in rows[role].items():
                if after is not phase:
                    lines.append(f"    {phase.value} --> {after.value}: {role.value} {kind}")
    lines += [
        f"    {phase.value} --> CLOSED: EOF"
        for phase in protocol.TRANSITIONS
        if phase is not protocol.Phase.CLOSED
    ]
    lines += ["    CLOSED --> [*]", "```"]
    return "\n".join(lines)


def error_table() -> str:
    lines = [
        "| code | raised by | closes the connection | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for code, info in protocol.ERROR_CODES.items():
        closes = "yes" if info.closes else "no"
        lines.append(f"| `{code.value}` | {info.raised_by} | {closes} | {info.meaning} |")
    return "\n".join(lines)


def message_reference() -> str:
    blocks = []
    for kind, cls in protocol.MESSAGE_TYPES.items():
        blocks.append(_message_block(kind, cls))
    return "\n\n".join(blocks)


def _message_block(kind: str, cls: type[protocol.Message]) -> str:
    senders = "either side" if len(cls.SENDERS) == 2 else f"the {next(iter(cls.SENDERS)).value}"
    phases = [
        phase.value
        for phase, rows in protocol.TRANSITIONS.items()
        if any(kind in rows[role] for role in cls.SENDERS)
    ]
    doc = " ".join((cls.__doc__ or "").split())
    lines = [
        f"#### `{kind}`",
        "",
        f"Sent by {senders}, in phase {_either(phases)}. {doc}",
        "",
    ]
    if not cls.FIELDS:
        lines.append("No fields besides `type`.")
        return "\n".join(lines)
    lines += [
        "| field | type | limits | presence | versions |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, spec in cls.FIELDS:
        since = cls.SINCE[name]
        presence = "required"
        if name in cls.DEFAULTS and (since == protocol.VERSIONS[0] or spec.nullable):
            presence = f"optional, default `{_show(cls.DEFAULTS[name])}`"
        versions = "all" if since == protocol.VERSIONS[0] else f"{since} on"
        limits = spec.limits or "-"
        lines.append(f"| `{name}` | {spec.wire} | {limits} | {presence} | {versions} |")
    return "\n".join(lines)


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _show(value: Any) -> str:
    if value is None:
        return "nil"
    return json.dumps(value)


def frame_dump() -> str:
    frame = protocol.encode_frame(EXAMPLE_FRAME.to_wire())
    wire = EXAMPLE_FRAME.to_wire()
    parts: list[tuple[bytes, str]] = [
        (frame[:4], f"length: {len(frame) - 4} bytes follow (big-endian uint32)"),
        (frame[4:5], f"map of {len(wire)} entries (fixmap)"),
    ]
    for key, value in wire.items():
        parts.append((msgpack.packb(key), f"key {json.dumps(key)}"))
        parts.append((msgpack.packb(value), f"value {json.dumps(value)}"))
    assert b"".join(part for part, _ in parts) == frame
    width = max(len(part) for part, _ in parts) * 3
    lines = [
        f"The frame for `{_compact(wire)}`, {len(frame)} bytes:",
        "",
        "```",
        frame.hex(" "),
        "```",
        "",
        "```",
    ]
    lines += [f"{part.hex(' '):<{width}} {meaning}" for part, meaning in parts]
    lines.append("```")
    return "\n".join(lines)


def _compact(wire: dict[str, Any]) -> str:
    return json.dumps(wire, separators=(", ", ": "))


def example_session(version: int = 1) -> list[tuple[protocol.Role, protocol.Message]]:
    """Alice's side of a short King's Court game against Bob (who is not shown), in `version`.

    It ends the way this server treats an illegal move: `move_refused`, then the game is lost.
    """
    game = get_game("kings-court")
    options = game.resolve_options({})
    time = {"move": 10.0}
    state = game.initial_state(options)
    white, black = game.seats
    client, server = protocol.CLIENT, protocol.SERVER
    script: list[tuple[protocol.Role, protocol.Message]] = [
        (client, protocol.Hello(version=version, name="alice")),
        (server, protocol.Welcome(version, "5d41402abc4b2a76b9719d911017c592", SERVER)),
        (client, protocol.Seek(game=game.name, time=time)),
        (server, protocol.Seeking(seek=1, game=game.name, options={}, time=time)),
        (
            server,
            protocol.MatchStarted(
                match=1, game=game.name, seat=white, seats=list(game.seats),
                players=["alice", "bob"], options=options, time=time, hints=True,
                state=state.to_data(),
            ),
        ),
    ]  # fmt: skip
    played: list[str] = []
    for ply, (text, elapsed) in enumerate(EXAMPLE_PLIES):
        mover = game.seats[state.turn]
        if mover == white:
            script += _your_turn(game, state, ply)
            script.append((client, protocol.Move(match=1, move=text)))
        move, state = game.apply_text(state, text)
        played.append(game.format_move(move))
        position = protocol.Position(state.to_data(), game.seats[state.turn])
        if mover == white:
            accepted = protocol.MoveAccepted(1, ply + 1, played[-1], elapsed, position=position)
            script.append((server, accepted))
        else:
            moved = protocol.OpponentMoved(
                1, ply + 1, mover, played[-1], elapsed, position=position
            )
            script.append((server, moved))
        if ply == 1:
            script += [(client, protocol.Ping(nonce=7)), (server, protocol.Pong(nonce=7))]
    script += _your_turn(game, state, len(played))
    script.append((client, protocol.Move(match=1, move=EXAMPLE_ILLEGAL)))
    try:
        game.apply_text(state, EXAMPLE_ILLEGAL)
    except IllegalMoveError as error:  # the sentence comes from the rules themselves
        reason = str(error)
    script += [
        (server, protocol.MoveRefused(1, EXAMPLE_ILLEGAL, "illegal_move", reason)),
        (
            server,
            protocol.GameOver(
                match=1, result="win", winner=black, reason=reason, state=state.to_data(),
                moves=played, termination="illegal-move", clocks_ms=None,
            ),
        ),
    ]  # fmt: skip
    return script


def _your_turn(game: Any, state: Any, ply: int) -> list[tuple[protocol.Role, protocol.Message]]:
    legal = [game.format_move(move) for move in state.legal_moves()]
    turn = protocol.YourTurn(1, ply, state.to_data(), legal, time_left=10.0)
    return [(protocol.SERVER, turn)]


def checked_session(version: int = 1) -> list[tuple[protocol.Role, protocol.Message, bytes]]:
    """The example session in `version` sent through a client and a server connection, frame
    by frame; each message as the receiver decoded it (a version 1 peer gets no later field)."""
    ends = {role: protocol.Connection(role) for role in ROLES}
    frames = []
    for sender, message in example_session(version):
        frame = ends[sender].send(message)
        receiver = ends[sender.peer]
        receiver.receive_data(frame)
        received = receiver.next_message()
        if not isinstance(received, protocol.Message) or received.to_wire(version) != (
            message.to_wire(version)
        ):
            raise AssertionError(f"{message} did not survive the wire")
        frames.append((sender, received, frame))
    return frames


def session_example(version: int = 1) -> str:
    lines = ["```"]
    for sender, message, frame in checked_session(version):
        arrow = "C->S" if sender is protocol.CLIENT else "S->C"
        lines.append(f"{arrow} {len(frame):>5}  {_compact(message.to_wire(version))}")
    lines.append("```")
    return "\n".join(lines)


def session_example_v2() -> str:
    return session_example(2)


BLOCKS = {
    "session-table": session_table,
    "session-diagram": session_diagram,
    "frame-dump": frame_dump,
    "messages": message_reference,
    "error-codes": error_table,
    "example-session": session_example,
    "example-session-v2": session_example_v2,
}


def render_blocks() -> dict[str, str]:
    return {name: make() for name, make in BLOCKS.items()}


def marked(name: str, body: str) -> str:
    return f"<!-- BEGIN {name} -->\n{body}\n<!-- END {name} -->"


def rewrite(text: str) -> str:
    """`text` with every marked block replaced by its current output."""
    for name, body in render_blocks().items():
        pattern = re.compile(rf"<!-- BEGIN {name} -->\n.*?<!-- END {name} -->", re.DOTALL)
        if not pattern.search(text):
            raise SystemExit(f"docs/protocol.md has no block {name!r}")
        text = pattern.sub(marked(name, body).replace("\\", "\\\\"), text)
    return text


def main() -> None:
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(rewrite(DOC.read_text()))
        return
    for name, body in render_blocks().items():
        print(marked(name, body), end="\n\n")


if __name__ == "__main__":
    main()
