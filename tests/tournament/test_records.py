"""Game records: the export's schema (docs/records.md), and replays rebuilt from the record."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from arbiter.client.records import SCHEMA, export, frames, step
from arbiter.server.storage.engine import open_read_only
from arbiter.server.storage.records import read_records
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.processes import CLI
from tests.tournament.helpers import create, director, play_as, register, start

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "records.md").read_text()
TOP_FIELDS = {
    "schema": str, "match": int, "game": str, "options": dict, "time_control": dict,
    "illegal": str, "status": str, "started_at": str, "ended_at": str, "seats": list,
    "players": list, "result": str, "winner": (str, type(None)), "reason": str,
    "termination": str, "scores": list, "defaults": list, "clocks": list, "tournament": dict,
    "moves": list,
}  # fmt: skip
MOVE_FIELDS = {
    "ply": int, "seat": str, "move": str, "elapsed": float, "compensation": float,
    "clock": float, "cpu": type(None),
}  # fmt: skip
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


async def played_tournament(server: RunningServer) -> None:
    """Two games with a game clock: a steady player against one that plays illegally."""
    tokens = register(server.db, "ann", "ben")
    async with await director(server.port, server.db) as boss:
        await create(
            boss, players=["ann", "ben"], time={"clock": 20.0, "increment": 1.0}, wait=10.0
        )
        await start(boss)
        with trio.fail_after(20):
            async with trio.open_nursery() as entrants:
                entrants.start_soon(play_as, server.port, "ann", tokens["ann"], "steady")
                entrants.start_soon(play_as, server.port, "ben", tokens["ben"], "cheater")


def exported(db: Path | str, **filters: Any) -> list[dict[str, Any]]:
    connection = open_read_only(db)
    out = io.StringIO()
    try:
        count = export(connection, out, **filters)
    finally:
        connection.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == count
    return [json.loads(line) for line in lines]


@BOTH_BACKENDS
async def test_every_exported_line_follows_the_documented_schema(server: RunningServer) -> None:
    await played_tournament(server)
    games = exported(server.db, tournament="cup")
    assert [game["tournament"] for game in games] == [
        {"name": "cup", "round": 1, "game": 1},
        {"name": "cup", "round": 1, "game": 2},
    ]
    for game in games:
        assert list(game) == list(TOP_FIELDS), "every field, always, in the documented order"
        for name, kind in TOP_FIELDS.items():
            assert isinstance(game[name], kind), name
            assert f"| `{name}` |" in DOC, f"docs/records.md does not describe {name}"
        assert game["schema"] == SCHEMA
        assert game["illegal"] == "forfeit,forfeit"
        assert ISO_UTC.fullmatch(game["started_at"])
        assert ISO_UTC.fullmatch(game["ended_at"])
        assert game["players"] == ["ann", "ben"] or game["players"] == ["ben", "ann"]
        cheater = game["players"].index("ben")
        assert game["scores"][cheater] == 0.0
        assert game["scores"][1 - cheater] == 1.0
        assert game["defaults"][cheater] == "illegal"
        assert game["defaults"][1 - cheater] is None
        assert game["reason"].startswith("illegal move ")
        assert game["termination"] == "illegal-move"
        for number, move in enumerate(game["moves"], 1):
            assert list(move) == list(MOVE_FIELDS)
            assert all(isinstance(move[name], kind) for name, kind in MOVE_FIELDS.items())
            assert move["ply"] == number
            assert 0 <= move["compensation"] <= move["elapsed"]
            assert 0 < move["clock"] <= 21.0, "a game clock of 20 s plus 1 s increments"
    assert [len(game["moves"]) for game in games] == [1, 0], "ann moved first once"
    for name in MOVE_FIELDS:
        assert f"| `{name}` |" in DOC


@BOTH_BACKENDS
async def test_export_filters_and_unfinished_games(server: RunningServer) -> None:
    await played_tournament(server)
    assert [game["match"] for game in exported(server.db, matches=[2])] == [2]
    assert exported(server.db, tournament="plate") == []
    assert len(exported(server.db, unfinished=True)) == 2


@BOTH_BACKENDS
async def test_the_export_command_writes_json_lines(server: RunningServer, tmp_path: Path) -> None:
    await played_tournament(server)
    target = tmp_path / "cup.jsonl"
    done = await trio.run_process(
        [
            sys.executable,
            "-m",
            "arbiter.client.cli",
            "export",
            "--db",
            str(server.db),
            "-o",
            str(target),
        ],
        capture_stderr=True,
        cwd=ROOT,
    )
    assert done.stderr == b"exported 2 games\n"
    assert [json.loads(line)["match"] for line in target.read_text().splitlines()] == [1, 2]


@BOTH_BACKENDS
async def test_a_replay_shows_every_position_with_the_moves_times(server: RunningServer) -> None:
    await played_tournament(server)
    connection = open_read_only(server.db)
    try:
        record = next(read_records(connection, matches=[1]))
    finally:
        connection.close()
    shown = frames(record)
    assert len(shown) == len(record.moves) + 1 == 2
    assert shown[0].splitlines()[:2] == [
        "match 1: kings-court, white ann, black ben (cup, round 1)",
        "start",
    ]
    move = record.moves[0]
    assert shown[1].splitlines()[1].startswith(f"1. white (ann) {move.move}   [")
    assert "clock 2" in shown[1].splitlines()[1]
    assert shown[-1].splitlines()[-2:] == [
        f"ended by: {record.termination}",
        f"result: white wins: {record.reason}",
    ]


def test_stepping_goes_forward_back_and_jumps() -> None:
    out = io.StringIO()
    step(["zero", "one", "two"], iter(["", "b", "2", "", "x"]), out)
    assert re.findall(r"\b(zero|one|two)\b", out.getvalue()) == ["zero", "one", "zero", "two"]
    assert "[2/2] Enter next" in out.getvalue()


@pytest.mark.parametrize("command", [["export"], ["replay", "1"]])
@pytest.mark.parametrize(
    ("contents", "reason"),
    [
        (None, "no database file"),
        ("text".ljust(200, "."), "file is not a database"),
        ("other sqlite", "no such table: matches"),
    ],
)
def test_reading_commands_name_a_file_they_cannot_read(
    tmp_path: Path, command: list[str], contents: str | None, reason: str
) -> None:
    db = tmp_path / "records.db"
    if contents == "other sqlite":
        with sqlite3.connect(db) as other:
            other.execute("CREATE TABLE notes (text TEXT)")
    elif contents is not None:
        db.write_text(contents)
    done = subprocess.run(
        [*CLI, *command, "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"arbiter: cannot read {str(db)!r} as an Arbiter server's records: {reason}"
        + (f" {str(db)!r}" if contents is None else "")
        + "\n"
    )
    assert done.stdout == ""
