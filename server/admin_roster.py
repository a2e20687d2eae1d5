"""`arbiter-server admin roster`: a class's roster imported from CSV, its students listed, and
its submission deadline set (docs/class.md).

The new accounts' tokens go to one file the instructor names, created owner-only and never over
an existing file, and nowhere else: not stdout, not a log, which a terminal's scrollback or a
job's output would keep. The file is made before the store is touched and removed if the roster
is refused, so a refusal leaves nothing behind either.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from arbiter.server.storage import classes
from arbiter.server.storage.accounts import AccountError
from arbiter.server.storage.classes import Issued
from arbiter.server.storage.roster import COLUMNS
from arbiter.server.storage.sql_connection import Connection

TOKENS_HEADER = (*COLUMNS, "token")


def add_roster_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """`roster import`, `roster list` and `roster deadline`, under `arbiter-server admin`."""
    roster = commands.add_parser(
        "roster", help="a class: its roster of students, their sections, its deadline"
    )
    verbs = roster.add_subparsers(required=True, metavar="COMMAND")
    importing = verbs.add_parser(
        "import", help="make an account for each student of a CSV roster (name,student_id,section)"
    )
    importing.add_argument("file", help="the roster: a CSV file with a header row")
    importing.add_argument(
        "--class", dest="class_name", help="the class (default: the file's name without .csv)"
    )
    importing.add_argument(
        "--tokens-out",
        required=True,
        metavar="FILE",
        help="a new file (owner-only) for the students' tokens: name,student_id,section,token",
    )
    importing.set_defaults(run=import_roster, makes=True)
    listing = verbs.add_parser("list", help="the students of a class (no tokens)")
    listing.add_argument("--class", dest="class_name", help="one class (default: every class)")
    listing.add_argument("--section", help="one section")
    listing.set_defaults(run=list_students)
    deadline = verbs.add_parser(
        "deadline", help="the time after which the class's students upload no new version"
    )
    deadline.add_argument("class_name", metavar="CLASS")
    deadline.add_argument(
        "when", type=_deadline, metavar="WHEN", help="ISO 8601 with a timezone: 2026-12-01T17:00Z"
    )
    deadline.set_defaults(run=set_deadline)


def import_roster(db: Connection, args: argparse.Namespace) -> None:
    text = _read_roster(Path(args.file))
    class_name = args.class_name or Path(args.file).stem
    with _new_private_file(Path(args.tokens_out)) as out:
        issued = classes.enrol(db, class_name, text, partial(_write_tokens, out))
    print(f"{len(issued)} students enrolled in {class_name}; their tokens are in {args.tokens_out}")


def list_students(db: Connection, args: argparse.Namespace) -> None:
    print("\t".join(("class", *COLUMNS)))
    for student in classes.listing(db, args.class_name, args.section):
        fields = (student.class_name, student.account, student.student_id, student.section)
        print("\t".join(fields))


def set_deadline(db: Connection, args: argparse.Namespace) -> None:
    classes.set_deadline(db, args.class_name, args.when)
    shown = classes.format_deadline(args.when.timestamp())
    print(f"the class {args.class_name}'s submissions close at {shown}")


def _deadline(text: str) -> Any:
    try:
        return classes.parse_deadline(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _read_roster(path: Path) -> str:
    """The roster's text; UTF-8, with or without the byte order mark spreadsheets write."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise AccountError(f"cannot read the roster {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise AccountError(
            f"the roster {str(path)!r} is not UTF-8 text (byte {error.start}): save it as CSV UTF-8"
        ) from None


@contextlib.contextmanager
def _new_private_file(path: Path) -> Iterator[TextIO]:
    """`path` made new, readable by its owner only; removed if the block fails."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise AccountError(
            f"{str(path)!r} exists: the tokens go to a new file, never over another"
        ) from None
    except OSError as error:
        raise AccountError(f"cannot make {str(path)!r}: {error.strerror}") from None
    with open(descriptor, "w", encoding="utf-8", newline="") as out:
        try:
            yield out
        except BaseException:
            path.unlink()
            raise


def _write_tokens(out: TextIO, issued: list[Issued]) -> None:
    """The tokens on disk before the accounts are committed: a token lost is an account no one
    can sign in to."""
    writer = csv.writer(out)
    writer.writerow(TOKENS_HEADER)
    for one in issued:
        writer.writerow((one.student.name, one.student.student_id, one.student.section, one.token))
    out.flush()
    os.fsync(out.fileno())
