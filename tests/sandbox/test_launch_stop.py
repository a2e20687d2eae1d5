"""An entrant's sandboxed launch stopped by SIGTERM, as a server stops the entrants it started,
ends its sandbox and removes the staging folder a root caller's sandbox is shown its code
through, instead of dying with it left in the temporary folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from arbiter.client.sandbox.launch import TERMINATED, launch_command
from tests.processes import ROOT
from tests.sandbox.helpers import need_bwrap
from tests.workers.hosting import kill_group, scratch_folder

SLEEPER = [
    sys.executable,
    "-c",
    "import os, socket, time\n"
    "host, port = os.environ['ARBITER_SERVER'].rsplit(':', 1)\n"
    "socket.create_connection((host, int(port))).sendall(b'hi')\n"
    "time.sleep(60)",
]
"""An agent that speaks (so its link dials the server), then sleeps."""


def test_a_launch_asked_to_stop_removes_its_staging(tmp_path: Path) -> None:
    need_bwrap()
    with socket.create_server(("127.0.0.1", 0)) as server, scratch_folder() as scratch:
        server.settimeout(30)
        told = {"ARBITER_SERVER": f"127.0.0.1:{server.getsockname()[1]}", "TMPDIR": str(scratch)}
        launch = subprocess.Popen(
            launch_command(SLEEPER, [tmp_path]),
            env={**os.environ, **told},
            cwd=ROOT,
            start_new_session=True,
        )
        try:
            linked, _ = server.accept()  # the agent spoke: its link dialled the server
            with linked:
                if os.geteuid() == 0:
                    assert [path.name[:16] for path in scratch.iterdir()] == ["arbiter-sandbox-"]
                launch.send_signal(signal.SIGTERM)
                assert launch.wait(timeout=15) == TERMINATED
        finally:
            kill_group(launch)
        assert list(scratch.iterdir()) == []
