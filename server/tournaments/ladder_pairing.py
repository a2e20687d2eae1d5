"""Who plays whom next on a ladder: a pure function of the table and a random generator.

The rule, for each pair of free entrants under their cap:

- **close ratings first**: a game between entrants far apart teaches the table little (the
  favourite was expected to win), so a pair's weight falls off as a Gaussian of the distance
  between their `mu`s, measured in the spread the two beliefs and the model's `beta` allow:
  `exp(-(mu_a - mu_b)^2 / (2 (2 beta^2 + sigma_a^2 + sigma_b^2)))`. An uncertain entrant's
  distance counts for less, since its `mu` is mostly a guess;
- **uncertain entrants more**: the weight is multiplied by `sigma_a^2 + sigma_b^2`, so an entrant
  the table knows little of (a newcomer, a new version) is paired far more often until it is
  known, and settled entrants play each other at the pace the newcomers leave;
- **a random draw by weight**, not the best pair every time: always taking the best would pair
  the same two entrants over and over, and a ladder ranks right only when every neighbour has
  met its neighbours;
- **never an entrant against itself**, never an entrant already in a game (`busy`), never one
  that has begun `per_hour` games in the last hour;
- **colours balanced per pair**: of the two, the one that has had the first move fewer times
  against the other moves first (a coin decides a tie), so each pair's games split their seats
  within one game.

Several games at once (`slots`) are disjoint pairs drawn one after another from the entrants
left free. The weights are computed in log space and scaled to the largest, so a pair is
possible however far apart the ratings are, and the draw never divides by zero.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Set

from arbiter.server.tournaments.ladder import Entry, Ladder
from arbiter.server.tournaments.ladder_ratings import MODEL

HOUR = 3600.0
"""The window the cap on games counts in, in seconds."""


def pairings(
    ladder: Ladder,
    rng: random.Random,
    *,
    now: float,
    per_hour: int | None = None,
    busy: Set[str] = frozenset(),
    slots: int = 1,
) -> list[tuple[str, str]]:
    """Up to `slots` disjoint pairs to play now, each as (first, second): who moves first."""
    recent = begun_in_the_hour(ladder, now)
    free = [
        entry
        for name, entry in ladder.entries.items()
        if name not in busy and (per_hour is None or recent[name] < per_hour)
    ]
    chosen: list[tuple[str, str]] = []
    while len(chosen) < slots and len(free) >= 2:
        candidates = list(itertools.combinations(free, 2))
        weights = _scaled([_log_weight(a, b) for a, b in candidates])
        a, b = rng.choices(candidates, weights)[0]
        chosen.append(_colours(ladder, a.name, b.name, rng))
        free = [entry for entry in free if entry is not a and entry is not b]
    return chosen


def begun_in_the_hour(ladder: Ladder, now: float) -> Counter[str]:
    """How many games each entrant began in the hour before `now` (a game an hour old counts
    no more: the same sum `_free_at` answers with, so the two agree to the last bit)."""
    counts: Counter[str] = Counter()
    for game in ladder.games:
        if game.began + HOUR > now:
            counts.update(game.result.players)
    return counts


def next_opening(ladder: Ladder, *, now: float, per_hour: int) -> float:
    """The earliest time at which two entrants are under their cap (`now` if they are)."""
    times = sorted(_free_at(ladder, name, now, per_hour) for name in ladder.entries)
    return times[1] if len(times) >= 2 else math.inf


def _free_at(ladder: Ladder, name: str, now: float, per_hour: int) -> float:
    """When `name` is next under its cap: an hour after the game that puts it at the cap."""
    began = sorted(
        game.began
        for game in ladder.games
        if name in game.result.players and game.began + HOUR > now
    )
    if len(began) < per_hour:
        return now
    return began[len(began) - per_hour] + HOUR


def _log_weight(a: Entry, b: Entry) -> float:
    spread = 2 * MODEL.beta**2 + a.skill.sigma**2 + b.skill.sigma**2
    distance = (a.skill.mu - b.skill.mu) ** 2 / (2 * spread)
    return -distance + math.log(a.skill.sigma**2 + b.skill.sigma**2)


def _scaled(log_weights: list[float]) -> list[float]:
    top = max(log_weights)
    return [math.exp(weight - top) for weight in log_weights]


def _colours(ladder: Ladder, a: str, b: str, rng: random.Random) -> tuple[str, str]:
    """(first, second): the one of the pair that moved first fewer times against the other
    moves first; a coin decides a tie."""
    firsts = Counter(
        game.result.first for game in ladder.games if {a, b} == set(game.result.players)
    )
    if firsts[a] != firsts[b]:
        return (a, b) if firsts[a] < firsts[b] else (b, a)
    return (a, b) if rng.random() < 0.5 else (b, a)
