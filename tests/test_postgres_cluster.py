"""The tests' throwaway PostgreSQL cluster (tests/postgres.py) goes away with the pytest that
started it, even one killed before its fixtures could stop anything."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.postgres import Cluster
from tests.processes import stop

ROOT = Path(__file__).resolve().parents[1]
STARTER = """\
import time
from tests.postgres import Cluster
cluster = Cluster.start()
print(cluster.folder, cluster.port, flush=True)
time.sleep(600)
"""


def accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_a_cluster_is_removed_when_the_process_that_started_it_is_killed(
    postgres_cluster: Cluster,  # PostgreSQL is installed (or the test is skipped, as this is)
) -> None:
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert starter.stdout is not None
    folder_text, port_text = starter.stdout.readline().split()
    folder, port = Path(folder_text), int(port_text)
    assert (folder / "data").is_dir()
    assert accepts(port)
    stop(starter)  # no fixture teardown, no atexit: only the watchdog is left to clean up
    deadline = time.monotonic() + 60
    while (folder.exists() or accepts(port)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not folder.exists(), "the killed process's cluster folder is still there"
    assert not accepts(port), "the killed process's PostgreSQL still listens"


def test_a_stopped_cluster_leaves_no_watchdog(postgres_cluster: Cluster) -> None:
    cluster = Cluster.start()
    watchdog = cluster._watchdog
    assert watchdog is not None
    assert watchdog.poll() is None
    cluster.stop()
    assert watchdog.poll() is not None
    assert not cluster.folder.exists()
    assert not accepts(cluster.port)
