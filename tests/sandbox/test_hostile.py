"""Hostile agents as real processes in the real sandbox: each one's `Ending` names what stopped
it, and nothing outside notices (no connection reaches the test's listener, no file outside is
read, no process is left behind)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from arbiter.client.sandbox.limits import EndingKind
from tests.sandbox.helpers import SMALL, code_folder, need_bwrap, run_script

pytestmark = pytest.mark.usefixtures("bwrap")


@pytest.fixture
def bwrap() -> None:
    need_bwrap()


async def test_reading_another_folder_the_database_and_the_password_file_finds_nothing(
    tmp_path: Path,
) -> None:
    other = tmp_path / "other-submission"
    other.mkdir(mode=0o755)
    (other / "agent.py").write_text("SECRET = 'another student'\n")
    (other / "agent.py").chmod(0o644)
    database = tmp_path / "arbiter.db"
    database.write_text("tokens")
    database.chmod(0o644)
    code = code_folder(
        tmp_path,
        f"""
for path in ({str(other / "agent.py")!r}, {str(database)!r}, "/etc/passwd", "/root", "/home"):
    try:
        open(path).read()
        print(path, "read")
    except OSError as error:
        print(path, type(error).__name__)
""",
    )
    ended, output = await run_script(code)
    assert ended.normal, ended
    assert f"{other / 'agent.py'} FileNotFoundError" in output
    assert f"{database} FileNotFoundError" in output
    assert "/etc/passwd FileNotFoundError" in output
    assert " read" not in output


async def test_no_connection_reaches_a_port_outside_and_only_loopback_is_seen(
    tmp_path: Path,
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = code_folder(
            tmp_path,
            f"""
import socket
print("interfaces", sorted(name for _, name in socket.if_nameindex()))
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    print("connected")
except OSError as error:
    print("refused", type(error).__name__)
""",
        )
        ended, output = await run_script(code)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert ended.normal, ended
    assert "interfaces ['lo']" in output
    assert "refused ConnectionRefusedError" in output


async def test_forking_without_end_stops_at_the_process_limit(tmp_path: Path) -> None:
    code = code_folder(tmp_path, "import os, time\nwhile True:\n    os.fork()\n")
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.PROCESSES, ended
    assert ended.sentence == "crash: process limit 16 reached"


async def test_allocating_10_gb_stops_at_the_memory_limit(tmp_path: Path) -> None:
    code = code_folder(tmp_path, "hoard = bytearray(10 * 1000**3)\n")
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.MEMORY, ended
    assert ended.sentence == "crash: memory limit 256 MiB exceeded"


@pytest.mark.parametrize("folder", ["/scratch", "/tmp", "/"])
async def test_writing_10_gb_stops_at_the_disk_limit(tmp_path: Path, folder: str) -> None:
    code = code_folder(
        tmp_path,
        f"""
import os
block = b"x" * 1024 * 1024
with open(os.path.join({folder!r}, "big"), "wb") as file:
    for _ in range(10 * 1000):
        file.write(block)
""",
    )
    ended, output = await run_script(code)
    if folder == "/scratch":
        assert ended.kind is EndingKind.DISK, ended
        assert ended.sentence.startswith("crash: disk limit exceeded (files up to 4 MiB")
    else:  # nothing but the scratch folder is writable at all
        assert ended.kind is EndingKind.EXIT, ended
        assert "Read-only file system" in output or "No such file" in output


async def test_writing_many_files_stops_when_the_scratch_folder_is_full(tmp_path: Path) -> None:
    code = code_folder(
        tmp_path,
        """
block = b"x" * 1024 * 1024
for number in range(10 * 1000):
    with open(f"/scratch/part-{number}", "wb") as file:
        file.write(block)
""",
    )
    ended, output = await run_script(code)
    assert ended.kind is EndingKind.DISK, ended
    assert "No space left on device" in output


async def test_printing_1_gb_stops_at_the_output_limit(tmp_path: Path) -> None:
    code = code_folder(tmp_path, "import sys\nfor _ in range(1000):\n    print('x' * 1000**2)\n")
    ended, output = await run_script(code)
    assert ended.kind is EndingKind.OUTPUT, ended
    assert ended.sentence == "crash: output limit 64 KiB exceeded"
    assert len(output) == 64 * 1024


async def test_a_busy_cpu_stops_at_the_cpu_limit(tmp_path: Path) -> None:
    code = code_folder(tmp_path, "while True:\n    pass\n")
    began = time.monotonic()
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.CPU, ended
    assert ended.sentence == "crash: CPU time limit 2 s exceeded"
    assert time.monotonic() - began < SMALL.wall_seconds  # type: ignore[operator]


async def test_busy_threads_count_together_against_the_cpu_limit(tmp_path: Path) -> None:
    code = code_folder(
        tmp_path,
        """
import os
for _ in range(3):
    if os.fork() == 0:
        break
while True:
    pass
""",
    )
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.CPU, ended


async def test_sleeping_for_ever_stops_at_the_wall_clock_limit(tmp_path: Path) -> None:
    code = code_folder(tmp_path, "import time\ntime.sleep(10**6)\n")
    ended, _ = await run_script(code, SMALL.__class__(wall_seconds=1))
    assert ended.kind is EndingKind.WALL, ended
    assert ended.sentence == "crash: wall-clock limit 1 s exceeded"


async def test_killing_its_parent_ends_the_sandbox_and_nothing_else(tmp_path: Path) -> None:
    code = code_folder(
        tmp_path, "import os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(60)\n"
    )
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.SIGNAL, ended
    assert "SIGKILL" in ended.sentence


async def test_a_segfault_is_named(tmp_path: Path) -> None:
    code = code_folder(tmp_path, "import ctypes\nctypes.string_at(0)\n")
    ended, _ = await run_script(code)
    assert ended.kind is EndingKind.SIGNAL, ended
    assert ended.sentence.startswith("crash: killed by SIGSEGV")


async def test_ptrace_mount_and_unshare_are_refused(tmp_path: Path) -> None:
    code = code_folder(
        tmp_path,
        f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
calls = {{
    "ptrace-relay": lambda: libc.ptrace(16, os.getppid(), None, None),  # PTRACE_ATTACH
    "ptrace-outside": lambda: libc.ptrace(16, {os.getpid()}, None, None),
    "mount": lambda: libc.mount(b"none", b"/scratch", b"tmpfs", 0, None),
    "unshare": lambda: libc.unshare(0x10000000),  # CLONE_NEWUSER
    "unshare-net": lambda: libc.unshare(0x40000000),  # CLONE_NEWNET
}}
for name, call in calls.items():
    result = call()
    print(name, "refused" if result == -1 else "allowed", os.strerror(ctypes.get_errno()))
""",
    )
    ended, output = await run_script(code)
    assert ended.normal, ended
    for name in ("ptrace-relay", "ptrace-outside", "mount", "unshare", "unshare-net"):
        assert f"{name} refused" in output, output
