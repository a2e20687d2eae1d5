"""A class: `arbiter-server admin roster import/list/deadline` as an instructor runs them, on both
backends; a bad roster refused whole with its line numbers, the store unchanged; the tokens
file owner-only and its tokens good for signing in; uploads refused after the deadline over
real TCP."""

from __future__ import annotations

import csv
import io
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from arbiter.server import __main__ as server_command
from arbiter.server.storage import accounts, classes
from arbiter.server.storage.engine import open_database
from arbiter.server.storage.roster import COLUMNS, RosterRefused, Student, read_roster
from arbiter.server.storage.sql_connection import Connection
from tests.conftest import BOTH_BACKENDS, RunningServer
from tests.processes import in_process
from tests.tournament.helpers import arbiter, register, text

ADMIN = [sys.executable, "-m", "arbiter.server", "admin"]
PLAYER_MODULE = b"class Player:\n    def __init__(self, colour):\n        pass\n"


def roster_text(rows: list[tuple[str, str, str]], header: str = "name,student_id,section") -> str:
    lines = [header, *(",".join(row) for row in rows)]
    return "\n".join(lines) + "\n"


def thirty() -> list[tuple[str, str, str]]:
    return [(f"student{n:02}", f"S{1000 + n}", "ABC"[n % 3]) for n in range(30)]


