"""Every game's compiled kernel against its Python rules in lockstep, one shape for all five.

Each game's check (tests/games/lockstep.py's `CHECKS`) plays one seeded random game asking both
paths every question, then replays a kernel playout through the Python rules. Here each game
plays a fixed batch of seeds, then Hypothesis's; the tests of one game's particular rules and
arguments stay in its own test_native_NAME.py. The skip when no kernel is built turns into a
failure under `CI`, where a compiler is present.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games.watch_your_back import PLACEMENTS
from tests.conftest import VOLUME, volume_body
from tests.games.lockstep import CHECKS, kernel_or_skip

BATCHES = {
    "amazons": (100, 50),
    "kings-court": (100, 20),
    "war-of-life": (300, 5),
    "watch-your-back": (50, PLACEMENTS + 128),
    "shobu": (12, 10),
}
"""Per game: the seeds of its fixed batch, and the fewest plies a game of it averages (whole
games, not a few moves each)."""
EXAMPLES = 15
"""Hypothesis's seeds per game, beyond the fixed batch."""


@VOLUME
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_a_fixed_batch_of_random_games_agrees_move_by_move(name: str) -> None:
    module, check = CHECKS[name]
    kernel_or_skip(module)
    games, plies_each = BATCHES[name]
    plies = sum(check(seed) for seed in range(games))
    assert plies > plies_each * games


@pytest.mark.parametrize("name", sorted(CHECKS))
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(10**6, 2**32 - 1))
@volume_body
def test_random_games_agree_move_by_move(name: str, seed: int) -> None:
    module, check = CHECKS[name]
    kernel_or_skip(module)
    check(seed)
