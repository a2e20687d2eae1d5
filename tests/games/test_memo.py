"""The self-filling dict behind the move-text and data-row caches."""

from __future__ import annotations

import pytest

from arbiter.games._memo import Memo


def test_each_value_is_made_once_and_memory_stays_bounded() -> None:
    made: list[int] = []

    def square(number: int) -> int:
        made.append(number)
        return number * number

    memo = Memo(square, limit=4)
    assert [memo[n] for n in (1, 2, 1, 2)] == [1, 4, 1, 4]
    assert made == [1, 2]
    assert [memo[n] for n in range(10)] == [n * n for n in range(10)]
    assert len(memo) <= 4


def test_a_failure_is_not_remembered() -> None:
    calls = 0

    def fail(key: str) -> str:
        nonlocal calls
        calls += 1
        raise ValueError(key)

    memo = Memo(fail)
    for _ in range(2):
        with pytest.raises(ValueError, match="boom"):
            memo["boom"]
    assert calls == 2
    assert not memo
