"""The shape of the package: one installed name whose types a student's mypy reads, rooms that
import one way, and a server whose every module docs/architecture.md names.

`make lint` runs the import contracts too; they are here as well so that `make test` (and so CI)
fails the moment a room reaches where docs/architecture.md says it may not.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("games", "protocol", "server", "client", "agents", "bridges")
BIN = Path(sys.executable).parent
FILE_TYPES = {"py", "md", "js", "c", "db", "json", "txt", "lock", "log", "org"}
"""Endings that make `server.db`, `client.js`, `client.c` or `games.example.org` a file or host
name, not a module."""


def test_the_import_contracts_hold(tmp_path: Path) -> None:
    tree = tmp_path / "arbiter"
    tree.mkdir()
    for room in ROOMS:
        (tree / room).symlink_to(ROOT / room)
    run = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `pip` builds from the checkout, as a student would install it."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "source"  # a copy: building in the checkout would leave build/ there
    for room in ROOMS:
        shutil.copytree(ROOT / room, source / room, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = folder.glob("arbiter-*.whl")
    return built


def test_the_wheel_installs_one_top_level_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
        names = set(archive.namelist())
    assert {top for top in tops if not top.endswith(".dist-info")} == {"arbiter"}
    for room in ROOMS:
        assert f"arbiter/{room}/__init__.py" in names
    assert "arbiter/agents/templates/amazons.py" in names
    for page in ("index.html", "app.js", "boards.js", "style.css"):  # the web front's files
        assert f"arbiter/server/web/static/{page}" in names
    for room in ROOMS:  # `arbiter` is a namespace package: each room carries PEP 561's marker
        assert f"arbiter/{room}/py.typed" in names


def test_a_students_mypy_sees_the_installed_packages_types(wheel: Path, tmp_path: Path) -> None:
    """Without the marker mypy refuses to read an installed package ("missing library stubs or
    py.typed marker") and the student's mistake below goes unseen."""
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "-t", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    student = tmp_path / "student"
    student.mkdir()
    (student / "player.py").write_text(
        "from arbiter.games import get_game\n\nmoves: int = get_game('amazons')\n"
    )
    run = subprocess.run(
        [str(BIN / "mypy"), "--strict", "player.py"],
        cwd=student,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "player.py:3: error: Incompatible types in assignment" in run.stdout, run.stdout
    assert '"Game[Any, Any]"' in run.stdout, run.stdout
    assert "py.typed" not in run.stdout


def test_a_students_folder_cannot_shadow_the_package(tmp_path: Path) -> None:
    (tmp_path / "games.py").write_text("raise SystemExit('the student games.py was imported')\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("raise SystemExit('student agents/')\n")
    (tmp_path / "protocol.py").write_text("raise SystemExit('the student protocol.py')\n")
    run = subprocess.run(
        [str(BIN / "arbiter"), "referee", "kings-court", "random", "random", "--seed", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "wins" in run.stdout or "draw" in run.stdout or "forfeit" in run.stdout


def test_nothing_imports_a_room_by_its_folder_name() -> None:
    """Tests run from the checkout, where `import server` would find the folder and hide a
    missed `arbiter.` prefix; this catches one anywhere, and in module names written as strings
    (`"games.amazons"`, `"-m", "server"`) too."""
    dotted = re.compile(rf"^({'|'.join(ROOMS)})(\.[a-z_]+)+$")
    strays = []
    for folder in (*ROOMS, "tests", "bench", "docs"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names if alias.name in ROOMS]
                    names += [alias.name for alias in node.names if dotted.match(alias.name)]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module] if node.module.split(".")[0] in ROOMS else []
                    if (path.parent / f"{node.module}.py").exists():
                        names = []  # a script's sibling (bench/server.py), first on its path
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    names = [node.value] if dotted.match(node.value) else []
                    names = [name for name in names if name.rsplit(".", 1)[1] not in FILE_TYPES]
                elif isinstance(node, ast.List):
                    words = [e.value for e in node.elts if isinstance(e, ast.Constant)]
                    names = [b for a, b in itertools.pairwise(words) if a == "-m"]
                    names = [name for name in names if name in ROOMS]
                strays += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names]
    assert not strays, strays


def test_every_server_module_has_its_row_in_the_architecture() -> None:
    """docs/architecture.md names each module of server/ with its one job, wing by wing: a new
    module without a row, or a row for a module that is gone, fails here."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("\n## The server, by wings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`([\w/]+\.py)`", row.split("|")[1])}
    modules = {
        path.relative_to(ROOT / "server").as_posix()
        for path in (ROOT / "server").rglob("*.py")
        if path.name != "__init__.py"
    }
    assert not modules - named, f"no row in docs/architecture.md: {sorted(modules - named)}"
    assert not named - modules, f"rows for no module: {sorted(named - modules)}"


MAX_CLASS_LINES = 300
MAX_FUNCTION_LINES = 50


def test_no_server_class_over_300_lines_nor_function_over_50() -> None:
    """The server stays in small pieces: a class or function past these sizes has more than
    one job, and is split before it grows further."""
    oversized = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
                if lines > limit:
                    oversized.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {lines}")
    assert oversized == []
