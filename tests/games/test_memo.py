"""The self-filling dict behind King's Court's notation and data caches."""

from __future__ import annotations

import pytest

from games import get_game
from games._memo import Memo


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
    assert calls == 2 and not memo


def test_cached_notation_still_refuses_bad_text_every_time() -> None:
    game = get_game("kings-court")
    for _ in range(2):
        assert game.parse_move(" b4c4 ") == game.parse_move("B4C4")
        with pytest.raises(ValueError, match="'b4c9' is not a King's Court move"):
            game.parse_move("b4c9")
    long_route = "A1A3C3C1A1A3C3C1A1"  # longer than the texts kept: parsed every time
    assert game.format_move(game.parse_move(long_route)) == long_route
