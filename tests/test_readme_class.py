"""The README's "Run a server for a class" commands, run as written against a real server.

Each line of the section's shell block runs with `course.db` in a temporary folder and `HOST`
the test server's address; the server itself is started by `start_server`, on a free port of
127.0.0.1 rather than 7777 on every interface.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
from pathlib import Path

from tests.processes import CLI, ROOT, SERVER, start_server, stop

SECTION = "## Run a server for a class"


def class_commands() -> list[list[str]]:
    """The section's shell block, one argument list per command (comments dropped)."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index(SECTION) :]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def argv(command: list[str], db: Path, address: str) -> list[str]:
    """`command` as this test runs it: its file in the test's folder, HOST the test server."""
    program, *args = command
    args = [str(db) if arg == "course.db" else address if arg == "HOST" else arg for arg in args]
    return [*{"arbiter-server": SERVER, "arbiter": CLI}[program], *args]


def run(command: list[str], db: Path, address: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv(command, db, address), capture_output=True, text=True, timeout=60, check=False
    )


def test_the_class_section_runs_as_written(tmp_path: Path) -> None:
    commands = class_commands()
    starts = [c for c in commands if c[0] == "arbiter-server" and "admin" not in c]
    assert starts == [["arbiter-server", "--host", "0.0.0.0", "--db", "course.db"]]
    db = tmp_path / "course.db"
    admin = [c for c in commands if "admin" in c]
    lobby = [c for c in commands if c[:2] == ["arbiter", "lobby"]]
    assert len(admin) + len(lobby) + 1 == len(commands), "every command is run below"

    outputs = [run(command, db, "unused") for command in admin]
    assert all(done.returncode == 0 for done in outputs), [done.stderr for done in outputs]
    tokens = [done.stdout.strip() for done in outputs[:2]]
    assert all(len(token) >= 20 for token in tokens), "add prints the new token"
    assert sorted(outputs[2].stdout.splitlines()) == ["judge\tadmin", "north\tplayer"]

    server, address = start_server(db)
    try:
        once = run([*lobby[0], "--json"], db, address)
        assert once.returncode == 0, once.stderr
        listing = json.loads(once.stdout.splitlines()[0])
        assert {"seeks", "matches", "tournaments"} <= listing.keys()
        followed = subprocess.Popen(
            [*argv(lobby[1], db, address), "--json"], stdout=subprocess.PIPE, text=True
        )
        try:
            assert followed.stdout is not None
            assert "seeks" in json.loads(followed.stdout.readline())
        finally:
            stop(followed)
    finally:
        stop(server, signal.SIGTERM)
