"""A class's tournament with nobody online: thirty students each upload an agent with
`arbiter submit` (Python agent-object and Player modules, Node programs with the example's
node_modules copied in, C programs built from examples/c-client), every version is validated in
the sandbox, and one tournament of all thirty runs on `arbiter-server --workers 2` alone. The
standings it reports are checked against the games the store kept.

The format is what large fields play, a Swiss (`ROUNDS` rounds of fifteen games), of King's
Court made short (`SHORT`), so the whole class fits in the suite on two cores: every entrant is
seated for every round, and each round is paired from the results before it."""

from __future__ import annotations

import shutil
import time
from collections import Counter
from pathlib import Path

import pytest
import trio

from arbiter.server.app import read_tournaments
from arbiter.server.storage.engine import open_database
from tests.processes import ROOT
from tests.sandbox.helpers import need_bwrap
from tests.tournament.helpers import arbiter, create, director, register, start, text
from tests.workers.conftest import server_with_workers
from tests.workers.hosting import ANY_LEGAL

PLAYER_MODULE = b"""
import random

from arbiter.games import get_game

GAME = get_game("kings-court")


class Player:
    def __init__(self, colour):
        self.state = GAME.new_game()
        self.rng = random.Random()

    def action(self, turns):
        move = self.rng.choice(self.state.legal_moves())
        self.state = self.state.play(move)
        return GAME.format_move(move)

    def update(self, action):
        self.state = self.state.play(GAME.parse_move(action))
"""
PER_LANGUAGE = 10
SHORT = {"no_capture_limit": 4}
"""Random play's games end after a dozen moves on average, past the opening (whose four moves
capture nothing) into the jumps, and about one in nine is won outright: enough wins that the
standings differ from entrant to entrant, in half the moves of the tests' usual `QUICK`."""
UPLOADS_AT_ONCE = 10
"""A class uploads near the deadline: a third of it at once, each upload a process of its own."""
ROUNDS = 2
"""The second round is paired from the first's results: what a Swiss does that a round robin
does not, shown with the fewest games."""
SLOTS = 16
"""Slots per worker: every entrant holds one for the whole tournament, two workers hold all."""


def entries(tmp_path: Path, node_client: Path) -> list[tuple[str, Path, list[str]]]:
    """(author, path, `arbiter submit` flags) for each student: a third of them each language."""
    made: list[tuple[str, Path, list[str]]] = []
    for number in range(PER_LANGUAGE):
        form = "module" if number % 2 else "player"
        source = ANY_LEGAL if form == "module" else PLAYER_MODULE
        path = tmp_path / f"py{number}" / "bot.py"
        path.parent.mkdir()
        path.write_bytes(source)
        made.append((f"py{number}", path, ["--form", form]))
    for number in range(PER_LANGUAGE):
        folder = tmp_path / f"node{number}" / "bot"
        shutil.copytree(node_client, folder, ignore=shutil.ignore_patterns("package-lock.json"))
        made.append((f"node{number}", folder, ["--run", "node client.js"]))
    client_c = (ROOT / "examples" / "c-client" / "client.c").read_bytes()
    for number in range(PER_LANGUAGE):
        folder = tmp_path / f"c{number}" / "bot"
        folder.mkdir(parents=True)
        (folder / "client.c").write_bytes(client_c)
        made.append((f"c{number}", folder, []))
    return made


def statuses(db: Path) -> Counter[str]:
    connection = open_database(db)
    try:
        rows = connection.execute("SELECT status FROM submissions").fetchall()
        return Counter(status for (status,) in rows)
    finally:
        connection.close()


def stored_points(db: Path, tournament: str) -> tuple[dict[str, float], set[str]]:
    """Each entrant's points summed from the stored matches of `tournament`'s games, and the
    clocks its seats were judged on."""
    connection = open_database(db)
    try:
        rows = connection.execute(
            "SELECT players.name, results.score, results.clock FROM tournament_games"
            " JOIN tournaments ON tournaments.id = tournament_games.tournament_id"
            " JOIN results ON results.match_id = tournament_games.match_id"
            " JOIN players ON players.id = results.player_id WHERE tournaments.name = ?",
            (tournament,),
        ).fetchall()
    finally:
        connection.close()
    points: dict[str, float] = {}
    for name, score, _ in rows:
        points[name] = points.get(name, 0.0) + score
    return points, {clock for _, _, clock in rows}


@pytest.mark.long
async def test_thirty_submissions_in_three_languages_play_a_tournament_with_nobody_online(
    tmp_path: Path, node_client: Path
) -> None:
    need_bwrap()
    students = entries(tmp_path, node_client)
    with server_with_workers(tmp_path, "--worker-slots", str(SLOTS)) as (_, port):
        db = tmp_path / "arbiter.db"
        tokens = register(db, *(author for author, _, _ in students))
        limiter = trio.CapacityLimiter(UPLOADS_AT_ONCE)

        async def submit(author: str, path: Path, flags: list[str]) -> None:
            async with limiter:
                server = ["--server", f"127.0.0.1:{port}", "--author", author]
                done = await arbiter(
                    "submit", "kings-court", str(path), *server, *flags, token=tokens[author]
                )
                assert "uploaded; status validating" in text(done), done

        async with trio.open_nursery() as nursery:
            for student in students:
                nursery.start_soon(submit, *student)
        deadline = time.monotonic() + 240
        while (found := statuses(db))["validating"]:
            assert time.monotonic() < deadline, found
            await trio.sleep(0.2)
        assert found == {"ready": len(students)}, found

        specs = [f"{author}/bot" for author, _, _ in students]
        async with await director(port, db) as connection:
            await create(
                connection,
                time={"move": 2.0},
                local=specs,
                options=SHORT,
                concurrency=15,
                format="swiss",
                rounds=ROUNDS,
            )
            await start(connection)
        deadline = time.monotonic() + 400  # the director is gone: nobody is online
        while (tournament := read_tournaments(db)[0]).status != "finished":
            assert time.monotonic() < deadline, Counter(g["status"] for g in tournament.games)
            await trio.sleep(0.5)

    assert len(tournament.games) == ROUNDS * len(students) // 2
    pairs = [frozenset((game["first"], game["second"])) for game in tournament.games]
    assert len(set(pairs)) == len(pairs)  # no rematch: a field of thirty never needs one
    assert all(game["defaults"] == [None, None] for game in tournament.games)
    points, clocks = stored_points(db, "cup")
    assert clocks == {"cpu"}
    table = {row["player"]: row["points"] for row in tournament.standings}
    assert table == points
    assert {row["games"] for row in tournament.standings} == {ROUNDS}
    authors = [name.removeprefix("local-").split(".")[0] for name in table]
    languages = Counter(author.rstrip("0123456789") for author in authors)
    assert languages == {"py": PER_LANGUAGE, "node": PER_LANGUAGE, "c": PER_LANGUAGE}
