"""One server per store: a second `arbiter-server` on the store another one serves is refused in
one sentence (on PostgreSQL by the database's advisory lock, as on SQLite by the file's), while
the admin command works beside it; the lock goes with the server that held it, however it
ended (SIGKILL too), and servers on two databases of one PostgreSQL server do not meet."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import BOTH_BACKENDS
from tests.postgres import Cluster
from tests.processes import SERVER, start_server
from tests.server.test_schema import run


def _stop(server: subprocess.Popen[str], how: signal.Signals = signal.SIGINT) -> None:
    server.send_signal(how)
    server.communicate(timeout=30)


@pytest.mark.long
@BOTH_BACKENDS
def test_a_second_server_on_one_store_is_refused_until_the_first_is_gone(
    db: Path | str,
) -> None:
    first, _ = start_server(db)
    try:
        second = run([*SERVER, "--port", "0", "--db", "DB"], db)
        assert second.returncode == 1
        assert "another Arbiter server is using" in second.stderr, second.stderr
        assert second.stderr.count("\n") == 1, "one sentence"
        added = run([*SERVER, "admin", "--db", "DB", "add", "north"], db)
        assert added.returncode == 0, added.stderr
    finally:
        _stop(first, signal.SIGKILL)
    third, _ = start_server(db)  # the killed server's lock went with it
    _stop(third)


def test_servers_on_two_databases_of_one_postgresql_do_not_meet(postgres_cluster: Cluster) -> None:
    servers = [start_server(postgres_cluster.database())[0] for _ in range(2)]
    for server in servers:
        assert server.poll() is None
        _stop(server)
