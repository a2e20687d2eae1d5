"""`arbiter tournament local` as a student runs it: their own agents beside the built-in ones,
seats of its own, a kept file that resumes after an interruption, offline standings, and a line
per result as it comes. Each test runs the real command in a process of its own."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.entrants import parse_program
from arbiter.client.tournament import request
from arbiter.server.app import UnknownEntrant, open_records, read_records, read_tournaments
from tests.conftest import RunningServer
from tests.node_client import need_node
from tests.processes import CLI, ROOT, start_bots, start_server, stop
from tests.tournament.helpers import arbiter, register, text

TEMPLATE = ROOT / "agents" / "templates" / "kings_court.py"
QUICK = ["--time", "move=1", "--option", "no_capture_limit=6"]
LONGER = ["--time", "move=0.3", "--option", "no_capture_limit=10", "--rounds", "2"]
"""Twelve games of a few seconds each among three entrants: long enough to interrupt."""
THREE = ["alphabeta", "greedy", "random"]
RESULT_LINE = re.compile(r"^\[(\d+)/(\d+) eta (\?|\d+:\d\d:\d\d)\] (\S+) vs (\S+): (.+)$")


def result_lines(output: str) -> list[re.Match[str]]:
    return [m for m in map(RESULT_LINE.match, output.splitlines()) if m is not None]


def the_tournament(db: Path) -> protocol.Tournament:
    """The file's one tournament, read offline."""
    (only,) = read_tournaments(db)
    return only


def assert_played_once_each(db: Path, entrants: int, rounds: int) -> None:
    """Every game of the file's tournament finished and stored as one match, and every
    entrant's standings count each of its games once."""
    status = the_tournament(db)
    games = entrants * (entrants - 1) * rounds
    assert (status.name, status.status, len(status.games)) == ("local", "finished", games)
    assert all(game["status"] == "finished" for game in status.games)
    assert {line["games"] for line in status.standings} == {2 * (entrants - 1) * rounds}
    records = open_records(db)
    try:
        matches = [record.id for record in read_records(records, tournament="local")]
    finally:
        records.close()
    assert sorted(matches) == sorted(game["match"] for game in status.games)
    assert len(set(matches)) == games


# -- your own agents -----------------------------------------------------------------------------


async def test_a_player_module_plays_beside_built_in_agents_under_local_seats(
    tmp_path: Path,
) -> None:
    module = tmp_path / "my_agent.py"
    module.write_text(TEMPLATE.read_text())
    done = await arbiter(
        "tournament", "local", "kings-court", "my_agent.py", "greedy", "greedy", *QUICK,
        "--db", "kept.db", cwd=tmp_path,
    )  # fmt: skip
    assert "local: standings (finished)" in text(done)
    status = the_tournament(tmp_path / "kept.db")
    assert status.entrants == ["local-my_agent", "local-greedy", "local-greedy-2"]
    for line in status.standings:
        assert line["games"] == 4
        assert sum(line["defaults"].values()) == 0, f"{line['player']} did not play: {done}"


async def test_an_entrant_the_launcher_cannot_run_is_one_sentence(tmp_path: Path) -> None:
    for entrant, words in [
        ("my_agnet.py", "no Player module file 'my_agnet.py'"),
        ("greedyy", "no built-in agent 'greedyy' for kings-court"),
        ("cmd=no-such-program --fast", "cannot find the program 'no-such-program'"),
        ("cmd=node x.js,name=two words", "'two words' cannot be a seat name"),
    ]:
        done = await arbiter("tournament", "local", "kings-court", "greedy", entrant, cwd=tmp_path)
        assert done.returncode != 0
        assert words in done.stderr.decode(), done.stderr.decode()


def test_a_program_entrant_is_a_command_line_with_an_optional_name() -> None:
    program = parse_program("cmd=node examples/node-client/client.js")
    assert program is not None
    assert program.name == "client"
    assert program.command == ["node", "examples/node-client/client.js"]
    named = parse_program("cmd=node 'a,b.js' --depth=3,name=mine")
    assert named is not None
    assert named.name == "mine"
    assert named.command == ["node", "a,b.js", "--depth=3"]
    assert parse_program("greedy") is None
    assert parse_program("my_agent.py") is None
    with pytest.raises(UnknownEntrant, match="names no command"):
        parse_program("cmd=,name=x")


# -- seats of their own --------------------------------------------------------------------------


