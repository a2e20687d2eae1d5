"""docker-compose.yml and the Dockerfile, checked as far as a machine without a Docker engine
can: the Docker client's `compose config` accepts the file, and what it read is the stack
docs/deploy.md describes (PostgreSQL on a named volume with a healthcheck, the server waiting for
it and publishing port 7777, two bots waiting for the server). The server's healthcheck command
is run against a real server; the Dockerfile installs what the Makefile calls the rooms."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.deploy.compose import config
from tests.processes import ROOT, start_server

PASSWORD = "s3cret"
DEFAULT_PORT = 7777


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    found: dict[str, Any] = config(POSTGRES_PASSWORD=PASSWORD)["services"]
    return found


def test_the_stack_is_postgresql_a_server_and_two_bots(services: dict[str, Any]) -> None:
    assert set(services) == {"postgres", "server", "bot-greedy", "bot-random"}


def test_postgresql_keeps_its_data_on_a_named_volume_and_says_when_it_is_ready(
    services: dict[str, Any],
) -> None:
    postgres = services["postgres"]
    assert "pg_isready" in postgres["healthcheck"]["test"]
    mounts = [str(mount) for mount in postgres["volumes"]]
    assert any(m.startswith("postgres-data:/var/lib/postgresql/data") for m in mounts), mounts
    assert "postgres-data" in config()["volumes"]
    assert "ports" not in postgres, "the database is reached only from the stack's network"


def test_the_server_waits_for_postgresql_publishes_7777_and_uses_its_database(
    services: dict[str, Any],
) -> None:
    server, postgres = services["server"], services["postgres"]
    assert server["depends_on"]["postgres"]["condition"] == "service_healthy"
    published = [(str(p["published"]), int(p["target"])) for p in server["ports"]]
    assert published == [(str(DEFAULT_PORT), DEFAULT_PORT)]
    assert server["build"]["context"] == str(ROOT)
    url = urlsplit(server["environment"]["ARBITER_DB"])
    environment = postgres["environment"]
    assert (url.scheme, url.hostname, url.port) == ("postgresql", "postgres", 5432)
    assert url.username == environment["POSTGRES_USER"]
    assert url.password == environment["POSTGRES_PASSWORD"] == PASSWORD
    assert url.path == "/" + environment["POSTGRES_DB"]
    assert server["command"][:3] == ["arbiter-server", "--host", "0.0.0.0"]


def test_two_bots_play_on_the_server_once_it_listens(services: dict[str, Any]) -> None:
    agents = set()
    for name in ("bot-greedy", "bot-random"):
        bot = services[name]
        assert bot["command"][:4] == ["arbiter", "bot", "--server", "server"]
        assert bot["depends_on"]["server"]["condition"] == "service_healthy"
        agents.add(bot["command"][bot["command"].index("--agent") + 1])
    assert agents == {"greedy", "random"}


def _healthcheck(services: dict[str, Any], port: int) -> int:
    """The server's healthcheck, for `port` rather than 7777, run here: its exit status."""
    kind, command = services["server"]["healthcheck"]["test"]
    assert kind == "CMD-SHELL"
    assert f"{DEFAULT_PORT:04X}" in command
    return subprocess.run(
        ["sh", "-c", command.replace(f"{DEFAULT_PORT:04X}", f"{port:04X}")]
    ).returncode


def test_the_servers_healthcheck_is_true_while_it_listens(
    services: dict[str, Any], tmp_path: Path
) -> None:
    server, address = start_server(tmp_path / "a.db", host="0.0.0.0")
    port = int(address.rsplit(":", 1)[1])
    try:
        assert _healthcheck(services, port) == 0
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert _healthcheck(services, port) == 1


def test_the_dockerfile_installs_every_room_with_postgres_as_a_user_not_root() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    rooms = re.search(r"^ROOMS := (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert rooms is not None
    copied = set(re.findall(r"^COPY (\w+) ", dockerfile, re.MULTILINE))
    assert copied == set(rooms.group(1).split())
    assert "RUN pip install --no-cache-dir '.[postgres]'" in dockerfile
    users = re.findall(r"^USER (\S+)", dockerfile, re.MULTILINE)
    assert users
    assert users[-1] not in ("root", "0")
