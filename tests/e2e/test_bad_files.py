"""Files the server or a command cannot use: a database the server
cannot write is refused at start, before `listening`; every `arbiter-server admin` failure and
an `export` of what the file does not hold are one sentence and a non-zero exit.

Read-only for real: the tests run as root, and root writes a file whatever its mode (the
capability CAP_DAC_OVERRIDE). So a command that must meet a read-only file runs without that
capability: `setpriv --bounding-set=-dac_override` (util-linux) drops it from the bounding set,
and the kernel leaves it out of the permitted set of the program it then runs, a root process
that the file's mode binds like any user's. As another user, chmod alone does it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import CLI, ROOT, SERVER
from tests.tournament.helpers import register

READ_ONLY = "it is read-only for this user (check the permissions of the file and of its folder)"


def bound_by_modes(command: list[str]) -> list[str]:
    """`command` as a process that file modes bind (see the module docstring)."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: nothing makes a file read-only for root")
    return ["setpriv", "--bounding-set=-dac_override", *command]


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        bound_by_modes(command), capture_output=True, text=True, timeout=60, cwd=ROOT
    )


def one_sentence(done: subprocess.CompletedProcess[str]) -> str:
    """The command failed with exit 1 and one line on stderr, no traceback: that line."""
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.splitlines()
    return line


@pytest.fixture
def registered(tmp_path: Path) -> Path:
    """A server's file with one account, `alice`."""
    db = tmp_path / "class.db"
    register(db, "alice")
    return db


@pytest.fixture
def read_only_folder(registered: Path) -> Iterator[Path]:
    """`registered`'s folder made read-only (and writable again after, for pytest's cleanup)."""
    folder = registered.parent
    folder.chmod(0o555)
    try:
        yield registered
    finally:
        folder.chmod(0o755)


def test_a_read_only_database_file_is_refused_before_listening(registered: Path) -> None:
    registered.chmod(0o444)
    done = run([*SERVER, "--port", "0", "--db", str(registered)])
    assert one_sentence(done).endswith(f"cannot write to database {str(registered)!r}: {READ_ONLY}")
    assert "listening" not in done.stdout


def test_a_database_in_a_read_only_folder_is_refused_before_listening(
    read_only_folder: Path,
) -> None:
    """SQLite cannot make the file's journal (-wal, -shm) beside it."""
    done = run([*SERVER, "--port", "0", "--db", str(read_only_folder)])
    assert one_sentence(done).endswith(
        f"cannot write to database {str(read_only_folder)!r}: {READ_ONLY}"
    )
    assert "listening" not in done.stdout


def test_a_new_database_in_a_read_only_folder_is_refused(read_only_folder: Path) -> None:
    db = read_only_folder.parent / "new.db"
    done = run([*SERVER, "--port", "0", "--db", str(db)])
    assert one_sentence(done).endswith(
        f"cannot open database {str(db)!r}: cannot create it: Permission denied"
    )
    assert "listening" not in done.stdout
    assert not db.exists()


@pytest.mark.parametrize(
    "command", [["add", "bob"], ["token", "alice"], ["remove", "alice"], ["list"]]
)
def test_every_admin_command_on_a_read_only_file_is_one_sentence(
    registered: Path, command: list[str]
) -> None:
    registered.chmod(0o444)
    done = run([*SERVER, "admin", "--db", str(registered), *command])
    line = f"arbiter-server admin: cannot write to database {str(registered)!r}: {READ_ONLY}"
    assert one_sentence(done) == line
    assert done.stdout == "", "no token is printed for an account that was not made"


@pytest.mark.parametrize(
    ("command", "sentence"),
    [
        (["token", "nobody"], "no account 'nobody'"),
        (["remove", "nobody"], "no account 'nobody'"),
        (["add", "alice"], "'alice' is registered already"),
        (["add", "bad name"], "'bad name' cannot be an account name"),
        (["add", "ALICE"], "'ALICE' is too like the registered name 'alice'"),
    ],
)
def test_admin_failures_are_one_sentence(
    registered: Path, command: list[str], sentence: str
) -> None:
    done = run([*SERVER, "admin", "--db", str(registered), *command])
    assert one_sentence(done).startswith(f"arbiter-server admin: {sentence}")


@pytest.mark.parametrize("command", [["list"], ["token", "alice"], ["remove", "alice"]])
def test_admin_on_a_missing_file_says_so_and_makes_none(tmp_path: Path, command: list[str]) -> None:
    """Only `add` makes a new file (before a server's first start); the rest name the mistake."""
    db = tmp_path / "typo.db"
    done = run([*SERVER, "admin", "--db", str(db), *command])
    assert one_sentence(done) == (
        f"arbiter-server admin: cannot open database {str(db)!r}: there is no such file"
        " (admin add makes one; give the server's file with --db)"
    )
    assert not db.exists()


def test_admin_add_makes_a_new_file(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    done = run([*SERVER, "admin", "--db", str(db), "add", "bob"])
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip()) > 20
    assert db.exists()


@pytest.mark.parametrize(
    ("filters", "sentence"),
    [
        (["--tournament", "nope"], "no tournament 'nope' (it holds no tournament)"),
        (["--match", "7"], "no match 7"),
    ],
)
def test_export_of_what_the_file_does_not_hold_is_an_error(
    registered: Path, filters: list[str], sentence: str
) -> None:
    done = run([*CLI, "export", "--db", str(registered), *filters])
    assert one_sentence(done) == f"arbiter: {sentence} in {str(registered)!r}: nothing exported"
    assert done.stdout == ""
