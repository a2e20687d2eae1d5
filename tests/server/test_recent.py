"""`server.common.recent.Recent`, the bounded most-recently-used mapping behind the server's caches,
against a plain list model of what it should keep."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arbiter.server.common.recent import Recent

Step = tuple[str, int, int]
"""("get", "put" or "pop", key, weight)."""

steps = st.lists(
    st.tuples(st.sampled_from(["get", "put", "pop"]), st.integers(0, 6), st.integers(1, 12)),
    max_size=60,
)


def model(limit: int, done: list[Step]) -> list[tuple[int, int]]:
    """(key, weight) kept, least recent first, by the rule in words: each use makes an entry
    the most recent; an entry heavier than the limit is never kept; over the limit, the least
    recent go; a popped entry goes."""
    kept: list[tuple[int, int]] = []
    for kind, key, weight in done:
        found = [entry for entry in kept if entry[0] == key]
        if kind == "get":
            if found:
                kept.remove(found[0])
                kept.append(found[0])
            continue
        if kind == "pop":
            if found:
                kept.remove(found[0])
            continue
        if weight > limit:
            continue
        if found:
            kept.remove(found[0])
        kept.append((key, weight))
        while sum(w for _, w in kept) > limit:
            kept.pop(0)
    return kept


@given(limit=st.integers(1, 20), done=steps)
def test_recent_keeps_what_the_rule_says_within_its_limit(limit: int, done: list[Step]) -> None:
    recent: Recent[int, int] = Recent(limit, weigh=lambda weight: weight)
    for kind, key, weight in done:
        if kind == "get":
            recent.get(key)
        elif kind == "pop":
            recent.pop(key)
        else:
            recent.put(key, weight)
    expected = model(limit, done)
    assert recent.size == sum(weight for _, weight in expected) <= limit
    kept_keys = {key for key, _ in expected}
    for key in range(7):
        assert (recent.get(key) is not None) == (key in kept_keys)


def test_by_default_an_entry_weighs_one_so_the_limit_is_a_count() -> None:
    recent: Recent[str, str] = Recent(2)
    recent.put("a", "1")
    recent.put("b", "2")
    assert recent.get("a") == "1"  # "b" is now the least recent
    recent.put("c", "3")
    assert recent.get("b") is None
    assert recent.get("a") == "1"
    assert recent.get("c") == "3"
    assert recent.size == 2
