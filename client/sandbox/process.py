"""One sandboxed run: started, watched against its limits, ended with an `Ending`.

`sandboxed(...)` starts the command in bubblewrap (`command.py`) with the kernel's per-process
limits set in the child before it runs (memory, processes, open files, file size, CPU, no core
files), and keeps two tasks beside it: one keeps the first `Limits.output` bytes of its stderr
(the run is stopped past them), one looks at its process tree (`tree.py`) a few times a second
and stops it at the CPU, wall-clock or process limit. Stopping kills the outermost bubblewrap:
its sandbox's init dies with it (`--die-with-parent`), and with the init every process of the
sandbox's PID namespace, so nothing it started outlives it. Whatever happens, the caller gets
one `Ending`.

Whose rights it runs with. Run by root (a worker's machine), each sandbox runs as a user of its
own, so the kernel's process limit counts that sandbox alone and nothing it might reach outside
its namespaces is root's. That user may not be able to reach the folders it is shown (root's
Python under /root, a code folder under a private temporary folder), and bubblewrap opens them
as that user: so the child first takes a private mount namespace of its own and binds each of
them at an empty folder of a staging folder it can reach, which bubblewrap shows at the original
path. Run by anyone else (a student's `tournament local`), it runs as that user, whose other
processes RLIMIT_NPROC counts too: the limit is raised by as many as they run at the start,
and the watchdog counts the sandbox's own.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import math
import os
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import trio

from arbiter.client.sandbox.command import SCRATCH, Bind, Layout, bwrap_command
from arbiter.client.sandbox.ending import Ending, ending
from arbiter.client.sandbox.limits import EndingKind, Limits
from arbiter.client.sandbox.toolchain import SYSTEM_FOLDERS, find_bwrap, host_layout, search_path
from arbiter.client.sandbox.tree import tree_usage, user_tasks

FIRST_UID = 60000
"""Sandboxes run by root run as users from here on: unused by any Debian account."""
UIDS_PER_PROCESS = 1024
"""Users each process takes in turn for its sandboxes: a worker hosting many seats at once gives
each its own user, so the kernel's per-user process limit counts each seat's tree alone."""
PROCESS_BLOCKS = 65536
"""Processes (by id) that get blocks of users of their own before two share one."""
_launches = itertools.count()
LOOK_SECONDS = 0.02
"""The watchdog's pause between looks while the tree changes (a run starting, or forking): a
forking run is caught within a fraction of a second."""
QUIET_LOOK_SECONDS = 0.25
"""The longest pause between looks, reached by doubling while the tree's tasks stay the same. A
look reads a few /proc files for every process and thread of the tree: a worker hosting dozens
of seats for a whole tournament would spend a good part of a core looking fifty times a second
at trees that do not change. The kernel's process limit holds meanwhile, and no CPU or
wall-clock cap is passed while the watchdog pauses (`next_look`)."""
CORES = os.cpu_count() or 1
"""The most CPU seconds a tree can use in a second of wall time."""
READ_SIZE = 65536
OUTPUT_GRACE = 1.0
"""Seconds the last of its output may take to arrive once the sandbox has exited: a process it
started and bubblewrap did not end yet may still hold the pipe."""

_CLONE_NEWNS = 0x00020000
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18


class SandboxedProcess:
    """A running sandbox: its stdin and stdout as one trio stream, its kept output, its CPU
    time."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        channel: socket.socket,
        limits: Limits,
        on_output: Callable[[bytes], None] | None = None,
    ) -> None:
        self._process = process
        self.limits = limits
        self._on_output = on_output
        self.channel = trio.SocketStream(trio.socket.from_stdlib_socket(channel))
        """Its stdin and stdout, one socket: each side's end passes as a half-close, though
        bubblewrap's own processes hold copies of it."""
        self._stderr = _stream(process.stderr)
        self._output = bytearray()
        self._stopped_for: EndingKind | None = None
        self._cpu = 0.0
        self._ending: Ending | None = None
        self._ended = trio.Event()
        self._output_read = trio.Event()

    @property
    def pid(self) -> int:
        """The outermost bubblewrap's process id."""
        return self._process.pid

    def output(self) -> bytes:
        """What the run printed on stderr so far, up to `Limits.output` bytes."""
        return bytes(self._output)

    def cpu_seconds(self) -> float:
        """CPU seconds the whole tree has used so far (its last look, once it has ended)."""
        if not self._ended.is_set():
            self._look()
        return self._cpu

    def stop(self, reason: EndingKind = EndingKind.STOPPED) -> None:
        """End the run at once, for `reason`; the first reason given is the one kept."""
        if self._stopped_for is None:
            self._stopped_for = reason
        if self._process.returncode is None:  # not reaped yet, so the id is still its own
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._process.pid, signal.SIGKILL)

    async def ended(self) -> Ending:
        """Wait for the run to end and say how."""
        await self._ended.wait()
        assert self._ending is not None
        return self._ending

    def _look(self) -> int:
        """Update the CPU time; the tree's threads."""
        usage = tree_usage(self._process.pid)
        if usage.pids:
            self._cpu = max(self._cpu, usage.cpu_seconds)
        return usage.threads

    async def _keep_output(self) -> None:
        try:
            while chunk := await self._stderr.receive_some(READ_SIZE):
                room = self.limits.output - len(self._output)
                self._output += chunk[:room]
                if self._on_output is not None:
                    self._on_output(chunk[:room])
                if len(chunk) > room:
                    self.stop(EndingKind.OUTPUT)
                    return
        finally:
            self._output_read.set()

    async def _watch(self) -> None:
        limits = self.limits
        wall = math.inf if limits.wall_seconds is None else limits.wall_seconds
        deadline = trio.current_time() + wall
        pause, threads = LOOK_SECONDS, 0
        while True:
            seen, threads = threads, self._look()
            if threads >= limits.processes:
                self.stop(EndingKind.PROCESSES)
            elif limits.cpu_seconds is not None and self._cpu >= limits.cpu_seconds:
                self.stop(EndingKind.CPU)
            elif trio.current_time() >= deadline:
                self.stop(EndingKind.WALL)
            pause = LOOK_SECONDS if threads != seen else min(2 * pause, QUIET_LOOK_SECONDS)
            left = deadline - trio.current_time()
            await trio.sleep(next_look(pause, limits, self._cpu, left))

    async def _run(self) -> None:
        status = -signal.SIGKILL
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._watch)
                nursery.start_soon(self._keep_output)
                status = await _exited(self._process)
                # what it printed just before the end still tells why it ended
                with trio.move_on_after(OUTPUT_GRACE):
                    await self._output_read.wait()
                nursery.cancel_scope.cancel()
        finally:
            # cancelled from outside (its owner asked to stop), the run still ends, is reaped
            # and says so: `sandboxed` waits for that before it removes the staging folder
            with trio.CancelScope(shield=True):
                if self._process.returncode is None:
                    self.stop()
                    status = await _exited(self._process)
                await self._stderr.aclose()
                await self.channel.aclose()
            self._ending = ending(self.limits, status, self._stopped_for, bytes(self._output))
            self._ended.set()


