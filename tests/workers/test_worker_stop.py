"""A worker asked to stop (SIGTERM, what a server stopping its own workers sends) ends at once
and cleanly: its scratch folder is removed, not left behind in the temporary folder."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.processes import start_server, stop
from tests.sandbox.helpers import need_bwrap
from tests.tournament.helpers import register
from tests.workers.hosting import kill_group, start_worker, wait_for_log


def test_a_worker_asked_to_stop_removes_its_folders(tmp_path: Path) -> None:
    need_bwrap()
    db, log, scratch = tmp_path / "arbiter.db", tmp_path / "server.log", tmp_path / "scratch"
    scratch.mkdir()
    token = register(db, "w1", role="worker")["w1"]
    server, address = start_server(db, log=log)
    try:
        worker = start_worker(address, token, env={"TMPDIR": str(scratch)})
        try:
            wait_for_log(log, "worker_ready")
            assert [path.name[:15] for path in scratch.iterdir()] == ["arbiter-worker-"]
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=10) == 0
        finally:
            kill_group(worker)
    finally:
        stop(server)
    assert list(scratch.iterdir()) == []
