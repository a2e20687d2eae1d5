"""A knockout bracket: ties of colour-swapped games, winners meeting winners.

Pure: the runner asks for the games due once the games before them are played, and the tests
play brackets of every size on random results.

The bracket has P slots, P the smallest power of two at least the number of entrants, filled
in the standard seeding order (seeds 1 and 2 can only meet in the final); the P - n slots left
empty give the top seeds a bye into the second round. Each tie is `legs` pairs of games, the
higher seed moving first in the first of each pair. The entrant with more points wins the tie.
A level tie (drawn, or every game a double forfeit) is replayed once as a two-game tiebreak,
colours swapped; if that is level too, the higher seed advances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arbiter.server.tournaments.swiss import Played

TIEBREAK_GAMES = 2

DueGame = tuple[int, str, str]
"""(round, moves first, moves second)."""


def seeding_order(size: int) -> list[int]:
    """Seed numbers (0-based) in bracket order for `size` slots (a power of two): each pair of
    neighbours sums to size - 1, so the best seeds meet the worst first."""
    order = [0]
    while len(order) < size:
        order = [slot for seed in order for slot in (seed, 2 * len(order) - 1 - seed)]
    return order


def bracket_size(entrants: int) -> int:
    size = 1
    while size < entrants:
        size *= 2
    return size


@dataclass(frozen=True, slots=True)
class Tie:
    """One pairing of a bracket round: `higher` is the better seed."""

    round: int
    higher: str
    lower: str | None
    """None for a bye: `higher` goes through without playing."""


@dataclass(frozen=True, slots=True)
class TieLine:
    """A tie as the bracket shows it: its points so far (tiebreak games included) and its
    winner once decided."""

    tie: Tie
    points: tuple[float, float]
    """The higher seed's, the lower's."""
    winner: str | None

    def to_wire(self) -> dict[str, object]:
        return {
            "round": self.tie.round,
            "higher": self.tie.higher,
            "lower": self.tie.lower,
            "points": list(self.points),
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a bracket stands: the games to play next, and who is out."""

    due: list[DueGame]
    """The games to add now."""
    eliminated: dict[str, int]
    """The round each eliminated entrant lost in."""
    champion: str | None
    ties: list[TieLine]
    """Every tie paired so far, round by round."""


def progress(entrants: Sequence[str], legs: int, games: Sequence[tuple[int, Played]]) -> Progress:
    """The bracket replayed from the finished games `(round, game)`. Games are due only for
    ties with none finished, or level after their regular games: the runner asks once every
    game it has is finished; a tie part-way through is simply undecided."""
    seed = {player: index for index, player in enumerate(entrants)}
    slots: list[str | None] = [
        entrants[s] if s < len(entrants) else None
        for s in seeding_order(bracket_size(len(entrants)))
    ]
    eliminated: dict[str, int] = {}
    lines: list[TieLine] = []
    round_number = 1
    while len(slots) > 1:
        ties = [_tie(round_number, slots[i], slots[i + 1], seed) for i in range(0, len(slots), 2)]
        due: list[DueGame] = []
        winners: list[str | None] = []
        for tie in ties:
            played = [g for r, g in games if r == tie.round and tie.lower in (g.first, g.second)]
            winner, more = _decide(tie, legs, played)
            lines.append(TieLine(tie, _points(tie.higher, played), winner))
            due += more
            winners.append(winner)
            if winner is not None and tie.lower is not None:
                eliminated[tie.lower if winner == tie.higher else tie.higher] = round_number
        if due or None in winners:
            return Progress(due, eliminated, None, lines)
        slots, round_number = winners, round_number + 1
    return Progress([], eliminated, slots[0], lines)


def _tie(round_number: int, a: str | None, b: str | None, seed: dict[str, int]) -> Tie:
    if a is None:
        a, b = b, a
    assert a is not None  # a slot pair is never two byes: byes are fewer than half the slots
    if b is not None and seed[b] < seed[a]:
        a, b = b, a
    return Tie(round_number, a, b)


def _decide(tie: Tie, legs: int, played: Sequence[Played]) -> tuple[str | None, list[DueGame]]:
    """The tie's winner, or None and the games it needs next."""
    if tie.lower is None:
        return tie.higher, []
    regular = 2 * legs
    if len(played) < regular:
        return None, [] if played else _legs(tie, regular)
    margin = _margin(tie.higher, played[:regular])
    if margin != 0:
        return (tie.higher if margin > 0 else tie.lower), []
    if len(played) == regular:
        return None, _legs(tie, TIEBREAK_GAMES)
    if len(played) < regular + TIEBREAK_GAMES:
        return None, []
    return (tie.lower if _margin(tie.higher, played[regular:]) < 0 else tie.higher), []


def _legs(tie: Tie, games: int) -> list[DueGame]:
    assert tie.lower is not None
    pair = [(tie.round, tie.higher, tie.lower), (tie.round, tie.lower, tie.higher)]
    return pair * (games // 2)


def _margin(player: str, played: Sequence[Played]) -> float:
    """`player`'s points minus its opponent's over `played`."""
    mine, theirs = _points(player, played)
    return mine - theirs


def _points(player: str, played: Sequence[Played]) -> tuple[float, float]:
    """`player`'s points and its opponent's over `played`."""
    mine = theirs = 0.0
    for game in played:
        seat = 0 if game.first == player else 1
        mine += game.scores[seat]
        theirs += game.scores[1 - seat]
    return mine, theirs
