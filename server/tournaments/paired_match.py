"""A match as a tournament format: two entrants, one colour-swapped pair of games a round, until
the rounds run out, an SPRT (`sprt`) on the pairs decides, or an entrant does not come; pure.

The first entrant is A, the one a test is about: H1 says A is `elo1` Elo points above B.
Round r is two games sharing a start (`formats.pair_seed`), A first and then B first; a round
is counted once both its games are finished, A's points in it being one of the pentanomial
scores. The server asks for the next round only when every game so far is finished, so at most
one pair is under way and the test is updated pair by pair, as `arbiter match` on one machine
updates it.

An entrant who does not come to a game (its `absent` default) stops the match: its round is not
counted, since a forfeit says nothing about strength, and the match's end names who stayed
away. A game lost by any other default (a crash, an illegal move, time) is a loss like any other:
a program that breaks is weaker for it. A game without a winner scores half each for the test,
a double forfeit (King's Court's 50-move rule) too: the test compares the two sides, and
neither gained on the other.

The server and its clients read the same state from the same games (`match_progress`): the server to
know when to stop, a client (`arbiter match --server`) to print the live line and the verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbiter.server.tournaments.sprt import PairCount, Sprt, SprtError, SprtTerms

TERM_NAMES = ("elo0", "elo1", "alpha", "beta")
MAX_PAIRS = 5000
"""The most rounds (pairs) a match may be given: a test that has not decided in ten
thousand games is better rerun with bounds that fit the difference."""
ABSENT = "absent"


@dataclass(frozen=True, slots=True)
class PairedGame:
    """What the test reads of one finished game: its round, who moved first, both scores in
    seat order, and the entrants who did not come to it."""

    round: int
    first: str
    scores: tuple[float, float]
    absent: tuple[str, ...] = ()

    def points(self, entrant: str) -> float:
        """What `entrant` scored for the test: a game nobody won is half each."""
        first, second = self.scores
        if first == second:
            return 0.5
        return first if entrant == self.first else second

    @classmethod
    def from_wire(cls, game: Mapping[str, Any]) -> PairedGame | None:
        """A `tournament` message's game entry; None for one not finished."""
        if game.get("status") != "finished" or game.get("scores") is None:
            return None
        seats = (game["first"], game["second"])
        defaults = game.get("defaults") or (None, None)
        first, second = game["scores"]
        scores = (float(first), float(second))
        return cls(game["round"], game["first"], scores, absent_of(seats, defaults))


@dataclass(frozen=True, slots=True)
class MatchProgress:
    """Where a match of pairs stands: its count, the test on it (none in a fixed match), and
    why it stopped early, if it did (an entrant who did not come)."""

    count: PairCount
    test: Sprt | None
    stopped: str | None
    rounds: int
    """The rounds with both games finished, the one that stopped it included."""

    def over(self, max_pairs: int) -> bool:
        decided = self.test is not None and self.test.decision is not None
        return decided or self.stopped is not None or self.count.pairs >= max_pairs

    def to_wire(self) -> dict[str, Any]:
        """The `tournament` message's `sprt` map (version 2)."""
        assert self.test is not None, "a fixed match has no test to show"
        terms = self.test.terms
        return {
            **terms_to_wire(terms),
            "llr": self.test.llr,
            "lower": terms.lower,
            "upper": terms.upper,
            "pairs": self.count.pairs,
            "counts": list(self.count.counts),
            "decision": None if self.test.decision is None else self.test.decision.value,
            "stopped": self.stopped,
        }


def absent_of(seats: Sequence[str], defaults: Sequence[str | None]) -> tuple[str, ...]:
    """The entrants of a game's seats whose default is that they did not come."""
    return tuple(seat for seat, kind in zip(seats, defaults, strict=True) if kind == ABSENT)


def terms_of(given: Mapping[str, Any]) -> SprtTerms:
    """The terms a request's `sprt` map gives (elo0 and elo1; alpha and beta default to 0.05);
    `SprtError` with a sentence for anything else."""
    unknown = sorted(set(given) - set(TERM_NAMES))
    if unknown:
        raise SprtError(
            f"an SPRT's terms are {', '.join(TERM_NAMES)}, not {', '.join(map(repr, unknown))}"
        )
    missing = [name for name in ("elo0", "elo1") if name not in given]
    if missing:
        raise SprtError(f"an SPRT needs {' and '.join(missing)}")
    for name, value in given.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SprtError(f"{name} must be a number, not {value!r}")
    return SprtTerms(**{name: float(value) for name, value in given.items()})


def terms_to_wire(terms: SprtTerms) -> dict[str, float]:
    """The terms as a request's and a status's `sprt` map carries them."""
    return {name: float(getattr(terms, name)) for name in TERM_NAMES}


def match_progress(
    terms: SprtTerms | None, entrants: Sequence[str], games: Sequence[PairedGame]
) -> MatchProgress:
    """The match's state from its finished games, round by round up to the first round with an
    absent entrant (or the first round not yet finished); with no `terms`, a fixed match's."""
    a = entrants[0]
    rounds: dict[int, list[PairedGame]] = {}
    for game in games:
        rounds.setdefault(game.round, []).append(game)
    count, stopped, played = PairCount(), None, 0
    for number in sorted(rounds):
        pair = rounds[number]
        if len(pair) < 2:
            break
        played += 1
        absent = sorted({name for game in pair for name in game.absent})
        if absent:
            who = " and ".join(absent)
            stopped = f"{who} did not come to play (pair {number}, not counted)"
            break
        count.record(sum(game.points(a) for game in pair))
    test = None if terms is None else Sprt(terms)
    if test is not None:
        test.update(count.as_counts())
    return MatchProgress(count, test, stopped, played)


def next_pair(
    terms: SprtTerms | None, entrants: Sequence[str], max_pairs: int, games: Sequence[PairedGame]
) -> list[tuple[int, str, str]]:
    """The next round's two games as (round, first, second), A first; none once it is over."""
    state = match_progress(terms, entrants, games)
    if state.over(max_pairs):
        return []
    a, b = entrants
    return [(state.rounds + 1, a, b), (state.rounds + 1, b, a)]
