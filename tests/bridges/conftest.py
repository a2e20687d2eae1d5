"""The bridges need the `openspiel` extra. Each test module skips itself where it is not
installed (`pytest.importorskip`); under CI a missing OpenSpiel or PettingZoo is a failure
instead (`make test` installs the extra)."""

from __future__ import annotations

import importlib.util
import os

MISSING = [name for name in ("pyspiel", "pettingzoo") if importlib.util.find_spec(name) is None]

if MISSING and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI needs the openspiel extra: {', '.join(MISSING)} is not installed")
