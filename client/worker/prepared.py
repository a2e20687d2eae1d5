"""A submission made ready to run: its files in a folder of their own, C and C++ built there, and
the command that plays its seat.

The folder is made once per content hash, under the worker's cache, and shown read-only to
every sandbox that runs it. C and C++ are built with gcc inside a sandbox of their own (the
build's limits: a compiler given hostile sources is as much a risk as the program), which writes
the binary to its one channel: the build cannot write anywhere outside, so the worker keeps
what it sends. What gcc prints is the build log; a build that fails is a `BuildFailed` whose
sentence and log the author reads.

Python programs run on the worker's own interpreter (`python3 FILE` runs with it, which the
sandbox shows with Arbiter's folders); agent object modules and Player modules are played by
Arbiter's own runner (`module_runner`).
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import trio

from arbiter.client.sandbox.limits import MIB, Limits
from arbiter.client.sandbox.process import sandboxed
from arbiter.protocol.submission import COMPILED_RUN, Manifest, Submission

BUILD_LIMITS = Limits(memory=1024 * MIB, processes=16, cpu_seconds=60.0, wall_seconds=120.0)
"""gcc's: a large program builds in seconds; one that takes a minute of CPU is not a student's."""
BINARY = COMPILED_RUN.removeprefix("./")
"""The built program's file name in the submission's folder."""
COMPILERS = {"c": "gcc", "cpp": "g++"}
PYTHONS = ("python", "python3")
BUILD_LOG = ".arbiter-build-log"
RUNNER = [sys.executable, "-m", "arbiter.client.worker.module_runner"]


class BuildFailed(Exception):
    """The submission's sources did not build; `log` is what the compiler said."""

    def __init__(self, sentence: str, log: str) -> None:
        super().__init__(sentence)
        self.log = log


@dataclass(frozen=True, slots=True)
class Prepared:
    """What a sandbox runs for a submission: `command` in `folder` (read-only)."""

    folder: Path
    command: list[str]
    log: str
    """The build's log (empty for what is not built)."""


async def prepare(submission: Submission, folder: Path) -> Prepared:
    """`submission` laid out (and built) in `folder`, unless it is there already."""
    manifest = submission.manifest
    log = await trio.to_thread.run_sync(_laid_out, folder)
    if log is None:
        await trio.to_thread.run_sync(_lay_out, submission, folder)
        log = await _build(manifest, folder) if manifest.sources else ""
        await trio.to_thread.run_sync(_mark_ready, folder, log)
    return Prepared(folder, command_for(manifest, folder), log)


def _laid_out(folder: Path) -> str | None:
    """The build log of a folder prepared before, or None if it is not (entirely)."""
    try:
        return (folder / BUILD_LOG).read_text()
    except FileNotFoundError:
        return None


def _lay_out(submission: Submission, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    for path, data in submission.files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _mark_ready(folder: Path, log: str) -> None:
    """Written last: a folder with its build log is complete."""
    (folder / BUILD_LOG).write_text(log)


def command_for(manifest: Manifest, folder: Path) -> list[str]:
    """The command that plays the seat, run in `folder`."""
    if manifest.form in ("module", "player"):
        return [*RUNNER, manifest.form, str(folder / manifest.entry)]
    words = shlex.split(manifest.run or "")
    if words and words[0] in PYTHONS:
        words[0] = sys.executable
    return words


async def _build(manifest: Manifest, folder: Path) -> str:
    """Build `manifest.sources` into `folder/BINARY`; the compiler's log (`BuildFailed`).

    The binary comes back over the sandbox's channel, its size first; the build waits for a line
    back before it exits, because the sandbox closes the channel as its process ends and bytes
    still unread would be lost with it."""
    compiler = COMPILERS[manifest.language]
    sources = [str(folder / source) for source in manifest.sources]
    built = f"/scratch/{BINARY}"
    script = (
        f"{compiler} -O2 -o {built} {shlex.join(sources)} -lm"
        f" && stat -c %s {built} && cat {built} && read done"
    )
    async with sandboxed(["sh", "-c", script], BUILD_LIMITS, code=[folder]) as build:
        binary = await _receive_binary(build.channel)
        ended = await build.ended()
    log = build.output().decode(errors="replace")
    if not ended.normal or binary is None:
        raise BuildFailed(f"the build failed: {ended.sentence}", log)
    target = trio.Path(folder / BINARY)
    await target.write_bytes(binary)
    await target.chmod(0o755)
    return log


async def _receive_binary(channel: trio.SocketStream) -> bytes | None:
    """The binary a build sends (its size in digits and a line feed, then its bytes), answered
    with a line once whole; None if the build ended first."""
    received = bytearray()
    size: int | None = None
    try:
        while size is None or len(received) < size:
            if size is None and b"\n" in received:
                line, _, rest = bytes(received).partition(b"\n")
                size, received = int(line), bytearray(rest)
                continue
            chunk = await channel.receive_some(65536)
            if not chunk:
                return None
            received += chunk
        await channel.send_all(b"\n")
    except (trio.ClosedResourceError, trio.BrokenResourceError, ValueError):
        return None
    return bytes(received)
