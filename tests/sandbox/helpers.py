"""Running an agent's script in the real sandbox, as the hostile-agent tests do."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from arbiter.client.sandbox.ending import Ending
from arbiter.client.sandbox.launch import relay_command
from arbiter.client.sandbox.limits import MIB, Limits
from arbiter.client.sandbox.process import sandboxed
from arbiter.client.sandbox.toolchain import INSTALL_HINT

SMALL = Limits(
    memory=256 * MIB,
    processes=16,
    open_files=32,
    file_size=4 * MIB,
    scratch=8 * MIB,
    output=64 * 1024,
    cpu_seconds=2,
    wall_seconds=10,
)
"""Limits a hostile agent reaches in a second or two."""
RELAY_PORT = 7777


def need_bwrap() -> None:
    """Skip without bubblewrap, but fail under CI=true, where it must be installed."""
    if shutil.which("bwrap") is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no bwrap: {INSTALL_HINT}")
        pytest.skip(INSTALL_HINT)


def code_folder(parent: Path, source: str, name: str = "agent.py") -> Path:
    """A code folder holding `source` as `name`, readable by a sandbox's own user."""
    code = parent / "code"
    code.mkdir(exist_ok=True)
    code.chmod(0o755)
    (code / name).write_text(source)
    (code / name).chmod(0o644)
    return code


async def run_script(
    code: Path, limits: Limits = SMALL, name: str = "agent.py"
) -> tuple[Ending, str]:
    """Run `code/name` with Python in the sandbox behind the relay, as a hosted agent runs;
    how it ended and what it printed. Afterwards no process of it is left."""
    command = relay_command(RELAY_PORT, [sys.executable, str(code / name)])
    async with sandboxed(command, limits, code=[code]) as sandbox:
        ended = await sandbox.ended()
    assert not _alive(sandbox.pid)
    return ended, sandbox.output().decode(errors="replace")


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()
