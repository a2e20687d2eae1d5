"""`arbiter match` played by a server: a program's side in the real sandbox, registered players'
SPRT match on a server over TCP, and what each refuses or stops on, in a sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ServerError
from arbiter.client.match_served import unused_name
from arbiter.server.app import FullRecord, open_records, read_records, read_tournaments
from tests.conftest import RunningServer
from tests.sandbox.helpers import code_folder, need_bwrap
from tests.tournament.helpers import (
    arbiter,
    arbiter_here,
    director,
    play_as,
    register,
    status,
    text,
)

FIRST_LEGAL = '''"""Plays the first legal move of each turn, told where and as whom by its
environment; first tries to write beside itself, which the sandbox does not allow."""
import os
from pathlib import Path

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection

try:
    Path(__file__).with_name("escaped").write_text("out")
except OSError:
    pass


async def main() -> None:
    host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
    game = os.environ["ARBITER_GAME"]
    async with await ClientConnection.open(
        host, int(port), os.environ["ARBITER_NAME"], os.environ["ARBITER_TOKEN"]
    ) as connection:
        await connection.send(protocol.Seek(game=game, hints=True))
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.YourTurn) and message.legal:
                await connection.send(protocol.Move(match=message.match, move=message.legal[0]))
            elif isinstance(message, protocol.GameOver):
                await connection.send(protocol.Seek(game=game, hints=True))
            elif isinstance(message, protocol.SeekCancelled):
                return


trio.run(main)
'''
GARBAGE = '''"""Connects where it is told and sends a frame that is not msgpack."""
import os
import socket

host, port = os.environ["ARBITER_SERVER"].rsplit(":", 1)
with socket.create_connection((host, int(port))) as server:
    server.sendall(b"\\x00\\x00\\x00\\x05hello")
    server.recv(1000)
'''
PAIR = re.compile(r"^pair (\d+): (\S+) ([\d½]+)-([\d½]+) (\S+) ", re.MULTILINE)


def kept_match(db: Path | str) -> tuple[protocol.Tournament, list[FullRecord]]:
    """The last tournament in a store, and its records."""
    kept = read_tournaments(db)[-1]
    records = open_records(db)
    try:
        return kept, list(read_records(records, tournament=kept.name))
    finally:
        records.close()


async def test_a_program_plays_a_match_in_the_sandbox_and_its_games_are_kept(
    tmp_path: Path,
) -> None:
    need_bwrap()
    code = code_folder(tmp_path, FIRST_LEGAL, "first_legal.py")
    done = await arbiter(
        "match", f"cmd=python3 {code / 'first_legal.py'}", "random", "--game", "kings-court",
        "--games", "4", "--time", "move=0.5", "--db", str(tmp_path / "kept.db"), seconds=120,
    )  # fmt: skip
    out = text(done)
    pairs = PAIR.findall(out)
    assert [(n, a, b) for n, a, _, _, b in pairs] == [
        ("1", "local-first_legal", "local-random"),
        ("2", "local-first_legal", "local-random"),
    ], out
    assert re.search(r"^games 4, score [\d½]+-[\d½]+, Elo ", out, re.MULTILINE), out
    assert not (code / "escaped").exists()  # its folder was read-only: it ran sandboxed
    kept, records = kept_match(tmp_path / "kept.db")
    assert kept.format == "match"
    assert len(records) == 4
    for first, second in zip(records[::2], records[1::2], strict=True):  # colours swapped
        assert first.players == list(reversed(second.players))
        assert first.options == second.options
    assert all(game["defaults"] == [None, None] for game in kept.games)


async def test_a_program_that_speaks_garbage_stops_the_match_with_its_name(
    tmp_path: Path,
) -> None:
    need_bwrap()
    code = code_folder(tmp_path, GARBAGE, "garbage.py")
    done = await arbiter(
        "match", f"cmd=python3 {code / 'garbage.py'}", "random", "--game", "kings-court",
        "--sprt", "elo0=0", "elo1=100", "--time", "move=0.5", "--wait", "4",
        "--db", str(tmp_path / "kept.db"), seconds=120,
    )  # fmt: skip
    out = text(done)
    assert "stopped after 0 games counted: local-garbage" in out, out
    assert "did not come to play (pair 1, not counted)" in out
    kept, records = kept_match(tmp_path / "kept.db")
    assert kept.status == "finished"
    assert len(records) == 2  # the pair it stayed away from, as forfeits, and nothing after
    assert kept.sprt is not None
    assert kept.sprt["pairs"] == 0
    assert kept.sprt["stopped"] is not None


@pytest.mark.long
async def test_two_connected_players_play_an_sprt_match_on_a_server(
    server: RunningServer,
) -> None:
    tokens = register(server.db, "ann", "ben")
    boss = register(server.db, "boss", role="admin")["boss"]
    where = ["--server", f"{server.host}:{server.port}", "--name", "boss"]
    results: dict[str, str] = {}

    async def match() -> None:
        done = await arbiter(
            "match", "ann", "ben", "--game", "kings-court", "--sprt", "elo0=0", "elo1=400",
            "--time", "move=1", "--title", "duel", *where, token=boss, seconds=120,
        )  # fmt: skip
        results["out"] = text(done)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(match)
        async with await director(server.port, server.db) as watcher:
            with trio.fail_after(30):
                while True:
                    try:
                        await status(watcher, "duel")
                        break
                    except ServerError:
                        await trio.sleep(0.1)
        nursery.start_soon(play_as, server.port, "ann", tokens["ann"], "steady", "duel")
        nursery.start_soon(play_as, server.port, "ben", tokens["ben"], "crasher", "duel")

    out = results["out"]
    assert "H1 accepted after 10 games (elo0=0 elo1=400" in out, out
    assert [(a, b) for _, a, _, _, b in PAIR.findall(out)] == [("ann", "ben")] * 5
    kept, records = kept_match(server.db)
    assert kept.sprt is not None
    assert kept.sprt["decision"] == "H1"
    assert kept.sprt["counts"] == [0, 0, 0, 0, 5]
    assert len(records) == 10
    assert [r.players for r in records[:2]] == [["ann", "ben"], ["ben", "ann"]]


async def test_a_player_who_does_not_come_stops_a_match_on_a_server(
    server: RunningServer,
) -> None:
    register(server.db, "ann", "ben")
    boss = register(server.db, "boss", role="admin")["boss"]
    done = await arbiter(
        "match", "ann", "ben", "--game", "kings-court", "--games", "20", "--wait", "1",
        "--server", f"{server.host}:{server.port}", "--name", "boss", token=boss,
    )  # fmt: skip
    assert "stopped after 0 games counted: ann and ben did not come to play" in text(done)
    kept, _ = kept_match(server.db)
    assert len(kept.games) == 2


@pytest.mark.parametrize(
    ("players", "extra", "sentence"),
    [
        (["ann", "zed"], [], "'zed' is not a registered player"),
        (["ann", "ann"], [], "'ann' cannot play itself on a server"),
        (["ann", "ben"], ["--max-games", "20000"], "plays at most 10000 games"),
        (["ann", "mine.py"], [], "'mine.py' runs on this machine"),
        (["ann", "cmd=./bot"], [], "'cmd=./bot' runs on this machine"),
        (["ann", "ben"], ["--db", "x.db"], "--db goes with a match on this machine"),
    ],
)
async def test_a_match_a_server_cannot_play_is_a_sentence(
    server: RunningServer, players: list[str], extra: list[str], sentence: str
) -> None:
    register(server.db, "ann", "ben")
    boss = register(server.db, "boss", role="admin")["boss"]
    args = [
        "match", *players, "--game", "kings-court", "--sprt", "elo0=0", "elo1=50",
        "--server", f"{server.host}:{server.port}", "--name", "boss", "--token", boss, *extra,
    ]  # fmt: skip
    done = await arbiter_here(*args)
    assert done.returncode != 0
    assert sentence in done.stderr.decode(), done.stderr.decode()


def test_a_kept_files_match_names_are_not_reused() -> None:
    assert unused_name("match-3", set()) == "match-3"
    assert unused_name("match-3", {"match-3", "match-3-2", "local"}) == "match-3-3"
