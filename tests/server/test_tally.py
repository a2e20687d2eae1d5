"""`Tally`: counts by key with the highest found in constant time."""

from __future__ import annotations

import random

from arbiter.server.common.tally import Tally


def test_the_top_is_a_key_with_the_highest_count_through_adds_and_removes() -> None:
    tally: Tally[str] = Tally()
    assert tally.top() is None
    assert tally.most == 0
    for key in "aabbbc":
        tally.add(key)
    assert (tally.top(), tally.most, tally["b"], len(tally)) == ("b", 3, 3, 3)
    tally.remove("b")
    assert tally.most == 2
    assert tally.top() in ("a", "b")
    for key in "aabbc":
        tally.remove(key)
    assert tally.top() is None
    assert tally.most == 0
    assert len(tally) == 0
    assert tally["a"] == 0


def test_the_top_agrees_with_counting_by_hand_over_random_steps() -> None:
    rng = random.Random(7)
    tally: Tally[int] = Tally()
    counts: dict[int, int] = {}
    for _ in range(5000):
        key = rng.randrange(20)
        if counts.get(key) and rng.random() < 0.5:
            tally.remove(key)
            counts[key] -= 1
        else:
            tally.add(key)
            counts[key] = counts.get(key, 0) + 1
        most = max(counts.values(), default=0)
        assert tally.most == most
        assert most == 0 or counts[tally.top()] == most  # type: ignore[index]
