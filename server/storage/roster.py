"""A class's roster as an instructor writes it: a CSV file read and checked whole, before
anything is stored.

The header names the columns, in any order: `name`, `student_id` and `section`, each once, and
no other (an extra column, or a misspelt one, is refused rather than ignored: a roster is
exported from a school's system, and a column left unread is a mistake the instructor would
want to hear of). Each row is one student, and becomes one player account of that name.

A roster is refused whole: every problem is listed, each with its line number, so one fix of
the file is enough; nothing is stored from a roster with any. A name is refused when it cannot be
an account's name (nor so a player's: `accounts.NAME_PATTERN` is stricter than the protocol), when
another row has it or a lookalike of it (`accounts.name_key`), and when a registered account has
it or one it passes for. No I/O here: the caller hands in the registered names and the ids the
class holds already.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from arbiter.server.storage.accounts import AccountError, check_name, name_key

COLUMNS: Final = ("name", "student_id", "section")
"""The roster's columns, in the order the tokens file and the listing give them."""


@dataclass(frozen=True, slots=True)
class Student:
    """One row of a roster, checked."""

    name: str
    student_id: str
    section: str
    line: int
    """Where the row ends in the file (1 is the header): what a refusal names."""


class RosterRefused(AccountError):
    """A roster with problems: each one a sentence that starts with its line number."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the roster is refused and nothing is stored:\n" + "\n".join(problems))
        self.problems = problems


def read_roster(
    text: str, registered: Iterable[str], enrolled_ids: Iterable[str] = ()
) -> list[Student]:
    """The students of a roster's text; `RosterRefused` listing every problem if it has any.

    `registered` are the names of the accounts stored (a student's name may be none of them,
    nor look like one); `enrolled_ids` the student ids its class holds already."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    order, problems = _columns([] if header is None else header)
    if order is None:
        raise RosterRefused(problems)
    checks = _Checks(registered, enrolled_ids)
    students = []
    for line, row in _rows(reader):
        student, found = _student(order, row, line)
        problems += found
        if student is not None:
            problems += checks.problems(student)
            students.append(student)
    if not students and not problems:
        problems.append("the roster has no students: one row per student follows the header")
    if problems:
        raise RosterRefused(problems)
    return students


def _columns(header: list[str]) -> tuple[list[str] | None, list[str]]:
    """The header's columns in its order, or None and why not."""
    names = [cell.strip().lower() for cell in header]
    wanted = ", ".join(COLUMNS)
    if not any(names):
        return None, [f"line 1: the header is missing: give the columns {wanted}"]
    problems = [
        f"line 1: column {name!r} appears {names.count(name)} times"
        for name in dict.fromkeys(names)
        if names.count(name) > 1
    ]
    unknown = [name for name in dict.fromkeys(names) if name not in COLUMNS]
    if unknown:
        shown = ", ".join(map(repr, unknown))
        problems.append(f"line 1: unknown column {shown}: the columns are {wanted}")
    missing = [name for name in COLUMNS if name not in names]
    if missing:
        problems.append(f"line 1: no column {', '.join(map(repr, missing))}")
    return (None, problems) if problems else (names, [])


def _rows(reader: Iterator[list[str]]) -> Iterator[tuple[int, list[str]]]:
    """Each row with the line it ends on; blank lines are not rows."""
    for row in reader:
        if any(cell.strip() for cell in row):
            yield reader.line_num, row  # type: ignore[attr-defined]


def _student(order: list[str], row: list[str], line: int) -> tuple[Student | None, list[str]]:
    if len(row) != len(order):
        return None, [f"line {line}: {len(row)} fields where the header has {len(order)}"]
    fields = {column: cell.strip() for column, cell in zip(order, row, strict=True)}
    empty = [column for column in COLUMNS if not fields[column]]
    if empty:
        return None, [f"line {line}: no {', no '.join(empty)}"]
    student = Student(fields["name"], fields["student_id"], fields["section"], line)
    try:
        check_name(student.name)
    except AccountError as error:
        return None, [f"line {line}: {error}"]
    return student, []


class _Checks:
    """What the rows so far and the store hold: a new row's clashes are found against these."""

    def __init__(self, registered: Iterable[str], enrolled_ids: Iterable[str]) -> None:
        self.registered = {name_key(name): name for name in registered}
        self.enrolled_ids = frozenset(enrolled_ids)
        self.names: dict[str, Student] = {}
        self.ids: dict[str, Student] = {}

    def problems(self, student: Student) -> list[str]:
        found = [f"line {student.line}: {problem}" for problem in self._clashes(student)]
        self.names.setdefault(name_key(student.name), student)
        self.ids.setdefault(student.student_id, student)
        return found

    def _clashes(self, student: Student) -> Iterator[str]:
        name, key = student.name, name_key(student.name)
        taken = self.registered.get(key)
        if taken == name:
            yield f"{name!r} is registered already"
        elif taken is not None:
            yield f"{name!r} is too like the registered name {taken!r}"
        earlier = self.names.get(key)
        if earlier is not None and earlier.name == name:
            yield f"the name {name!r} is on line {earlier.line} already"
        elif earlier is not None:
            yield f"{name!r} is too like {earlier.name!r} on line {earlier.line}"
        same_id = self.ids.get(student.student_id)
        if same_id is not None:
            yield f"student id {student.student_id!r} is on line {same_id.line} already"
        if student.student_id in self.enrolled_ids:
            yield f"student id {student.student_id!r} is enrolled in the class already"
