"""`arbiter-server admin league set/list` as an instructor runs them, on both backends: a set
stored lowest first, replaced whole, one per class; every bad set refused with its sentence and
the store unchanged; each version's league in the `ladder` request's table and in what the
grades export reads."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from arbiter.server.storage import leagues
from arbiter.server.storage.connect import connect_storage
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.leagues import League, LeagueSet
from arbiter.server.tournaments.ladder_view import read_placements
from arbiter.server.tournaments.leagues import Placement
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.server.test_ladder_request import ask, store_games
from tests.server.test_roster import admin, roster_text
from tests.tournament.helpers import register, text

pytestmark = BOTH_BACKENDS

THREE = (
    "--league",
    "Bronze=random:D",
    "--league",
    "Silver=greedy:C",
    "--league",
    "Gold=alphabeta:B",
)


def stored(db: Path | str) -> leagues.StoredLeagues:
    with closing(open_database(db)) as connection:
        return leagues.load(connection, "kings-court")


async def test_leagues_are_set_listed_replaced_and_kept_per_class(
    db: Path | str, tmp_path: Path
) -> None:
    register(db, "ann")
    done = await admin(db, "league", "set", "kings-court", *THREE, "--confidence", "0.9")
    assert text(done) == "the leagues of kings-court for everyone: Bronze < Silver < Gold\n"
    everyone = LeagueSet(
        "kings-court",
        "",
        (
            League("Bronze", "random", "D"),
            League("Silver", "greedy", "C"),
            League("Gold", "alphabeta", "B"),
        ),
        0.9,
    )
    assert stored(db).sets == {"": everyone}
    assert stored(db).bosses == ["random", "greedy", "alphabeta"]

    (tmp_path / "cs101.csv").write_text(roster_text([("bob", "S1", "A")]))
    tokens = tmp_path / "tokens.csv"
    text(
        await admin(
            db, "roster", "import", str(tmp_path / "cs101.csv"), "--tokens-out", str(tokens)
        )
    )
    two = ("--league", "Low=random:F", "--league", "High=mcts:A")
    done = await admin(db, "league", "set", "kings-court", *two, "--class", "cs101")
    assert text(done) == "the leagues of kings-court for the class cs101: Low < High\n"
    both = stored(db)
    assert both.sets[""] == everyone
    assert both.sets["cs101"].leagues == (League("Low", "random", "F"), League("High", "mcts", "A"))
    assert both.sets["cs101"].confidence == 0.95
    assert both.classes == {"bob": "cs101"}
    assert both.of("bob") == both.sets["cs101"]
    assert both.of("ann") == everyone

    listed = text(await admin(db, "league", "list", "kings-court")).splitlines()
    assert listed[0].split("\t") == ["class", "league", "boss", "band", "confidence"]
    assert sorted(listed[1:]) == sorted(
        [
            "-\tBronze\trandom\tD\t0.9",
            "-\tSilver\tgreedy\tC\t0.9",
            "-\tGold\talphabeta\tB\t0.9",
            "cs101\tLow\trandom\tF\t0.95",
            "cs101\tHigh\tmcts\tA\t0.95",
        ]
    )

    text(await admin(db, "league", "set", "kings-court", "--league", "Only=greedy:P"))
    assert stored(db).sets[""].leagues == (League("Only", "greedy", "P"),)
    assert stored(db).sets["cs101"] == both.sets["cs101"]


BAD_SET = (
    *("--league", "Bronze=greedy:D", "--league", "Silver=random:C"),
    *("--league", "Silver=grandmaster:B", "--confidence", "1.5"),
)
"""Every refusal at once: each is named in the one sentence (the pure tests take them apart)."""
REASONS = (
    "the leagues of kings-court are refused: ",
    "the confidence must be between 0.5 and 1 (not included), not 1.5",
    "the league 'Silver' is named twice",
    "Silver's boss 'grandmaster' has no stated strength in kings-court",
    "Silver's boss 'random' is not stronger than Bronze's 'greedy'",
)


async def test_a_bad_set_is_refused_with_every_reason_and_changes_nothing(
    db: Path | str,
) -> None:
    register(db, "ann")
    text(await admin(db, "league", "set", "kings-court", *THREE))
    before = stored(db)
    refusals = {
        BAD_SET: REASONS,
        (*THREE, "--class", "cs999"): ("no class 'cs999' (no class is enrolled yet)",),
        ("--league", "Bronze-random-D"): ("write NAME=BOSS:BAND",),
    }
    for flags, reasons in refusals.items():
        done = await admin(db, "league", "set", "kings-court", *flags)
        assert done.returncode == 1, flags
        assert all(reason in done.stderr.decode() for reason in reasons), done.stderr.decode()
        assert done.stdout == b""
        assert stored(db) == before


LOW_HIGH = LeagueSet(
    "kings-court", "", (League("Low", "random", "F"), League("High", "greedy", "A")), 0.55
)
"""Bosses that have not played hold the first guess (25, 8.33): at 0.55, only a version rated
well above 25 passes them."""


async def test_the_ladder_table_shows_each_versions_league_over_tcp(server: RunningServer) -> None:
    store_games(server.db)
    with closing(open_database(server.db)) as connection:
        leagues.store(connection, LOW_HIGH)
    answer = await ask(server, "kings-court")
    assert {entry["entrant"]: entry["league"] for entry in answer.entries} == {
        "ann/a@v1": "High",
        "bob/b@v1": "Low",
        "cat/c@v1": "Low",
        "boss:random": None,
        "boss:greedy": None,
    }
    bosses = [entry for entry in answer.entries if entry["entrant"].startswith("boss:")]
    assert all(entry["active"] and entry["games"] == 0 for entry in bosses)


async def test_the_grades_export_reads_each_versions_league_and_band(db: Path | str) -> None:
    store_games(db)
    with closing(open_database(db)) as connection:
        leagues.store(connection, LOW_HIGH)
    storage = connect_storage(db)
    try:
        found = await read_placements(storage, "kings-court")
    finally:
        storage.close()
    assert found == {
        "ann/a@v1": Placement("High", "A"),
        "bob/b@v1": Placement("Low", "F"),
        "cat/c@v1": Placement("Low", "F"),
    }
