"""bench/launch.py's shared pieces that every bench's figures rest on."""

from __future__ import annotations

import importlib.util
import math
from types import ModuleType

import pytest

from tests.bench.runs import ROOT


@pytest.fixture(scope="module")
def launch() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_launch", ROOT / "bench" / "launch.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_percentile_is_the_nearest_rank(launch: ModuleType) -> None:
    hundred = [float(value) for value in range(100, 0, -1)]  # 100 down to 1, unsorted
    assert launch.percentile(hundred, 0.99) == 99.0  # 99 of the 100 are at most 99
    assert launch.percentile(hundred, 0.5) == 50.0
    assert launch.percentile(hundred, 1.0) == 100.0
    assert launch.percentile([7.0], 0.99) == 7.0 == launch.percentile([7.0], 0.0)
    assert math.isnan(launch.percentile([], 0.5))
