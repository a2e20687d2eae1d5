"""`arbiter-server admin class`: a class's final by freeze-and-rerun, its public pseudonyms, and
its grades CSV (docs/class.md).

The final is an ordinary server tournament, written to the store beside the running server and
started like any other (`arbiter tournament start`), so its games are recorded, exported and
replayed as every match is; each entrant is a student's frozen version, hosted on the workers,
every pair playing `--games-per-pair` games with colours swapped and one random start per pair
and round (`tournament.pair_seed`). The grades go to a new owner-only file, never over another:
they hold the real names the public pages may hide.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from typing import Any

from arbiter.server.admin_terms import game_terms
from arbiter.server.play.hosted_submissions import pinned, seat_base
from arbiter.server.storage import finals, ladder_rows, tournament_rows
from arbiter.server.storage import leagues as stored_leagues
from arbiter.server.storage.finals import FinalRefused, Frozen
from arbiter.server.storage.interface import TournamentRow
from arbiter.server.storage.sql_connection import Connection
from arbiter.server.storage.statuses import TournamentStatus
from arbiter.server.tournaments.formats import round_robin
from arbiter.server.tournaments.ladder_ratings import Skill
from arbiter.server.tournaments.leagues import placements
from arbiter.server.tournaments.standings import Standing, standings
from arbiter.server.tournaments.tournament import Tournament, local_names

GRADES_HEADER = (
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
)
"""`league` and `grade_band` are the version's league on the game's ladder and the band the
instructor gave it (`admin league set`), empty where the game has no leagues."""
DEFAULT_CONCURRENCY = 4
WAIT_SECONDS = 60.0
"""How long a due game waits for its hosted seats: a worker starting a sandboxed agent."""


def add_class_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """`class final`, `class pseudonyms` and `class grades`, under `arbiter-server admin`."""
    group = commands.add_parser("class", help="a class's final, public pseudonyms and grades")
    verbs = group.add_subparsers(required=True, metavar="COMMAND")
    final = verbs.add_parser(
        "final", help="after the deadline: a tournament of each student's frozen version"
    )
    final.add_argument("class_name", metavar="CLASS")
    final.add_argument("game", metavar="GAME")
    final.add_argument("--games-per-pair", type=int, default=2, metavar="N", help="even; 2")
    final.add_argument("--time", help="the time control (default: the game's)")
    final.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a game option"
    )
    final.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    final.set_defaults(run=create_final)
    pseudonyms = verbs.add_parser(
        "pseudonyms", help="show the class's students under pseudonyms on public pages, or not"
    )
    pseudonyms.add_argument("class_name", metavar="CLASS")
    pseudonyms.add_argument("setting", choices=("on", "off"))
    pseudonyms.set_defaults(run=set_pseudonyms)
    grades = verbs.add_parser("grades", help="the grades CSV: real names, frozen versions, ranks")
    grades.add_argument("class_name", metavar="CLASS")
    grades.add_argument("--game", help="the final's game (needed if the class has several)")
    grades.add_argument("--out", required=True, metavar="FILE", help="a new file (owner-only)")
    grades.set_defaults(run=write_grades)


def final_name(class_name: str, game: str) -> str:
    """The final's tournament: one per class and game."""
    return f"final-{class_name}-{game}"


def create_final(db: Connection, args: argparse.Namespace) -> None:
    terms = game_terms(args.game, args.option, args.time)
    game, control = terms.game, terms.control
    _check_games_per_pair(args.games_per_pair)
    if args.concurrency < 1:
        raise FinalRefused(f"--concurrency must be at least 1, not {args.concurrency}")
    frozen = finals.frozen_versions(db, args.class_name, game.name, time.time())
    playing = [one for one in frozen if one.version is not None]
    if len(playing) < 2:
        raise FinalRefused(
            f"the class {args.class_name} has {len(playing)} frozen version(s) of {game.name}:"
            " a final needs two or more"
        )
    local = local_names([_entrant(db, one) for one in playing], [])
    name = final_name(args.class_name, game.name)
    row = TournamentRow(
        name=name,
        game=game.name,
        options=terms.options,
        time_control=control.to_wire(),
        rounds=args.games_per_pair // 2,
        concurrency=args.concurrency,
        wait=WAIT_SECONDS,
        entrants=list(local),
        local=local,
        status=TournamentStatus.CREATED,
        created_by=f"class {args.class_name}",
    )
    games = round_robin(row.entrants, row.rounds)
    if tournament_rows.insert_tournament(db, row, games) is None:
        raise FinalRefused(f"the class {args.class_name} has a final of {game.name} already")
    finals.record_final(db, args.class_name, game.name, name)
    print(
        f"the final {name}: {len(playing)} frozen versions, {len(games)} games;"
        f" start it with: arbiter tournament start {name}"
    )


