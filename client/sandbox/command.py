"""The bubblewrap command line of one sandbox, built from data; pure.

What the sandbox sees, and why:

- a fresh namespace of every kind (`--unshare-all`), so no network but its own loopback, no
  other process, no other mount, no System V IPC; its user namespace forbids making another
  (`--disable-userns`), the one route to capabilities a user namespace would give back;
- no capability (`--cap-drop ALL`), a session of its own (`--new-session`, so it cannot push
  keystrokes into the terminal that started it), and no life past its parent's
  (`--die-with-parent`);
- the system's programs and libraries and the Python that runs Arbiter, read-only; the agent's
  own code folder, read-only, at the path it has outside (so a command naming it works
  unchanged); nothing of /etc, /home, /tmp or any other folder;
- one writable folder, `/scratch`, a tmpfs capped in bytes, which is also its home and its
  temporary folder; the rest of its root is remounted read-only, so nothing else is writable
  and nothing grows past the cap;
- an environment of only the variables given (`--clearenv`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arbiter.client.sandbox.limits import Limits

SCRATCH = "/scratch"
"""The sandbox's one writable folder: its home, its temporary folder and where it starts."""
BASE_ENVIRONMENT = {
    "HOME": SCRATCH,
    "TMPDIR": SCRATCH,
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}
"""What every sandboxed program is told besides its caller's variables: where it may write."""


@dataclass(frozen=True, slots=True)
class Bind:
    """A folder of the machine (`source`) seen read-only inside the sandbox at `dest`."""

    source: str
    dest: str


@dataclass(frozen=True, slots=True)
class Layout:
    """The sandbox's file system: read-only folders, and symbolic links (`/bin` -> `usr/bin` on
    a merged-/usr system) as (target, path) pairs."""

    binds: tuple[Bind, ...]
    links: tuple[tuple[str, str], ...] = ()


def bwrap_command(
    bwrap: str,
    layout: Layout,
    limits: Limits,
    environment: Mapping[str, str],
    command: Sequence[str],
    *,
    uid: int,
    workdir: str = SCRATCH,
) -> list[str]:
    """The command that runs `command` in a sandbox laid out as `layout`, as user `uid` inside,
    starting in `workdir`, with `environment` on top of `BASE_ENVIRONMENT` and nothing else."""
    if not command:
        raise ValueError("a sandbox needs a command to run")
    argv = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns"]
    argv += ["--uid", str(uid), "--gid", str(uid), "--hostname", "sandbox"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
    for name, value in {**BASE_ENVIRONMENT, **environment}.items():
        argv += ["--setenv", name, value]
    for bind in layout.binds:
        argv += ["--ro-bind", bind.source, bind.dest]
    for target, path in layout.links:
        argv += ["--symlink", target, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--size", str(limits.scratch), "--perms", "0700", "--tmpfs", SCRATCH]
    argv += ["--remount-ro", "/", "--remount-ro", "/dev", "--chdir", workdir, "--", *command]
    return argv
