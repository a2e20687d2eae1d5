"""`server.app`, the one server module the client imports: `local_server`, the functions the
client reaches the server's file through, and the built-in agents a server is handed."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.client.entrants import LocalEntrants
from arbiter.client.tournament import request
from arbiter.server.app import (
    AgentProgram,
    LocalAgentsError,
    StorageError,
    UnknownEntrant,
    admin_token,
    local_server,
    open_records,
    prepare_database,
    read_records,
)
from tests.processes import CLI, no_commit_writer_left


def scratch_folders() -> set[str]:
    return {path.name for path in Path(tempfile.gettempdir()).glob("arbiter-local-*")}


@pytest.fixture
def own_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own temporary folder for `tempfile`: other tests' local servers, running at
    the same time in another worker, make their scratch folders elsewhere."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


async def test_a_local_server_listens_while_the_block_runs_and_leaves_nothing_behind(
    own_temp: Path,
) -> None:
    before = scratch_folders()
    async with local_server() as (host, port):
        assert host == "127.0.0.1"
        (made,) = scratch_folders() - before
        async with await ClientConnection.open(host, port, "guest") as guest:
            await guest.send(protocol.ListGames())
            assert isinstance(await guest.receive(), protocol.Games)
    assert scratch_folders() == before
    assert no_commit_writer_left(Path(tempfile.gettempdir()) / made / "arbiter.db")
    with pytest.raises(OSError, match="all attempts to connect"):
        await trio.open_tcp_stream(host, port)


async def test_a_local_server_on_a_given_file_keeps_its_records(
    tmp_path: Path, own_temp: Path
) -> None:
    db = tmp_path / "kept.db"
    async with (
        local_server(db) as (host, port),
        await ClientConnection.open(host, port, "a") as first,
        await ClientConnection.open(host, port, "b") as second,
    ):
        assert scratch_folders() == set()  # none made: a killed process would leave nothing
        seek = protocol.Seek(game="kings-court", time={"move": 5.0})
        await first.send(seek)
        await second.send(seek)
        for connection in (first, second):
            while not isinstance(await connection.receive(), protocol.MatchStarted):
                pass
        await first.send(protocol.Resign(match=1))
        while not isinstance(await second.receive(), protocol.GameOver):
            pass
    assert no_commit_writer_left(db)
    records = open_records(db)
    try:
        (record,) = read_records(records, unfinished=True)
    finally:
        records.close()
    assert (record.game, record.players, record.status) == ("kings-court", ["a", "b"], "finished")


def test_the_server_s_file_is_reached_through_server_app(tmp_path: Path) -> None:
    with pytest.raises(StorageError):
        open_records(tmp_path / "missing.db")
    (tmp_path / "junk.db").write_text("not a database " * 100)
    with pytest.raises(StorageError):
        prepare_database(tmp_path / "junk.db")
    prepare_database(tmp_path / "new.db")
    first = admin_token(tmp_path / "new.db", "boss")
    assert admin_token(tmp_path / "new.db", "boss") != first  # renewed: the old one is void


class TwoAgents:
    """A launcher offering `alpha` and `beta`, whose programs exit at once."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def entrant(self, game: str, agent: str) -> str:
        self.asked.append(game)
        if agent not in ("alpha", "beta"):
            raise UnknownEntrant(f"no built-in agent {agent!r} for {game} (agents: alpha, beta)")
        return agent

    def command(
        self, tournament: str, server: tuple[str, int], name: str, agent: str, seed: int
    ) -> list[str]:
        return [sys.executable, "-c", "pass"]


async def test_the_server_asks_the_launcher_it_was_given_for_agent_names(tmp_path: Path) -> None:
    db = tmp_path / "cup.db"
    token = admin_token(db, "director")
    launcher = TwoAgents()
    async with (
        local_server(db, local_agents=launcher) as (host, port),
        await ClientConnection.open(host, port, "director", token) as boss,
    ):
        create = protocol.TournamentCreate(name="cup", game="amazons", local=["alpha", "beta"])
        created = await request(boss, create)
        assert created.local == ["local-alpha", "local-beta"]
        with pytest.raises(ServerError, match=r"no built-in agent 'greedy' .*alpha, beta"):
            await request(
                boss,
                protocol.TournamentCreate(name="plate", game="kings-court", local=["greedy"]),
            )
    assert launcher.asked == ["amazons", "amazons", "kings-court"]


async def test_the_arbiter_program_lists_its_agents_and_builds_the_play_command() -> None:
    program = AgentProgram.arbiter()
    assert program.program == CLI
    names = await program.names("war-of-life")
    assert {"random", "greedy", "bloodlust"} <= set(names)
    assert list(names) == list(await LocalEntrants.arbiter().names("war-of-life"))
    command = program.command("cup", ("127.0.0.1", 7777), "greedy-2", "greedy", 3)
    assert command[len(CLI) :] == [
        *("tournament", "play", "cup", "--server", "127.0.0.1:7777"),
        *("--name", "greedy-2", "--agent", "greedy", "--seed", "3", "--reconnect", "0"),
    ]


async def test_a_program_that_cannot_list_agents_is_a_local_agents_error() -> None:
    with pytest.raises(LocalAgentsError, match="cannot run"):
        await AgentProgram(["/nonexistent/arbiter"]).names("amazons")
    with pytest.raises(LocalAgentsError, match="did not list agents"):
        await AgentProgram([sys.executable, "-c", "print('{}')"]).names("amazons")
