"""`pip install .` on a machine without a compiler: the kernels and the compiled searches are
skipped, the install succeeds, and the rules, alpha-beta and MCTS run, and pass their tests, on
the pure-Python path.

"No compiler" is `CC=false`: every compile fails as it would where gcc is missing. The checkout
is copied to a temporary folder (pip builds in the source tree) and installed into a throwaway
venv without its dependencies (pip still fetches the build backend, as every `pip install .`
does); the venv borrows this environment's packages (trio, pytest, ...) through a path file,
which adds their folder but not this environment's editable install of the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.processes import ROOT

RULES_TESTS = [
    "tests/games/test_amazons.py",
    "tests/games/test_war_of_life.py",
    "tests/games/test_native_amazons.py",
    "tests/games/test_native_war_of_life.py",
    "tests/agents/test_search.py",
    "tests/agents/test_native_search.py",
    "tests/agents/test_native_tree.py",
]
KERNELS = ["amazons", "war_of_life"]


def run(*command: str | Path, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, cwd=cwd, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.long
def test_pip_install_without_a_compiler_installs_the_pure_python_rules(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "*.egg-info", "*.so", "__pycache__", ".hypothesis", ".*cache"
        ),
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "PYTHONPATH")}
    env.update(CC="false", PIP_DISABLE_PIP_VERSION_CHECK="1", ARBITER_PURE_PYTHON="")
    installed = run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", source,
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert "Successfully installed arbiter" in installed
    probe = (
        "import arbiter.games, arbiter.games._native as n, arbiter.agents.search.mcts as m; "
        f"print(arbiter.games.__file__, [n.kernel(k) for k in {KERNELS!r}], "
        "m.compiled_search(arbiter.games.get_game('amazons')), "
        "m.compiled_tree(arbiter.games.get_game('amazons')))"
    )
    where, kernels = run(python, "-c", probe, cwd=tmp_path, env=env).split(" ", 1)
    assert where.startswith(str(site)), where  # the copy installed here, not the checkout
    assert kernels.strip() == "[None, None] None None"
    tested = run(
        python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *RULES_TESTS,
        cwd=source, env=env,
    )  # fmt: skip
    assert " passed" in tested, tested
    assert " skipped" in tested, tested  # the lockstep tests, without a kernel to compare
