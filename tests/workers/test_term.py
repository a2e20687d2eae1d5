"""A term in a test: a roster of thirty imported, pseudonyms asked for, the class's leagues set
(gated by the random and greedy agents), three students uploading hosted agents before the
deadline and the server's ladder playing them beside the bosses, the deadline, an upload
after it refused naming it, the freeze-and-rerun final on the workers (refused before the
deadline, for an unknown class or game, for a class with fewer than two frozen versions), and
the grades CSV checked line by line (each league worked out again from the stored ratings). On
PostgreSQL, a class's store: the storage's own tests run on both backends, and the deployment
guide's term runs on SQLite, so the suite need not pay for this half minute twice.

King's Court with a short no-capture limit keeps the games short; two games per pair."""

from __future__ import annotations

import csv
import io
import json
import math
import stat
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import trio

from arbiter import protocol
from arbiter.server.app import read_tournaments
from arbiter.server.storage.engine import open_database
from tests.sandbox.helpers import need_bwrap
from tests.server.test_roster import admin
from tests.tournament.helpers import arbiter, director, start, text
from tests.workers.conftest import server_with_workers
from tests.workers.hosting import ANY_LEGAL

pytestmark = pytest.mark.parametrize("backend", ["postgres"])

GAME = "kings-court"
SHORT = ("--time", "move=2", "--option", "no_capture_limit=24")
SERVER = (
    *("--worker-slots", "3", "--hello-timeout", "30"),
    *("--ladder", GAME, "--ladder-time", "move=2"),
    *("--ladder-option", "no_capture_limit=24", "--ladder-concurrency", "1"),
)
"""Three finalists each hold a seat for the whole final, and the ladder's one game two more."""
STUDENTS = [(f"pupil{n:02}", f"S{2000 + n}", "AB"[n % 2]) for n in range(30)]
SUBMITTERS = ("pupil00", "pupil01", "pupil02")
LATE = "pupil03"
SECONDS = 300
LEAGUES = {"Bronze": ("random", "D"), "Silver": ("greedy", "C")}
CONFIDENCE = 0.75


def query(
    db: Path | str, sql: str, parameters: tuple[object, ...] = ()
) -> list[tuple[object, ...]]:
    connection = open_database(db)
    try:
        return [tuple(row) for row in connection.execute(sql, parameters).fetchall()]
    finally:
        connection.close()


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        await trio.sleep(0.5)


def refused(done: trio.CompletedProcess[bytes]) -> str:
    assert done.returncode == 1, done.stdout.decode()
    return done.stderr.decode()


async def enrol(db: Path | str, tmp_path: Path) -> dict[str, str]:
    """The roster imported and pseudonyms asked for; each student's token."""
    roster = tmp_path / "cs101.csv"
    lines = ["name,student_id,section", *(",".join(student) for student in STUDENTS)]
    roster.write_text("\n".join(lines) + "\n")
    tokens = tmp_path / "tokens.csv"
    text(await admin(db, "roster", "import", str(roster), "--tokens-out", str(tokens)))
    text(await admin(db, "roster", "deadline", "cs101", "2099-01-01T00:00:00Z"))
    text(await admin(db, "class", "pseudonyms", "cs101", "on"))
    leagues = [f"--league={name}={boss}:{band}" for name, (boss, band) in LEAGUES.items()]
    confidence = ("--confidence", str(CONFIDENCE))
    text(await admin(db, "league", "set", GAME, *leagues, "--class", "cs101", *confidence))
    return {row["name"]: row["token"] for row in csv.DictReader(io.StringIO(tokens.read_text()))}


@pytest.mark.long
async def test_a_term_from_roster_to_grades(db: Path | str, tmp_path: Path) -> None:
    need_bwrap()
    tokens = await enrol(db, tmp_path)
    (tmp_path / "bot.py").write_bytes(ANY_LEGAL)
    with server_with_workers(tmp_path, *SERVER, db=db) as (_, port):
        address = f"127.0.0.1:{port}"

        async def submit(author: str) -> trio.CompletedProcess[bytes]:
            upload = ["submit", GAME, str(tmp_path / "bot.py"), "--server", address]
            return await arbiter(*upload, "--author", author, token=tokens[author])

        for author in SUBMITTERS:
            assert "uploaded; status validating" in text(await submit(author))
        await until(lambda: ready(db) == len(SUBMITTERS), "the versions were not validated")
        early = await admin(db, "class", "final", "cs101", GAME)
        assert "cs101's submissions close at 2099-01-01T00:00:00Z" in refused(early)
        await until(lambda: played(db) >= set(entrants()), "not every version played the ladder")
        ladder = text(await arbiter("ladder", GAME, "--server", address))
        assert not any(author in ladder for author in SUBMITTERS), ladder
        assert ladder.count("student-") == len(SUBMITTERS), ladder

        shown = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        text(await admin(db, "roster", "deadline", "cs101", shown))
        late = await submit(LATE)
        assert late.returncode != 0
        assert f"the class cs101's submissions closed at {shown}" in late.stderr.decode()

        await check_refusals(db, tmp_path)
        made = text(await admin(db, "class", "final", "cs101", GAME, *SHORT))
        assert "final-cs101-kings-court: 3 frozen versions, 6 games" in made
        again = await admin(db, "class", "final", "cs101", GAME)
        assert "has a final of kings-court already" in refused(again)
        async with await director(port, db) as connection:
            await start(connection, "final-cs101-kings-court")
        await until(lambda: final(db).status == "finished", "the final did not finish")

    tournament = final(db)
    assert len(tournament.games) == 6
    assert not any(student in name for name in tournament.entrants for student, *_ in STUDENTS)
    pairs = [(game["first"], game["second"]) for game in tournament.games]
    assert sorted(pairs) == sorted((b, a) for a, b in pairs)  # each pair once with each colour
    assert all(game["defaults"] == [None, None] for game in tournament.games)
    await check_grades(db, tmp_path, tournament)