async def admin(db: Path | str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`arbiter-server admin` as an instructor runs it (in this process: `in_process`)."""
    argv = ["--db", str(db), *args]
    return await in_process(server_command.admin, argv, [*ADMIN, *argv])


@pytest.fixture
def store(db: Path | str) -> Iterator[Connection]:
    with closing(open_database(db)) as connection:
        yield connection


def snapshot(db: Connection) -> tuple[list[object], list[object], list[object]]:
    """Everything a roster import writes."""
    return (
        db.execute("SELECT name, role, token_hash FROM accounts ORDER BY name").fetchall(),
        db.execute("SELECT * FROM students ORDER BY account").fetchall(),
        db.execute("SELECT name, deadline FROM classes ORDER BY name").fetchall(),
    )


@BOTH_BACKENDS
async def test_a_roster_of_30_imports_with_owner_only_tokens_that_work(
    db: Path | str, store: Connection, tmp_path: Path
) -> None:
    (tmp_path / "cs101.csv").write_text(roster_text(thirty()))
    tokens = tmp_path / "tokens.csv"
    done = await admin(
        db, "roster", "import", str(tmp_path / "cs101.csv"), "--tokens-out", str(tokens)
    )
    assert done.stdout.decode() == f"30 students enrolled in cs101; their tokens are in {tokens}\n"
    assert done.returncode == 0, done.stderr.decode()
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    issued = list(csv.reader(io.StringIO(tokens.read_text())))
    assert issued[0] == ["name", "student_id", "section", "token"]
    assert [tuple(row[:3]) for row in issued[1:]] == thirty()
    for name, _, _, token in issued[1:]:
        assert token not in done.stdout.decode() + done.stderr.decode()
        assert accounts.check_token(accounts.credentials(store, name), token) == accounts.Account(
            name, "player"
        )

    listed = await admin(db, "roster", "list", "--class", "cs101", "--section", "B")
    lines = text(listed).splitlines()
    assert lines[0].split("\t") == ["class", *COLUMNS]
    assert [line.split("\t") for line in lines[1:]] == [
        ["cs101", name, student_id, "B"] for name, student_id, section in thirty() if section == "B"
    ]
    assert all(row[3] not in text(listed) for row in issued[1:])


BAD_ROSTERS = {
    "missing column": (
        "name,section\nann,A\n",
        ["line 1: no column 'student_id'"],
    ),
    "unknown column": (
        "name,student_id,section,email\nann,S1,A,ann@example.org\n",
        ["line 1: unknown column 'email': the columns are name, student_id, section"],
    ),
    "empty field": (
        "name,student_id,section\nann,S1,A\nbob,,B\n",
        ["line 3: no student_id"],
    ),
    "duplicates": (
        "student_id,name,section\nS1,ann,A\nS2,ann,A\nS1,cat,B\n",
        [
            "line 3: the name 'ann' is on line 2 already",
            "line 4: student id 'S1' is on line 2 already",
        ],
    ),
    "lookalikes": (
        "name,student_id,section\nann,S1,A\nAnn,S2,A\nN0rth,S3,A\nnorth,S4,B\n",
        [
            "line 3: 'Ann' is too like 'ann' on line 2",
            "line 4: 'N0rth' is too like the registered name 'north'",
            "line 5: 'north' is registered already",
            "line 5: 'north' is too like 'N0rth' on line 4",
        ],
    ),
    "not a player name": (
        "name,student_id,section\nann lee,S1,A\n-bob,S2,A\n",
        [
            "line 2: 'ann lee' cannot be an account name: use 1 to 64 letters, digits, '_', '.'"
            " or '-', starting with a letter or digit",
            "line 3: '-bob' cannot be an account name: use 1 to 64 letters, digits, '_', '.'"
            " or '-', starting with a letter or digit",
        ],
    ),
}


@BOTH_BACKENDS
@pytest.mark.parametrize("kind", BAD_ROSTERS)
def test_a_bad_roster_is_refused_whole_with_every_line_and_the_store_unchanged(
    store: Connection, kind: str
) -> None:
    accounts.create(store, "north")
    good = roster_text(thirty()[:3])
    classes.enrol(store, "cs101", good, lambda issued: None)
    before = snapshot(store)
    roster, problems = BAD_ROSTERS[kind]
    kept: list[object] = []
    with pytest.raises(RosterRefused) as refused:
        classes.enrol(store, "cs101", roster, kept.append)
    assert refused.value.problems == problems
    assert snapshot(store) == before
    assert kept == [], "no tokens handed out"


@BOTH_BACKENDS
async def test_the_command_lists_every_problem_and_leaves_no_tokens_file(
    db: Path | str, store: Connection, tmp_path: Path
) -> None:
    register(db, "north")
    before = snapshot(store)
    roster = tmp_path / "cs101.csv"
    roster.write_text(roster_text([("ann", "S1", "A"), ("N0rth", "S2", "A"), ("bob", "S1", "")]))
    tokens = tmp_path / "tokens.csv"
    done = await admin(db, "roster", "import", str(roster), "--tokens-out", str(tokens))
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "arbiter-server admin: the roster is refused and nothing is stored:\n"
        "line 3: 'N0rth' is too like the registered name 'north'\n"
        "line 4: no section\n"
    )
    assert not tokens.exists()
    assert snapshot(store) == before

    tokens.write_text("the instructor's own file\n")
    roster.write_text(roster_text([("ann", "S1", "A")]))
    done = await admin(db, "roster", "import", str(roster), "--tokens-out", str(tokens))
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"arbiter-server admin: {str(tokens)!r} exists: the tokens go to a new file, never over"
        " another\n"
    )
    assert tokens.read_text() == "the instructor's own file\n"
    assert snapshot(store) == before


ROWS = st.lists(
    st.tuples(
        st.from_regex(r"[a-z][a-z0-9]{2,8}", fullmatch=True),
        st.from_regex(r"[0-9]{6}", fullmatch=True),
        st.sampled_from(["A", "B", "lab 3"]),
    ),
    min_size=1,
    max_size=8,
    unique_by=(lambda row: accounts.name_key(row[0]), lambda row: row[1]),
)


@given(rows=ROWS, order=st.permutations(range(3)), spaced=st.booleans())
def test_any_order_of_the_columns_reads_the_same_students(
    rows: list[tuple[str, str, str]], order: list[int], spaced: bool
) -> None:
    header = ",".join((" " if spaced else "") + COLUMNS[index].upper() for index in order)
    permuted = [tuple(row[index] for index in order) for row in rows]
    students = read_roster(roster_text(permuted, header), registered=[])  # type: ignore[arg-type]
    assert [(s.name, s.student_id, s.section) for s in students] == rows
    assert [s.line for s in students] == list(range(2, len(rows) + 2))


def test_lines_count_the_file_s_lines_blank_and_quoted_ones_too() -> None:
    text = 'name,student_id,section\n\nann,S1,"lab\n3"\nbob,S2,A\n'
    assert read_roster(text, registered=[]) == [
        Student("ann", "S1", "lab\n3", 4),
        Student("bob", "S2", "A", 5),
    ]
    with pytest.raises(RosterRefused) as refused:
        read_roster("name,student_id,section\n\n", registered=[])
    assert refused.value.problems == [
        "the roster has no students: one row per student follows the header"
    ]


async def submit(
    server: RunningServer, folder: Path, author: str, token: str
) -> trio.CompletedProcess[bytes]:
    address = f"{server.host}:{server.port}"
    return await arbiter(
        "submit", "kings-court", str(folder), "--server", address, "--author", author, token=token
    )


def agent(tmp_path: Path, version: int) -> Path:
    folder = tmp_path / "my-agent"
    folder.mkdir(exist_ok=True)
    (folder / "agent.py").write_bytes(PLAYER_MODULE + b"#" * version + b"\n")
    return folder


@BOTH_BACKENDS
async def test_after_the_deadline_a_student_s_upload_is_refused_naming_it(
    server: RunningServer, tmp_path: Path
) -> None:
    roster = tmp_path / "cs101.csv"
    roster.write_text(roster_text([("ann", "S1", "A"), ("bob", "S2", "B")]))
    tokens = tmp_path / "tokens.csv"
    text(await admin(server.db, "roster", "import", str(roster), "--tokens-out", str(tokens)))
    token = {row[0]: row[3] for row in csv.reader(io.StringIO(tokens.read_text()))}["ann"]
    outsider = register(server.db, "zoe")["zoe"]

    text(await submit(server, agent(tmp_path, 1), "ann", token))
    later = datetime.now(UTC) + timedelta(hours=1)
    text(await admin(server.db, "roster", "deadline", "cs101", later.isoformat()))
    text(await submit(server, agent(tmp_path, 2), "ann", token))

    closed = (datetime.now(UTC) - timedelta(seconds=1)).replace(microsecond=0)
    shown = closed.isoformat().replace("+00:00", "Z")
    set_it = await admin(server.db, "roster", "deadline", "cs101", shown)
    assert text(set_it) == f"the class cs101's submissions close at {shown}\n"
    done = await submit(server, agent(tmp_path, 3), "ann", token)
    assert done.returncode == 1
    assert done.stderr.decode().splitlines()[-1] == (
        f"arbiter: bad_submission: the class cs101's submissions closed at {shown}"
    )
    address = ["--server", f"{server.host}:{server.port}", "--author", "ann"]
    listing = text(await arbiter("submissions", *address, token=token)).splitlines()
    assert [row.split()[:2] for row in listing[1:]] == [["my-agent", "v1"], ["my-agent", "v2"]]
    assert "validating" in listing[1] or "ready" in listing[1]

    text(await submit(server, agent(tmp_path, 3), "zoe", outsider))


async def test_a_deadline_needs_a_timezone_and_a_class(db: Path | str, tmp_path: Path) -> None:
    roster = tmp_path / "cs101.csv"
    roster.write_text(roster_text([("ann", "S1", "A")]))
    text(await admin(db, "roster", "import", str(roster), "--tokens-out", str(tmp_path / "t")))
    done = await admin(db, "roster", "deadline", "cs101", "2026-12-01T17:00:00")
    assert done.returncode == 2
    assert "'2026-12-01T17:00:00' has no timezone: add one, such as Z (UTC) or +01:00" in (
        done.stderr.decode()
    )
    done = await admin(db, "roster", "deadline", "cs101", "next friday")
    assert "'next friday' is not an ISO 8601 time" in done.stderr.decode()
    done = await admin(db, "roster", "deadline", "cs102", "2026-12-01T17:00:00+01:00")
    assert done.returncode == 1
    assert done.stderr.decode() == "arbiter-server admin: no class 'cs102' (classes: cs101)\n"


@BOTH_BACKENDS
def test_a_removed_account_leaves_its_class(store: Connection) -> None:
    classes.enrol(store, "cs101", roster_text(thirty()[:2]), lambda issued: None)
    accounts.remove(store, "student00")
    assert [student.account for student in classes.listing(store, "cs101")] == ["student01"]
