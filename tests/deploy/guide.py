"""Running docs/deploy.md's commands as a reader would: `Reader` runs each one as it is written
there, with `sh`, in a folder of its own and a network namespace of its own (so the server
takes port 7777, as in the guide, beside whatever else this machine runs), only the example
hosts replaced by the test's. A command that is not in the guide is refused: the tests run the
guide, not commands like it.

A network namespace needs root (`unshare`, `nsenter`): without it the tests skip, except under
`CI=true`, where CI runs as root.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.processes import ROOT, stop

GUIDE = ROOT / "docs" / "deploy.md"
SHELL_BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)
LISTENING = "listening on 0.0.0.0:7777"
SECONDS = 120


def guide_commands() -> list[str]:
    """Every command line of the guide's `sh` blocks, in order."""
    blocks = SHELL_BLOCK.findall(GUIDE.read_text())
    return [line for block in blocks for line in block.splitlines() if line.strip()]


class Namespace:
    """A network namespace with its loopback up, held by a sleeping process until `close`."""

    def __init__(self) -> None:
        if os.geteuid() != 0:
            if os.environ.get("CI") == "true":
                pytest.fail("CI=true and not root: the guide's tests need a network namespace")
            pytest.skip("a network namespace of the tests' own needs root")
        up = "ip link set lo up && echo up && exec sleep 3600"
        self._holder = subprocess.Popen(
            ["unshare", "--net", "--", "sh", "-c", up], stdout=subprocess.PIPE, text=True
        )
        assert self._holder.stdout is not None
        assert self._holder.stdout.readline() == "up\n"

    def command(self, shell: str) -> list[str]:
        return ["nsenter", f"--net=/proc/{self._holder.pid}/ns/net", "--", "sh", "-c", shell]

    def close(self) -> None:
        stop(self._holder)


@contextmanager
def namespace() -> Iterator[Namespace]:
    held = Namespace()
    try:
        yield held
    finally:
        held.close()


@dataclass
class Reader:
    """Runs the guide's commands in `folder`, inside `namespace`, with `places` (an example
    host's text -> the test's) replaced. Every server it starts it stops (`close`)."""

    namespace: Namespace
    folder: Path
    places: dict[str, str] = field(default_factory=dict)
    ran: set[str] = field(default_factory=set)
    env: dict[str, str] = field(default_factory=dict)
    _servers: list[subprocess.Popen[str]] = field(default_factory=list)
    _logs: dict[int, Path] = field(default_factory=dict)
    """Each server's stderr, by its pid: what a failed stop shows."""

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        self.env = {**os.environ, "PATH": path}
        self.env.pop("ARBITER_DB", None)
        self.env.pop("ARBITER_TOKEN", None)

    def _shell(self, command: str) -> str:
        assert command in guide_commands(), f"not a command of docs/deploy.md: {command}"
        self.ran.add(command)
        for example, ours in self.places.items():
            command = command.replace(example, ours)
        return command

    def export(self, command: str) -> None:
        """An `export NAME=VALUE` line: this reader's later commands have it."""
        name, value = self._shell(command).removeprefix("export ").split("=", 1)
        self.env[name] = value

    def run(self, command: str) -> str:
        """Run `command` to its end; its stdout. It must succeed."""
        done = subprocess.run(
            self.namespace.command(self._shell(command)),
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=SECONDS,
        )
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        return done.stdout

    def start(self, command: str) -> subprocess.Popen[str]:
        """Start `command`, which ends by itself: the caller waits for it (`finish`)."""
        return subprocess.Popen(
            self.namespace.command(self._shell(command)),
            cwd=self.folder,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finish(self, process: subprocess.Popen[str]) -> str:
        """Wait for a started command to end; its stdout. It must succeed."""
        out, err = process.communicate(timeout=SECONDS)
        assert process.returncode == 0, err
        return out

    def serve(self, command: str) -> subprocess.Popen[str]:
        """Start a server command and wait until it listens on 7777."""
        log = self.folder / f"server-{len(self._logs)}.log"
        with log.open("w") as errors:
            server = subprocess.Popen(
                self.namespace.command("exec " + self._shell(command)),
                cwd=self.folder,
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
        self._servers.append(server)
        self._logs[server.pid] = log
        assert server.stdout is not None
        assert server.stdout.readline().strip() == LISTENING
        return server

    def stop(self, server: subprocess.Popen[str]) -> None:
        """Ctrl-C, as the guide says."""
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=SECONDS)
        assert server.returncode == 0, self._logs[server.pid].read_text()[-2000:]
        self._servers.remove(server)

    def until(self, command: str, shows: str, beside: subprocess.Popen[str]) -> str:
        """Run `command` until its output holds `shows` (a listing that changes), while the
        process `beside` (what it waits to see) runs."""
        deadline = time.monotonic() + SECONDS
        while shows not in (out := self.run(command)):
            assert beside.poll() is None, beside.communicate()
            assert time.monotonic() < deadline, f"{command} never showed {shows!r}:\n{out}"
            time.sleep(0.2)
        return out

    def close(self) -> None:
        while self._servers:
            server = self._servers.pop()
            server.kill()
            server.communicate()
