"""What a test leaves in the temporary folder: each test process gets a temporary folder of its
own (`TMPDIR`, which the programs it starts inherit), and a test fails when a folder or file
named `arbiter-*` that appeared there during it is still there at its end. Arbiter's programs
make those (a sandbox's staging, a worker's archives, a local tournament's store) and must remove
them on every way out, a failed launch or a stop by signal included."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "arbiter-"


@contextmanager
def own_temporary_folder() -> Iterator[Path]:
    """A fresh folder as this process's `TMPDIR` (and `tempfile`'s) while the block lasts, then
    removed. It is open to every user as /tmp is (mode 1777): a sandbox's user, not root, reads
    the staging a root caller makes in it."""
    folder = Path(tempfile.mkdtemp(prefix="pytest-tmpdir-"))
    folder.chmod(0o1777)
    before = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = str(folder), str(folder)
    try:
        yield folder
    finally:
        if before[0] is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = before[0]
        tempfile.tempdir = before[1]
        shutil.rmtree(folder, ignore_errors=True)


def ours(folder: Path) -> set[str]:
    """The names of `folder`'s entries that Arbiter's programs make."""
    return {entry.name for entry in folder.iterdir() if entry.name.startswith(PREFIX)}


@contextmanager
def nothing_left(folder: Path) -> Iterator[None]:
    """Fail (`AssertionError`) if an `arbiter-*` entry of `folder` that appeared during the block
    is still there at its end. The entries are removed first, so that the next test starts clean
    and is not blamed for them."""
    before = ours(folder)
    yield
    left = sorted(ours(folder) - before)
    for name in left:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    assert not left, f"the test left {', '.join(left)} in the temporary folder {folder}"
