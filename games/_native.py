"""Where a game's compiled kernel is loaded, if it was built.

The Python modules are the rules' one statement; a kernel (games/native/NAME.c) computes the
same answers faster, and tests play both in lockstep. `ARBITER_PURE_PYTHON=1` refuses every
kernel, so the pure-Python path can be run and measured on a machine that has both.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def pure_python() -> bool:
    return os.environ.get("ARBITER_PURE_PYTHON", "") not in ("", "0")


def kernel(name: str) -> ModuleType | None:
    """The compiled module `arbiter.games._NAME_c`, or None where it was not built or is
    refused."""
    if pure_python():
        return None
    try:
        return importlib.import_module(f"arbiter.games._{name}_c")
    except ImportError:
        return None
