"""Whether a command runs its Player modules and programs sandboxed: `--no-sandbox`, and the
check that bubblewrap is there before anything starts."""

from __future__ import annotations

import argparse
import sys

from arbiter.client.sandbox.toolchain import find_bwrap

NO_SANDBOX_WARNING = (
    "arbiter: warning: --no-sandbox: Player modules and programs run unprotected, with your"
    " rights over your files, your network and this machine"
)


def add_sandbox_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run Player modules and programs without the sandbox (only code you trust)",
    )


def use_sandbox(args: argparse.Namespace) -> bool:
    """Whether to sandbox, as `args` asks: with --no-sandbox, False after a warning on stderr;
    else True once bubblewrap is found (`SandboxUnavailable` with what to do if not)."""
    if args.no_sandbox:
        print(NO_SANDBOX_WARNING, file=sys.stderr, flush=True)
        return False
    find_bwrap()
    return True