async def test_after_a_local_tournament_the_agents_names_are_free_for_bots(tmp_path: Path) -> None:
    db = tmp_path / "kept.db"
    text(
        await arbiter(
            "tournament", "local", "kings-court", "greedy", "random", *QUICK, "--db", str(db)
        )
    )
    server, address = start_server(db)
    try:
        bots = start_bots(address)  # named greedy and random, after their agents
        for bot in bots:
            out, err = bot.communicate(timeout=60)
            assert bot.returncode == 0, err
            assert "wins" in out or "draw" in out or "forfeit" in out
    finally:
        stop(server, signal.SIGTERM)


# -- interrupted, resumed, read offline ----------------------------------------------------------


@pytest.fixture
def tournament_process(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """Started tournaments (each in a session of its own, as a terminal's job is), and every
    process of theirs stopped at the end, whatever the test did to them."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=30)


def start_local(
    started: list[subprocess.Popen[str]], cwd: Path, *args: str
) -> subprocess.Popen[str]:
    """A tournament run in `cwd`, which is its temporary folder too: a run killed with SIGKILL
    cannot remove its scratch folder, and `cwd` goes with the test's `tmp_path`."""
    process = subprocess.Popen(
        [*CLI, "tournament", "local", "kings-court", *THREE, *LONGER, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "TMPDIR": str(cwd)},
    )
    started.append(process)
    return process


def first_result(process: subprocess.Popen[str]) -> str:
    """Read the tournament's output up to its first result line."""
    assert process.stdout is not None
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        assert line, f"the tournament ended early: {process.communicate()}"
        if RESULT_LINE.match(line):
            return line
    raise AssertionError("no game finished in 90 s")


@pytest.mark.long
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL])
async def test_an_interrupted_kept_tournament_resumes_and_counts_every_game_once(
    tmp_path: Path, tournament_process: list[subprocess.Popen[str]], stop: signal.Signals
) -> None:
    first = start_local(tournament_process, tmp_path, "--db", "kept.db")
    first_result(first)
    if stop == signal.SIGINT:  # Ctrl-C: the terminal signals the whole job
        os.killpg(first.pid, stop)
    else:
        first.send_signal(stop)  # the runner alone dies; its agents find the server gone
    _, err = first.communicate(timeout=60)
    if stop == signal.SIGINT:
        assert first.returncode == 130
        assert re.search(r"interrupted after \d+ of 12 games; they are kept in 'kept.db'", err)
    played = sum(
        game["status"] == "finished" for game in the_tournament(tmp_path / "kept.db").games
    )
    assert 1 <= played < 12
    again = await arbiter(
        "tournament", "local", "kings-court", *THREE, *LONGER, "--db", "kept.db",
        cwd=tmp_path, seconds=180,
    )  # fmt: skip
    output = text(again)
    assert output.startswith("resuming tournament 'local' in 'kept.db' (kings-court:")
    assert f": {played} of 12 games played" in output.splitlines()[0]
    assert "wrong token" not in again.stderr.decode()
    assert "local: standings (finished)" in output
    assert_played_once_each(tmp_path / "kept.db", entrants=3, rounds=2)


def test_ctrl_c_without_a_file_says_what_was_lost(
    tmp_path: Path, tournament_process: list[subprocess.Popen[str]]
) -> None:
    run = start_local(tournament_process, tmp_path)
    first_result(run)
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130
    assert re.search(r"interrupted after \d+ of 12 games: nothing was kept \(no --db\)", err), err
    assert "run with --db FILE to keep the games" in err


@pytest.mark.long
async def test_standings_read_from_the_file_and_a_new_tournament_only_when_asked(
    tmp_path: Path,
) -> None:
    local = ["tournament", "local", "kings-court", "greedy", "random", *QUICK, "--db", "kept.db"]
    text(await arbiter(*local, cwd=tmp_path))
    rerun = await arbiter(*local, cwd=tmp_path)
    assert rerun.returncode != 0
    assert "holds the finished tournament 'local': add --new" in rerun.stderr.decode()
    text(await arbiter(*local, "--new", cwd=tmp_path))
    assert [t.name for t in read_tournaments(tmp_path / "kept.db")] == ["local", "local-2"]

    offline = ["tournament", "standings", "--db", "kept.db"]
    assert "local-2: standings (finished)" in text(await arbiter(*offline, cwd=tmp_path))
    first = text(await arbiter(*offline, "--tournament", "local", cwd=tmp_path))
    assert "local: standings (finished)" in first
    assert "local-greedy" in first
    unknown = await arbiter(*offline, "--tournament", "cup", cwd=tmp_path)
    assert unknown.returncode == 1
    assert "'kept.db' holds no tournament 'cup' (tournaments: local, local-2)" in (
        unknown.stderr.decode()
    )
    (tmp_path / "notes.txt").write_text("not a database")
    broken = await arbiter("tournament", "standings", "--db", "notes.txt", cwd=tmp_path)
    assert broken.returncode == 1
    assert "cannot read tournaments from 'notes.txt'" in (broken.stderr.decode())


