"""The fixtures of the end-to-end tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import RunningServer
from tests.e2e.helpers import Dial


@pytest.fixture
async def dial(server: RunningServer) -> AsyncIterator[Dial]:
    opened = Dial(server.port)
    try:
        yield opened
    finally:
        await opened.aclose()
