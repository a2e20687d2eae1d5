"""`arbiter referee` and `arbiter tournament local` run Player modules sandboxed by default, and
unprotected with --no-sandbox after a warning."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arbiter.client.sandbox.choice import NO_SANDBOX_WARNING
from tests.processes import CLI, ROOT
from tests.sandbox.helpers import need_bwrap

TEMPLATE = ROOT / "agents" / "templates" / "kings_court.py"
PEEKING = """
import os
from pathlib import Path
exec((Path(__file__).parent / "kings_court_template.py").read_text())
_action = Player.action
def action(self, turns):
    try:
        open("/etc/passwd").read()
        where = "read /etc/passwd"
    except OSError:
        where = "no /etc/passwd"
    print(where, flush=True)
    return _action(self, turns)
Player.action = action
"""


def peeking_module(parent: Path) -> Path:
    """A Player module that plays King's Court and says whether it could read /etc/passwd."""
    code = parent / "student"
    code.mkdir(mode=0o755)
    code.chmod(0o755)
    shutil.copy(TEMPLATE, code / "kings_court_template.py")
    module = code / "peeking.py"
    module.write_text(PEEKING)
    for path in code.iterdir():
        path.chmod(0o644)
    return module


def referee(*options: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "referee", "kings-court", *options, "--move-time", "2", "--json"],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_a_player_module_plays_a_whole_game_sandboxed_through_referee(tmp_path: Path) -> None:
    need_bwrap()
    module = peeking_module(tmp_path)
    done = referee(str(module), "random", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["reason"]
    assert record["moves"]
    assert "crashed" not in done.stderr
    assert "no /etc/passwd" in done.stderr
    assert "read /etc/passwd" not in done.stderr


def test_no_sandbox_runs_the_module_unprotected_after_a_warning(tmp_path: Path) -> None:
    module = peeking_module(tmp_path)
    done = referee(str(module), "random", "--no-sandbox", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert NO_SANDBOX_WARNING in done.stderr
    assert "read /etc/passwd" in done.stderr


@pytest.mark.parametrize("sandbox", [[], ["--no-sandbox"]])
def test_tournament_local_plays_a_module_sandboxed_or_not(
    tmp_path: Path, sandbox: list[str]
) -> None:
    if not sandbox:
        need_bwrap()
    module = peeking_module(tmp_path)
    command = [*CLI, "tournament", "local", "kings-court", str(module), "random", *sandbox]
    done = subprocess.run(
        [*command, "--time", "move=2", "--option", "no_capture_limit=6", "--db", "t.db"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "crash" not in done.stderr
    if sandbox:
        assert NO_SANDBOX_WARNING in done.stderr
        assert "read /etc/passwd" in done.stderr
    else:
        assert "no /etc/passwd" in done.stderr
        assert "read /etc/passwd" not in done.stderr
