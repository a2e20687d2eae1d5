"""Every kernel in games/native/, and every compiled search in agents/native/ (on its game's rules
header), compiles without a warning under `-Wall -Wextra`: the warnings
gcc gives there (an unused result, a signed comparison, a missing initializer) are where
memory-unsafe C usually starts. Skipped where no C compiler is installed, except under CI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from tests.processes import ROOT

HEADERS = [ROOT / "games" / "native", ROOT / "agents" / "native"]
KERNELS = sorted(source for folder in HEADERS for source in folder.glob("*.c"))


@pytest.mark.parametrize(
    "source", KERNELS, ids=[f"{source.parent.parent.name}-{source.stem}" for source in KERNELS]
)
def test_kernel_compiles_without_warnings(source: Path, tmp_path: Path) -> None:
    compiler = shutil.which("gcc")
    if compiler is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and no gcc to build the kernels with")
        pytest.skip("no gcc on this machine")
    include = sysconfig.get_paths()["include"]
    built = subprocess.run(
        [compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", f"-I{include}",
         *(f"-I{folder}" for folder in HEADERS), str(source),
         "-o", str(tmp_path / f"{source.stem}.so")],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
