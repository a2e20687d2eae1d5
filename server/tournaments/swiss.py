"""Swiss pairing: one round at a time, from the results so far.

Pure: the runner pairs a round as the previous one ends, and the Hypothesis properties in
tests/tournament/test_formats.py check the rules on random histories.

The rules, in order of precedence:

- at most one bye a round (an odd field), to the lowest-scored entrant who has not had one (a
  higher-scored one only when that is what avoids a rematch); nobody gets two; a bye scores 1;
- no pairing repeats while a round without a repeat can be found (the search is exhaustive);
- colours stay balanced: nobody's whites minus blacks leaves [-2, 2] (two entrants on +2, or on
  -2, are never paired), and within a pair the one with fewer whites moves first, then the one
  who had black last, then the higher-ranked;
- among the pairings these allow, entrants meet those nearest them in the ranking (score, then
  seed): the search tries the nearest opponent first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

MAX_COLOUR_DIFFERENCE = 2


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game: `first` moved first; the scores are the two seats'."""

    first: str
    second: str
    scores: tuple[float, float]


@dataclass(slots=True)
class History:
    """What pairing needs to know of the rounds so far, per entrant."""

    points: dict[str, float] = field(default_factory=dict)
    colour: dict[str, int] = field(default_factory=dict)
    """Games moving first minus games moving second."""
    last_first: dict[str, bool] = field(default_factory=dict)
    """Whether the entrant moved first in its last game."""
    met: set[frozenset[str]] = field(default_factory=set)
    byes: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, entrants: Sequence[str], games: Sequence[Played], byes: Sequence[str]) -> History:
        history = cls(dict.fromkeys(entrants, 0.0), dict.fromkeys(entrants, 0))
        for game in games:
            for seat, player in enumerate((game.first, game.second)):
                history.points[player] += game.scores[seat]
                history.colour[player] += 1 if seat == 0 else -1
                history.last_first[player] = seat == 0
            history.met.add(frozenset((game.first, game.second)))
        for player in byes:
            history.points[player] += 1.0
            history.byes.add(player)
        return history


@dataclass(frozen=True, slots=True)
class SwissRound:
    pairs: list[tuple[str, str]]
    """(moves first, moves second)."""
    bye: str | None


def pair_round(entrants: Sequence[str], games: Sequence[Played], byes: Sequence[str]) -> SwissRound:
    """The next round's pairs and bye, given every finished game and bye so far."""
    history = History.of(entrants, games, byes)
    seed = {player: index for index, player in enumerate(entrants)}
    ranked = sorted(entrants, key=lambda player: (-history.points[player], seed[player]))
    candidates: list[str | None] = [None]
    if len(ranked) % 2:
        candidates = [player for player in reversed(ranked) if player not in history.byes]
    for allowed in _relaxations(history):
        for bye in candidates:
            pairs = _matching(tuple(p for p in ranked if p != bye), allowed, {})
            if pairs is not None:
                return SwissRound([_coloured(a, b, history) for a, b in pairs], bye)
    raise ValueError(f"no bye left for a Swiss round of {len(entrants)} entrants")


def _relaxations(history: History) -> list[Callable[[str, str], bool]]:
    """The pair checks tried in turn: no rematch and colours within bounds; then colours
    alone (every pairing would repeat one); then anything."""

    def colours_fit(a: str, b: str) -> bool:
        ca, cb = history.colour[a], history.colour[b]
        limit = MAX_COLOUR_DIFFERENCE
        return not (ca >= limit and cb >= limit) and not (ca <= -limit and cb <= -limit)

    def fresh(a: str, b: str) -> bool:
        return frozenset((a, b)) not in history.met and colours_fit(a, b)

    return [fresh, colours_fit, lambda a, b: True]


def _matching(
    field_: tuple[str, ...],
    allowed: Callable[[str, str], bool],
    dead_ends: dict[frozenset[str], None],
) -> list[tuple[str, str]] | None:
    """Pairs covering `field_` (in ranking order), each `allowed`: the top entrant with the
    nearest opponent that leaves the rest pairable. Fields found unpairable are remembered."""
    if not field_:
        return []
    if frozenset(field_) in dead_ends:
        return None
    top, rest = field_[0], field_[1:]
    for index, opponent in enumerate(rest):
        if allowed(top, opponent):
            paired = _matching(rest[:index] + rest[index + 1 :], allowed, dead_ends)
            if paired is not None:
                return [(top, opponent), *paired]
    dead_ends[frozenset(field_)] = None
    return None


def _coloured(higher: str, lower: str, history: History) -> tuple[str, str]:
    """(moves first, moves second): fewer whites first, then who had black last, then the
    higher-ranked unless it moved first last time."""
    colour: Mapping[str, int] = history.colour
    if colour[higher] != colour[lower]:
        return (higher, lower) if colour[higher] < colour[lower] else (lower, higher)
    last_h = history.last_first.get(higher)
    last_l = history.last_first.get(lower)
    if last_h is not None and last_l is not None and last_h != last_l:
        return (lower, higher) if last_h else (higher, lower)
    return (lower, higher) if last_h else (higher, lower)
