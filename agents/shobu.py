"""Shobu's difficulty levels: alpha-beta at increasing fixed depth with Shobu's evaluation (the
per-board balance in `evaluations/shobu.py`), offered by name for Shobu only."""

from __future__ import annotations

from arbiter.agents._base import Registration
from arbiter.agents.search import alphabeta_factory

SHOBU_LEVELS = {"easy": 1, "medium": 2, "hard": 3}
"""Each level's search depth in turns: a level a person can beat, one that punishes mistakes,
and one that plays well."""

AGENTS: list[Registration] = [
    Registration(
        level,
        alphabeta_factory(depth),
        f"Shobu level {level}: alpha-beta {depth} {'turn' if depth == 1 else 'turns'} deep "
        "with the seed's per-board balance",
        ("shobu",),
    )
    for level, depth in SHOBU_LEVELS.items()
]
