"""What of this machine a sandbox sees: the system's folders, the Python running Arbiter, the
agent's code, and where bubblewrap is.

The system folders are the ones programs and their libraries live in (`/usr`, and `/bin`,
`/lib`... as they are here: links into `/usr` on a merged-/usr system, folders elsewhere); the
Python environment is this interpreter's (its prefix, the installation it was made from, and
Arbiter's own folders, so a Python agent imports `arbiter` as it does outside). `/etc` is left
out: an agent needs none of it, and it names the machine's users and services.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

from arbiter.client.sandbox.command import Bind, Layout

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
ROOMS = ("games", "protocol", "agents", "client", "server", "bridges")
INSTALL_HINT = (
    "the sandbox needs bubblewrap: install it (Debian and Ubuntu: `sudo apt-get install"
    " bubblewrap`), or pass --no-sandbox to run agents unprotected, with your own rights"
)


class SandboxUnavailable(Exception):
    """bubblewrap cannot be found; the sentence says how to install it or opt out."""


def find_bwrap() -> str:
    """The path of bubblewrap's `bwrap`, or `SandboxUnavailable` saying what to do."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable(INSTALL_HINT)
    return found


def host_layout(code: Iterable[Path]) -> Layout:
    """The sandbox's file system on this machine, with the `code` folders read-only."""
    binds: list[Bind] = []
    links: list[tuple[str, str]] = []
    for folder in SYSTEM_FOLDERS:
        path = Path(folder)
        if path.is_symlink():
            links.append((os.readlink(path), folder))
        elif path.is_dir():
            binds.append(Bind(folder, folder))
    binds.extend(
        Bind(str(folder), str(folder))
        for folder in _outermost([*python_folders(), *(path.resolve() for path in code)])
        if not any(folder.is_relative_to(system) for system in SYSTEM_FOLDERS)
    )
    return Layout(tuple(binds), tuple(links))


def search_path() -> str:
    """PATH inside: this interpreter's folder first (so `python` is the one that has Arbiter),
    then the system's."""
    return os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"])


def python_folders() -> list[Path]:
    """This interpreter's folders and Arbiter's: what `import arbiter` needs inside."""
    folders = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent}
    for room in ROOMS:
        spec = importlib.util.find_spec(f"arbiter.{room}")
        if spec is not None and spec.submodule_search_locations:
            folders.update(Path(place) for place in spec.submodule_search_locations)
    return [folder.resolve() for folder in folders]


def _outermost(folders: Iterable[Path]) -> list[Path]:
    """`folders` without those inside another of them: one bind covers both."""
    unique = sorted(set(folders), key=lambda path: len(path.parts))
    kept: list[Path] = []
    for folder in unique:
        if not any(folder.is_relative_to(outer) for outer in kept):
            kept.append(folder)
    return kept
