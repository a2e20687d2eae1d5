"""The sandbox's command line, limits' sentences and endings, as pure data."""

from __future__ import annotations

import signal

import pytest

from arbiter.client.sandbox.command import SCRATCH, Bind, Layout, bwrap_command
from arbiter.client.sandbox.ending import ending
from arbiter.client.sandbox.limits import MIB, EndingKind, Limits

LAYOUT = Layout((Bind("/usr", "/usr"), Bind("/stage/0", "/home/me/bot")), (("usr/bin", "/bin"),))


def argv(**environment: str) -> list[str]:
    return bwrap_command(
        "/usr/bin/bwrap",
        LAYOUT,
        Limits(scratch=8 * MIB),
        environment,
        ["python", "bot.py"],
        uid=60001,
    )


def test_every_namespace_is_new_and_no_capability_or_user_namespace_is_left() -> None:
    words = argv()
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent"):
        assert flag in words
    assert words[words.index("--cap-drop") + 1] == "ALL"
    assert words[words.index("--uid") + 1] == words[words.index("--gid") + 1] == "60001"


def test_only_the_given_variables_and_where_to_write_are_passed() -> None:
    words = argv(ARBITER_NAME="bot")
    assert "--clearenv" in words
    pairs = {words[i + 1]: words[i + 2] for i, word in enumerate(words) if word == "--setenv"}
    assert pairs == {
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "ARBITER_NAME": "bot",
    }


def test_folders_are_read_only_and_the_capped_scratch_is_the_one_writable_place() -> None:
    words = argv()
    binds = [tuple(words[i + 1 : i + 3]) for i, word in enumerate(words) if word == "--ro-bind"]
    assert binds == [("/usr", "/usr"), ("/stage/0", "/home/me/bot")]
    assert "--bind" not in words
    assert words[words.index("--size") + 1] == str(8 * MIB)
    assert words[words.index("--tmpfs") + 1] == SCRATCH
    remounts = [words[i + 1] for i, word in enumerate(words) if word == "--remount-ro"]
    assert remounts == ["/", "/dev"]
    assert words.index("--remount-ro") > max(i for i, w in enumerate(words) if w == "--ro-bind")
    assert words[-3:] == ["--", "python", "bot.py"]


def test_a_sandbox_needs_a_command() -> None:
    with pytest.raises(ValueError, match="needs a command"):
        bwrap_command("bwrap", LAYOUT, Limits(), {}, [], uid=1)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="memory limit must be positive"):
        Limits(memory=0)
    with pytest.raises(ValueError, match="cpu_seconds limit must be positive or None"):
        Limits(cpu_seconds=-1)


def test_each_limit_has_its_sentence() -> None:
    limits = Limits(cpu_seconds=1.5, wall_seconds=30)
    assert limits.sentence(EndingKind.MEMORY) == "crash: memory limit 512 MiB exceeded"
    assert limits.sentence(EndingKind.PROCESSES) == "crash: process limit 32 reached"
    assert limits.sentence(EndingKind.OUTPUT) == "crash: output limit 1 MiB exceeded"
    assert limits.sentence(EndingKind.CPU) == "crash: CPU time limit 1.5 s exceeded"
    assert limits.sentence(EndingKind.WALL) == "crash: wall-clock limit 30 s exceeded"
    assert limits.sentence(EndingKind.DISK).startswith("crash: disk limit exceeded")


@pytest.mark.parametrize(
    ("status", "stopped", "output", "kind"),
    [
        (0, None, b"", EndingKind.EXIT),
        (3, None, b"boom", EndingKind.EXIT),
        (1, None, b"Traceback...\nMemoryError\n", EndingKind.MEMORY),
        (1, None, b"OSError: [Errno 28] No space left on device\n", EndingKind.DISK),
        (
            1,
            None,
            b"BlockingIOError: [Errno 11] Resource temporarily unavailable",
            EndingKind.PROCESSES,
        ),
        (128 + signal.SIGSEGV, None, b"", EndingKind.SIGNAL),
        (-signal.SIGKILL, EndingKind.WALL, b"", EndingKind.WALL),
        (128 + signal.SIGXFSZ, None, b"", EndingKind.DISK),
        (128 + signal.SIGXCPU, None, b"", EndingKind.CPU),
        (-signal.SIGKILL, EndingKind.STOPPED, b"", EndingKind.STOPPED),
    ],
)
def test_an_ending_is_told_from_the_watchdog_then_the_status_then_the_last_words(
    status: int, stopped: EndingKind | None, output: bytes, kind: EndingKind
) -> None:
    told = ending(Limits(cpu_seconds=1, wall_seconds=5), status, stopped, output)
    assert told.kind is kind
    assert told.normal == (kind is EndingKind.EXIT and status == 0)