def ready(db: Path | str) -> int:
    rows = query(db, "SELECT status, validation_log FROM submissions")
    assert all(status != "failed" for status, _ in rows), rows
    return sum(status == "ready" for status, _ in rows)


def entrants() -> list[str]:
    return [f"{author}/bot@v1" for author in SUBMITTERS]


def played(db: Path | str) -> set[object]:
    return {entrant for (entrant,) in query(db, "SELECT entrant FROM ladder_changes")}


def final(db: Path | str) -> protocol.Tournament:
    [tournament] = [t for t in read_tournaments(db) if t.name == "final-cs101-kings-court"]
    return tournament


def final_local(db: Path | str) -> dict[str, str]:
    [(local,)] = query(db, "SELECT local FROM tournaments WHERE name = 'final-cs101-kings-court'")
    found: dict[str, str] = json.loads(str(local))
    return found


async def check_refusals(db: Path | str, tmp_path: Path) -> None:
    unknown = await admin(db, "class", "final", "cs999", GAME)
    assert "no class 'cs999'" in refused(unknown)
    no_game = await admin(db, "class", "final", "cs101", "chess")
    assert "chess" in refused(no_game)
    odd = await admin(db, "class", "final", "cs101", GAME, "--games-per-pair", "3")
    assert "must be even" in refused(odd)
    roster = tmp_path / "cs102.csv"
    roster.write_text("name,student_id,section\nlone,S1,A\n")
    tokens = tmp_path / "cs102-tokens.csv"
    text(await admin(db, "roster", "import", str(roster), "--tokens-out", str(tokens)))
    text(await admin(db, "roster", "deadline", "cs102", "2000-01-01T00:00:00Z"))
    few = await admin(db, "class", "final", "cs102", GAME)
    assert "has 0 frozen version(s) of kings-court: a final needs two or more" in refused(few)


async def check_grades(db: Path | str, tmp_path: Path, tournament: protocol.Tournament) -> None:
    out = tmp_path / "grades.csv"
    text(await admin(db, "class", "grades", "cs101", "--out", str(out)))
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "exists" in refused(await admin(db, "class", "grades", "cs101", "--out", str(out)))
    rows = list(csv.reader(io.StringIO(out.read_text())))
    assert rows[0] == [
        "student_id",
        "name",
        "section",
        "frozen_version",
        "ladder_rating",
        "league",
        "grade_band",
        "final_rank",
        "final_score",
        "games",
    ]
    ratings = {
        str(entrant): float(str(mu)) - 3 * float(str(sigma))
        for entrant, mu, sigma in query(db, "SELECT entrant, mu, sigma FROM ladder_ratings")
    }
    standings = {line["player"]: (rank, line) for rank, line in enumerate(tournament.standings, 1)}
    by_version = {version: seat for seat, version in final_local(db).items()}
    expected_order = sorted(STUDENTS, key=lambda s: (s[2], s[0]))
    assert [row[:3] for row in rows[1:]] == [
        [sid, name, section] for name, sid, section in expected_order
    ]
    for row in rows[1:]:
        name = row[1]
        if name not in SUBMITTERS:
            assert row[3:] == [""] * 7, row
            continue
        version = f"{name}/bot@v1"
        rank, line = standings[by_version[version]]
        league = "Silver" if above(db, version, "boss:greedy") else "Bronze"
        assert row[3:] == [
            version,
            f"{ratings[version]:.2f}",
            league,
            LEAGUES[league][1],
            str(rank),
            f"{line['points']:g}",
            str(line["games"]),
        ], row
        assert line["games"] == 4


def above(db: Path | str, entrant: str, boss: str) -> bool:
    """Whether `entrant`'s stored skill is above `boss`'s with the leagues' confidence: the
    normal probability that one skill exceeds the other (a boss not rated yet at the prior)."""
    skills = {
        str(name): (float(str(mu)), float(str(sigma)))
        for name, mu, sigma in query(db, "SELECT entrant, mu, sigma FROM ladder_ratings")
    }
    (mu, sigma), (boss_mu, boss_sigma) = skills[entrant], skills.get(boss, (25.0, 25.0 / 3))
    z = (mu - boss_mu) / math.hypot(sigma, boss_sigma)
    return 0.5 * (1 + math.erf(z / math.sqrt(2))) >= CONFIDENCE
