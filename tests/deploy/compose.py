"""The Docker client's `compose config`: the one check of docker-compose.yml these machines can
make, as no Docker engine runs on them (the client parses, interpolates and validates the file
without one). `docker compose` (the plugin) or `docker-compose` (Debian's package, which `.ci/run`
installs when neither is there); without either the tests skip, except under `CI=true`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.processes import ROOT


def client() -> list[str]:
    """The compose command this machine has; skips (fails under CI=true) without one."""
    docker = shutil.which("docker")
    if docker is not None:
        plugin = subprocess.run([docker, "compose", "version"], capture_output=True)
        if plugin.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    if legacy is not None:
        return [legacy]
    missing = "neither `docker compose` nor `docker-compose` is installed"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {missing} (.ci/run installs Debian's docker-compose)")
    pytest.skip(missing)


def config(**env: str) -> dict[str, Any]:
    """docker-compose.yml as the client reads it (variables from `env`), parsed."""
    done = subprocess.run(
        [
            *client(),
            "--project-directory",
            str(ROOT),
            "-f",
            str(ROOT / "docker-compose.yml"),
            "config",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = yaml.safe_load(done.stdout)
    return parsed