def _entrant(db: Connection, frozen: Frozen) -> tuple[str, str]:
    """The seat name (the pseudonym's, if the class asked for them) and the pinned version."""
    assert frozen.version is not None
    shown = finals.pseudonym_of(db, frozen.student.account)
    base = seat_base(frozen.version) if shown is None else f"{shown}.v{frozen.version.version}"
    return base, pinned(frozen.version)


def _check_games_per_pair(games: int) -> None:
    if games < 2 or games % 2:
        raise FinalRefused(
            f"--games-per-pair must be even and at least 2 (each colour as often), not {games}"
        )


def set_pseudonyms(db: Connection, args: argparse.Namespace) -> None:
    finals.set_pseudonyms(db, args.class_name, args.setting == "on")
    shown = "pseudonyms" if args.setting == "on" else "their names"
    print(f"the class {args.class_name}'s public standings show {shown}")


def write_grades(db: Connection, args: argparse.Namespace) -> None:
    found = finals.final_of(db, args.class_name, args.game)
    if found is None:
        raise FinalRefused(f"the class {args.class_name} has no final yet (admin class final)")
    game, tournament_name = found
    lines = grades(db, args.class_name, game, tournament_name)
    try:
        descriptor = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise FinalRefused(f"{args.out!r} exists: the grades go to a new file") from None
    except OSError as error:
        raise FinalRefused(f"cannot make {args.out!r}: {error.strerror}") from None
    with open(descriptor, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(GRADES_HEADER)
        writer.writerows(lines)
    print(f"{len(lines)} students' grades are in {args.out}")


def grades(db: Connection, class_name: str, game: str, tournament_name: str) -> list[list[str]]:
    """One line per student, in roster order: a student without a frozen version (or whose
    version has no rating or final result) has those cells empty."""
    frozen = finals.frozen_versions(db, class_name, game, time.time())
    ratings = {rating.entrant: rating for rating in ladder_rows.load(db, game).ratings}
    skills = {entrant: Skill(rating.mu, rating.sigma) for entrant, rating in ratings.items()}
    placed = placements(skills, stored_leagues.load(db, game))
    stored = next(t for t in tournament_rows.load_tournaments(db) if t.row.name == tournament_name)
    final = Tournament(stored.row, stored.games)
    by_version = {version: seat for seat, version in stored.row.local.items()}
    table = standings(stored.row.entrants, final.results())
    places = {line.player: (rank, line) for rank, line in enumerate(table, 1)}
    lines: list[list[str]] = []
    for one in frozen:
        student = one.student
        cells = [student.student_id, student.account, student.section]
        if one.version is None:
            lines.append([*cells, *[""] * (len(GRADES_HEADER) - len(cells))])
            continue
        version = pinned(one.version)
        rating = ratings.get(version)
        shown = "" if rating is None else f"{rating.mu - 3 * rating.sigma:.2f}"
        place = places.get(by_version.get(version, ""))
        ranked = ["", "", ""] if place is None else _ranked(*place)
        placement = placed.get(version)
        league = ["", ""] if placement is None else [placement.league, placement.band]
        lines.append([*cells, version, shown, *league, *ranked])
    return lines


def _ranked(rank: int, line: Standing) -> list[str]:
    return [str(rank), f"{line.points:g}", str(line.games)]