def next_look(pause: float, limits: Limits, cpu: float, wall_left: float) -> float:
    """Seconds until the watchdog's next look: `pause`, or less where a cap could be reached
    sooner (the CPU cap by a tree busy on every core, the wall clock's deadline `wall_left`
    seconds away), but never less than `LOOK_SECONDS`."""
    soonest = min(pause, wall_left)
    if limits.cpu_seconds is not None:
        soonest = min(soonest, (limits.cpu_seconds - cpu) / CORES)
    return max(LOOK_SECONDS, soonest)


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start one sandbox: the command line, the step the child takes before it runs
    (`preexec`), and the staging folder to remove once it has ended (`cleanup`)."""

    argv: list[str]
    preexec: Callable[[], None]
    staging: Path | None

    def cleanup(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)


def prepare(
    command: Sequence[str],
    limits: Limits,
    *,
    code: Iterable[Path] = (),
    environment: Mapping[str, str] | None = None,
    uid: int | None = None,
    workdir: str = SCRATCH,
) -> Launch:
    """The launch of `command` in a sandbox with the `code` folders read-only; `uid` is the user
    a root caller runs it as (default: one chosen by this process's id), ignored for anyone
    else. `SandboxUnavailable` without bubblewrap."""
    bwrap = find_bwrap()
    layout = host_layout(code)
    told = {"PATH": search_path(), **(environment or {})}
    if os.geteuid() != 0:
        user = os.getuid()
        argv = bwrap_command(bwrap, layout, limits, told, command, uid=user, workdir=workdir)
        return Launch(argv, _limited(limits, extra_tasks=user_tasks(user)), None)
    staging = Path(tempfile.mkdtemp(prefix="arbiter-sandbox-"))
    staging.chmod(0o711)
    closed = [folder.resolve() for folder in code if not _open_to_all(folder)]
    copies = {
        str(folder): _open_copy(folder, staging / f"copy-{n}") for n, folder in enumerate(closed)
    }
    layout, stages = _staged(layout, staging, copies)
    user = uid if uid is not None else _fresh_uid()
    argv = bwrap_command(bwrap, layout, limits, told, command, uid=user, workdir=workdir)
    return Launch(argv, _as_user(user, limits, stages), staging)


def _fresh_uid() -> int:
    """The user a root caller's next sandbox runs as: the next of this process's block."""
    block = (os.getpid() % PROCESS_BLOCKS) * UIDS_PER_PROCESS
    return FIRST_UID + block + next(_launches) % UIDS_PER_PROCESS


@contextlib.asynccontextmanager
async def sandboxed(
    command: Sequence[str],
    limits: Limits,
    *,
    code: Iterable[Path] = (),
    environment: Mapping[str, str] | None = None,
    uid: int | None = None,
    workdir: str = SCRATCH,
    on_output: Callable[[bytes], None] | None = None,
) -> AsyncIterator[SandboxedProcess]:
    """Run `command` as `prepare` lays it out, for as long as the block lasts: leaving it stops
    a run still going. `on_output` is given what it prints as it comes (the kept part)."""
    launch = prepare(command, limits, code=code, environment=environment, uid=uid, workdir=workdir)
    ours, theirs = socket.socketpair()
    try:
        # started from this thread, not a worker's: bubblewrap's --die-with-parent follows
        # the thread that started it, and a worker thread ends when idle
        process = subprocess.Popen(  # noqa: ASYNC220 (a fork and exec: milliseconds)
            launch.argv,
            stdin=theirs.fileno(),
            stdout=theirs.fileno(),
            stderr=subprocess.PIPE,
            cwd="/",
            preexec_fn=launch.preexec,
        )
        theirs.close()
        sandbox = SandboxedProcess(process, ours, limits, on_output)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sandbox._run)
                try:
                    yield sandbox
                finally:
                    sandbox.stop()
                    with trio.CancelScope(shield=True):
                        await sandbox._ended.wait()
        finally:
            await sandbox.channel.aclose()
    finally:
        theirs.close()
        ours.close()
        launch.cleanup()


def _stream(pipe: IO[bytes] | None) -> trio.lowlevel.FdStream:
    """One of the child's pipes as a trio stream (of its own copy of the descriptor)."""
    assert pipe is not None
    with pipe:
        return trio.lowlevel.FdStream(os.dup(pipe.fileno()))


async def _exited(process: subprocess.Popen[bytes]) -> int:
    """Wait for the child to end, without a thread; its status."""
    ended = os.pidfd_open(process.pid)
    try:
        await trio.lowlevel.wait_readable(ended)
    finally:
        os.close(ended)
    return process.wait()


def _open_to_all(folder: Path) -> bool:
    """Whether every user may list and read `folder`."""
    return folder.stat().st_mode & 0o005 == 0o005


def _open_copy(folder: Path, copy: Path) -> str:
    """A copy of `folder` every user may read: a code folder root keeps private (a module in a
    private temporary folder) is shown to the sandbox's own user as this copy."""
    shutil.copytree(folder, copy, symlinks=True)
    for place, _, files in os.walk(copy):
        Path(place).chmod(0o755)
        for name in files:
            path = Path(place) / name
            if not path.is_symlink():
                path.chmod(
                    path.stat().st_mode | 0o444 | (0o111 if path.stat().st_mode & 0o100 else 0)
                )
    return str(copy)


def _staged(
    layout: Layout, staging: Path, copies: Mapping[str, str]
) -> tuple[Layout, list[tuple[str, str]]]:
    """`layout` with every folder outside the system's seen through an empty folder of
    `staging` (a code folder's open copy in `copies` in its place), and the (source, stage)
    pairs to bind before bubblewrap runs."""
    binds: list[Bind] = []
    stages: list[tuple[str, str]] = []
    for number, bind in enumerate(layout.binds):
        if bind.source in SYSTEM_FOLDERS:
            binds.append(bind)
            continue
        stage = staging / str(number)
        stage.mkdir()
        stages.append((copies.get(bind.source, bind.source), str(stage)))
        binds.append(Bind(str(stage), bind.dest))
    return Layout(tuple(binds), layout.links), stages


def _as_user(uid: int, limits: Limits, stages: list[tuple[str, str]]) -> Callable[[], None]:
    """What the child does before bubblewrap when root runs it: bind the staged folders in a
    mount namespace of its own, become `uid` with no groups, set the limits."""
    libc = ctypes.CDLL(None, use_errno=True)
    set_limits = _limited(limits, extra_tasks=0)

    def prepare() -> None:
        if libc.unshare(_CLONE_NEWNS) != 0:
            raise OSError(ctypes.get_errno(), "cannot make a mount namespace for the sandbox")
        if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
            raise OSError(ctypes.get_errno(), "cannot make the sandbox's mounts private")
        for source, stage in stages:
            if libc.mount(source.encode(), stage.encode(), None, _MS_BIND | _MS_REC, None) != 0:
                raise OSError(ctypes.get_errno(), f"cannot show {source} to the sandbox")
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        set_limits()

    return prepare


def _limited(limits: Limits, extra_tasks: int) -> Callable[[], None]:
    """The child's step that sets the kernel's per-process limits (`extra_tasks`: the user's
    processes and threads that RLIMIT_NPROC counts besides the sandbox's)."""
    caps = [
        (resource.RLIMIT_DATA, limits.memory),
        (resource.RLIMIT_NPROC, limits.processes + extra_tasks),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_FSIZE, limits.file_size),
        (resource.RLIMIT_CORE, 0),
    ]
    if limits.cpu_seconds is not None:
        # a backstop: the watchdog stops the whole tree first; this stops one process alone
        caps.append((resource.RLIMIT_CPU, math.ceil(limits.cpu_seconds) + 1))

    def set_limits() -> None:
        for which, value in caps:
            resource.setrlimit(which, (value, value))

    return set_limits
