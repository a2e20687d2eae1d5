"""`arbiter bot`'s own refusals, before it connects anywhere."""

from __future__ import annotations

from arbiter.client.cli import main
from tests.processes import in_process


async def test_a_section_without_the_ladder_is_a_usage_error() -> None:
    argv = ["bot", "--server", "127.0.0.1:9", "--game", "kings-court", "--agent", "random"]
    done = await in_process(main, [*argv, "--section", "cs101/a"], ["arbiter", *argv])
    assert done.returncode == 2
    assert b"--section names a section's ladder: give --ladder too" in done.stderr
