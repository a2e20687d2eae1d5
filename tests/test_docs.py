"""The documentation a fresh clone reads points only at files that clone has.

A link to a file outside the repository works on the machine that wrote it and nowhere else:
every relative link in README.md and docs/ must name a file inside this repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
"""A markdown link's target: `[text](target)`."""
PATH_IN_TEXT = re.compile(r"(?<![\w/.])\.\./[\w./-]+")
"""A relative path leaving the page's folder, written in prose or code rather than as a link."""


def relative_targets(page: Path) -> list[str]:
    targets = [target.split("#")[0] for target in LINK.findall(page.read_text())]
    return [target for target in targets if target and "://" not in target]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_names_a_file_of_the_repository(page: Path) -> None:
    for target in relative_targets(page):
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
        assert resolved.exists(), f"{page.name} links to a missing file: {target}"


def test_the_readme_names_no_path_outside_the_repository() -> None:
    readme = ROOT / "README.md"
    for path in PATH_IN_TEXT.findall(readme.read_text()):
        assert (ROOT / path).resolve().is_relative_to(ROOT), f"README.md names {path}"