# -- progress ------------------------------------------------------------------------------------


async def test_each_result_comes_as_a_line_with_the_progress_and_an_eta() -> None:
    output = text(
        await arbiter("tournament", "local", "kings-court", "greedy", "random", "greedy", *QUICK)
    )
    lines = result_lines(output)
    assert [int(m[1]) for m in lines] == [1, 2, 3, 4, 5, 6]
    assert {m[2] for m in lines} == {"6"}
    assert lines[-1][3] == "0:00:00"
    assert all(m[3] != "?" for m in lines[1:])
    seats = {"local-greedy", "local-random", "local-greedy-2"}
    pairs = {(m[4], m[5]) for m in lines}
    assert len(pairs) == 6
    assert all({a, b} <= seats and a != b for a, b in pairs)
    for m in lines:  # the score, who won (or a draw), and how the game ended
        assert re.fullmatch(r"[01½]-[01½]( \(\w+\))?, (\S+ wins|draw|both forfeit): .+", m[6])


# -- a program of any language -------------------------------------------------------------------


async def test_a_built_in_agent_a_player_module_and_the_node_client_play_a_tournament(
    tmp_path: Path, node_client: Path
) -> None:
    program = f"cmd={need_node()} {node_client / 'client.js'},name=node"
    done = await arbiter(
        "tournament", "local", "kings-court", "greedy", str(TEMPLATE), program,
        "--time", "move=2", "--option", "no_capture_limit=6", "--db", "kept.db", cwd=tmp_path,
    )  # fmt: skip
    output = text(done)
    assert len(result_lines(output)) == 6
    status = the_tournament(tmp_path / "kept.db")
    assert status.entrants == ["local-greedy", "local-kings_court", "local-node"]
    for line in status.standings:  # each played its four games: nobody crashed nor was absent
        assert line["games"] == 4, line
        assert sum(line["defaults"].values()) == 0, line
        assert line["points"] == line["wins"] + line["draws"] / 2
        assert line["wins"] + line["draws"] + line["losses"] + line["forfeits"] == 4
    scores = dict.fromkeys(status.entrants, 0.0)
    for game in status.games:
        scores[game["first"]] += game["scores"][0]
        scores[game["second"]] += game["scores"][1]
    assert {line["player"]: line["points"] for line in status.standings} == scores
    assert_played_once_each(tmp_path / "kept.db", entrants=3, rounds=1)


async def test_tournament_play_runs_a_program_as_a_registered_player(
    server: RunningServer, node_client: Path
) -> None:
    tokens = register(server.db, "ann", "ben")
    boss = register(server.db, "boss", role="admin")["boss"]
    where = ["--server", f"{server.host}:{server.port}"]
    text(
        await arbiter(
            "tournament", "create", "cup", "--game", "kings-court", "--players", "ann,ben",
            "--time", "move=2", "--option", "no_capture_limit=6", *where, "--name", "boss",
            token=boss,
        )
    )  # fmt: skip
    text(await arbiter("tournament", "start", "cup", *where, "--name", "boss", token=boss))
    outputs: dict[str, str] = {}

    async def play(name: str, agent: str) -> None:
        done = await arbiter(
            "tournament", "play", "cup", "--agent", agent, *where, "--name", name,
            token=tokens[name],
        )  # fmt: skip
        outputs[name] = text(done)

    async with trio.open_nursery() as teams:
        teams.start_soon(play, "ann", f"cmd={need_node()} {node_client / 'client.js'}")
        teams.start_soon(play, "ben", "random")
    lines = outputs["ann"].splitlines()  # the program's own output, then play's last word
    assert lines[-1] == "ann: no game left in cup (the program ran once)"
    assert sum(line.startswith("game over after") for line in lines) == 2
    async with await ClientConnection.open(server.host, server.port, "guest") as guest:
        cup = await request(guest, protocol.TournamentStatus(tournament="cup"))
    assert cup.status == "finished"
    assert all(game["status"] == "finished" and not any(game["defaults"]) for game in cup.games)
