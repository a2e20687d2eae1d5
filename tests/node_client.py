"""The Node.js example client (examples/node-client/) made ready to run, for the tests that play
against it. Node is optional on a developer's machine (those tests skip, saying why), but not
on CI (`CI=true`), where a missing node fails them rather than passing them by unseen."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "node-client"
NODE, NPM = shutil.which("node"), shutil.which("npm")
MISSING = "node and npm are needed to run examples/node-client (install Node.js 18 or newer)"


def need_node() -> str:
    """The node program; else the test skips (fails under CI=true)."""
    if NODE is None or NPM is None:
        if os.environ.get("CI") == "true":
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    return NODE


def ready_client(scratch: Path) -> Path:
    """The example folder, ready to run: as it is when its node_modules is installed, else a
    copy in `scratch` where `npm ci` installs the pinned msgpack package from
    package-lock.json."""
    need_node()
    if (EXAMPLE / "node_modules").is_dir():
        return EXAMPLE
    for name in ("package.json", "package-lock.json", "client.js"):
        shutil.copy(EXAMPLE / name, scratch / name)
    assert NPM is not None
    subprocess.run(
        [NPM, "ci", "--no-audit", "--no-fund"],
        cwd=scratch,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return scratch


@pytest.fixture(scope="session")
def node_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example client ready to run, once for the whole run (`npm ci` takes seconds)."""
    return ready_client(tmp_path_factory.mktemp("node-client"))
