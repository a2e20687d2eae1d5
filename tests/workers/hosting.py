"""A server with a worker of its own processes, and a connected player that challenges a hosted
agent: everything over real TCP, every process stopped and reaped by the test that starts it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from tests.processes import CLI, ROOT, start_server, stop
from tests.tournament.helpers import register

PROGRAM = Path(__file__).with_name("hosted_program.py")
GAME = "kings-court"


@dataclass
class Hosting:
    """A running server and one worker: their processes, the server's address and log, and the
    worker's temporary folder."""

    server: subprocess.Popen[str]
    worker: subprocess.Popen[str]
    address: str
    log: Path
    db: Path
    scratch: Path

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])


def program(kind: str, seconds: float) -> str:
    """`--program NAME=COMMAND` for the misbehaving agent `kind` (hosted_program.py)."""
    return f"{kind}={sys.executable} {PROGRAM} {kind} {seconds}"


def start_worker(
    address: str,
    token: str,
    *programs: str,
    name: str = "w1",
    slots: int = 2,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    offered = [word for text in programs for word in ("--program", text)]
    worker = [*CLI, "worker", "--server", address, "--name", name, "--slots", str(slots)]
    return subprocess.Popen(
        [*worker, *offered],
        env={**os.environ, **(env or {}), "ARBITER_TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        start_new_session=True,  # its agents are its process group: killed with it below
    )


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    """A temporary folder for the workers a test starts (their `TMPDIR`), removed after it with
    whatever a worker killed on purpose could not remove itself; open to the sandboxes' users
    (0711), as /tmp is."""
    folder = Path(tempfile.mkdtemp(prefix="arbiter-test-"))
    folder.chmod(0o711)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def wait_for_log(log: Path, text: str, count: int = 1, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while log.read_text().count(text) < count:
        assert time.monotonic() < deadline, f"no {text!r} in the server's log"
        time.sleep(0.05)


@contextlib.contextmanager
def hosting(tmp_path: Path, *programs: str, slots: int = 2) -> Iterator[Hosting]:
    """A server and a ready worker with `slots`, offering the built-in agents and `programs`."""
    db, log = tmp_path / "arbiter.db", tmp_path / "server.log"
    token = register(db, "w1", role="worker")["w1"]
    server, address = start_server(db, log=log)
    try:
        with scratch_folder() as scratch:
            told = {"TMPDIR": str(scratch)}
            worker = start_worker(address, token, *programs, slots=slots, env=told)
            try:
                wait_for_log(log, "worker_ready")
                yield Hosting(server, worker, address, log, db, scratch)
            finally:
                kill_group(worker)
    finally:
        stop(server)


def kill_group(process: subprocess.Popen[str], grace: float = 10.0) -> None:
    """Stop a worker as a server stops its own (SIGTERM: it ends its sandboxes and removes their
    folders and its own), then SIGKILL whatever of its group is left, and reap it."""
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


async def challenge(
    port: int,
    agent: str,
    time_control: str = "move=1",
    resign_after: int | None = None,
    version: int = protocol.PROTOCOL_VERSION,
) -> tuple[protocol.GameOver, int]:
    """Play a game as `alice` against `hosted:AGENT`, the first legal move at once; resign once
    the hosted agent has moved `resign_after` times. The end and how many moves it made."""
    connection = await ClientConnection.open("127.0.0.1", port, "alice")
    async with connection:
        control = protocol.TimeControl.parse(time_control).to_wire()
        await connection.send(protocol.Seek(game=GAME, time=control, opponent=f"hosted:{agent}"))
        theirs = 0
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.GameOver):
                return message, theirs
            if isinstance(message, protocol.OpponentMoved):
                theirs += 1
                if theirs == resign_after:
                    await connection.send(protocol.Resign(match=message.match))
            if isinstance(message, protocol.YourTurn) and message.legal:
                await connection.send(protocol.Move(match=message.match, move=message.legal[0]))


ANY_LEGAL = b"""
import random


class AnyLegal:
    def __init__(self, game, seed=None):
        self.rng = random.Random(seed)

    def choose(self, state, budget):
        return self.rng.choice(state.legal_moves())
"""
"""An agent-object module that plays any legal move: the smallest agent a student uploads."""
