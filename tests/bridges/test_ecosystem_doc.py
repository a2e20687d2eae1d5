"""Every Python example of docs/ecosystem.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ecosystem.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)


def test_the_page_has_its_four_examples() -> None:
    assert len(EXAMPLES) == 4


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_each_example_runs(number: int) -> None:
    exec(compile(EXAMPLES[number], f"ecosystem.md example {number + 1}", "exec"), {})
