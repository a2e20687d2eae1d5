"""`arbiter --help` and `arbiter agents` import only what they use, in a fresh process each.

A command line that imported every command's modules before parsing paid for trio, the server
and Rich on every call, twice the start-up of a bare trio program; these tests keep each
command's imports to its own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.processes import ROOT

HEAVY = ("trio", "rich", "msgpack", "arbiter.server", "arbiter.agents", "arbiter.games")
"""Packages `arbiter --help` has no use for."""


def imported_by(argv: list[str]) -> tuple[set[str], str]:
    """The modules a fresh interpreter holds after `arbiter ARGV` ran, and what it printed."""
    program = (
        "import json, sys\n"
        "from arbiter.client.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    *_, modules = done.stderr.strip().splitlines()
    return set(json.loads(modules)), done.stdout


def loaded(modules: set[str], package: str) -> bool:
    return any(name == package or name.startswith(f"{package}.") for name in modules)


def test_help_lists_every_command_and_imports_none_of_them() -> None:
    modules, shown = imported_by(["--help"])
    assert "bot" in shown
    assert "tournament" in shown
    assert "demo" in shown
    assert [package for package in HEAVY if loaded(modules, package)] == []


def test_agents_imports_the_agents_and_the_games_but_no_network() -> None:
    modules, shown = imported_by(["agents", "kings-court"])
    assert "kings-court:" in shown
    assert "random" in shown
    assert loaded(modules, "arbiter.agents")
    assert loaded(modules, "arbiter.games")
    assert [p for p in ("trio", "rich", "arbiter.server") if loaded(modules, p)] == []


@pytest.mark.parametrize(
    ("argv", "option"),
    [(["bot"], "--agent"), (["ladder", "local"], "--per-hour"), (["submit"], "--author")],
)
def test_a_command_given_has_all_its_arguments(argv: list[str], option: str) -> None:
    """Only the command given gets its arguments, so its own help must still show them all."""
    _, shown = imported_by([*argv, "--help"])
    assert f"usage: arbiter {' '.join(argv)}" in shown
    assert option in shown
