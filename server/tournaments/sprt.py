"""A sequential probability ratio test on colour-swapped pairs of games: pure arithmetic, no I/O.

Why pairs: each start is played twice, colours swapped, so the first move's advantage and a
lopsided random start cancel inside a pair. The two games of a pair are not independent (a start
that favours one colour makes one win each likely), so the pair is the unit counted: its score
is 0, 0.5, 1, 1.5 or 2 for the first player, and a match is a *pentanomial* count of how many
pairs scored each. Counting games instead (a trinomial of wins, draws and losses) overstates the
variance and so wastes games.

The test is the generalized SPRT (GSPRT) as Michel Van den Bergh formulated it for fishtest: the
hypotheses are H0: Elo = elo0 and H1: Elo = elo1, each a *family* of pentanomial distributions
(those whose expected score is the one that Elo gives), and the log-likelihood ratio compares the
most likely member of each family given the counts so far. The member of a family most likely
under frequencies `f` with expected score `s` is `p_i = f_i / (1 + lam * (a_i - s))`, where
`a_i` is the pair's score as a fraction and `lam` the Lagrange multiplier that makes
`sum(p_i * a_i) == s` (`constrained_mle`). The test stops when the LLR leaves Wald's bounds
`[log(beta / (1 - alpha)), log((1 - beta) / alpha)]`. References: Li, Liu and Ying, "Generalized
sequential probability ratio test for separate families of hypotheses" (Sequential Analysis 33,
2014), for the GSPRT's error rates; Van den Bergh, "Asymptotic expansions of the LLR for the
GSPRT" and "MLE of a multinomial under an expectation constraint" (fishtest's notes), for the
pentanomial form. No overshoot correction: the bounds are Wald's, so the error rates are at most
alpha and beta, a little below them.

Elo is *logistic* Elo, `score = 1 / (1 + 10 ** (-elo / 400))`: the unit Arbiter's tournament
ratings (`ratings.py`) are in, so `elo1=20` means what a tournament's table means by 20 points.
Normalized Elo (fishtest's default) would make a test's length independent of the draw ratio;
logistic Elo's tests are shorter in games with many draws and longer in decisive ones, which the
user reads off the live line's LLR.

A count with no pair of some score would let the constrained maximum escape to an edge (no root
for `lam`), so every count is given `REGULARIZATION` of a pair before the fit, as fishtest does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""What the first player scores in a pair of games, in the pentanomial count's order."""
FRACTIONS = tuple(points / 2 for points in PAIR_SCORES)
"""The pair's score as a fraction of the two games' points: `a_i` in the module's formulas."""
REGULARIZATION = 1e-3
"""Pairs added to every count before a fit, so that a score never seen keeps a tiny weight."""
Z95 = 1.959963984540054
"""Standard errors in a two-sided 95 % interval."""
TOLERANCE = 1e-12
MAX_ITERATIONS = 100

Counts = tuple[int, int, int, int, int]
"""Pairs that scored 0, 0.5, 1, 1.5 and 2 for the first player."""


class SprtError(ValueError):
    """Terms of a test that cannot decide; the sentence says which and why."""


class Hypothesis(Enum):
    H0 = "H0"
    H1 = "H1"


def score_of(elo: float) -> float:
    """The expected score of a player `elo` logistic Elo points above its opponent."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(score: float) -> float:
    """The logistic Elo difference that expects `score`; infinite at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True, slots=True)
class SprtTerms:
    """An SPRT's hypotheses (logistic Elo) and error rates, checked when made."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            if not math.isfinite(getattr(self, name)):
                raise SprtError(f"{name} must be a finite number of Elo points")
        if self.elo0 >= self.elo1:
            raise SprtError(
                f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g}): the test decides"
                " between a smaller and a larger difference"
            )
        for name in ("alpha", "beta"):
            rate = getattr(self, name)
            if not 0 < rate < 0.5:
                raise SprtError(
                    f"{name} ({rate:g}) must be between 0 and 0.5: it is the chance of a wrong"
                    " decision, and at 0.5 or more a coin would do as well"
                )

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: `log(beta / (1 - alpha))`."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: `log((1 - beta) / alpha)`."""
        return math.log((1 - self.beta) / self.alpha)

    def decision(self, llr: float) -> Hypothesis | None:
        """H1 at or above the upper bound, H0 at or below the lower, else None (play on)."""
        if llr >= self.upper:
            return Hypothesis.H1
        if llr <= self.lower:
            return Hypothesis.H0
        return None


def frequencies(counts: Counts) -> tuple[float, ...]:
    """The regularized counts as frequencies summing to 1."""
    weights = [count + REGULARIZATION for count in counts]
    total = sum(weights)
    return tuple(weight / total for weight in weights)


def constrained_mle(
    freqs: tuple[float, ...], score: float, start: float = 0.0
) -> tuple[tuple[float, ...], float]:
    """The distribution on `FRACTIONS` nearest `freqs` (most likely under them) whose expected
    score is `score`, and its multiplier `lam` (pass it back as `start` for the next count: the
    root moves little between neighbouring counts, so Newton's method then takes a step or two).

    `lam` solves `g(lam) = sum(f_i * x_i / (1 + lam * x_i)) = 0` with `x_i = a_i - score`. `g`
    falls strictly between its poles `-1 / max(x)` and `-1 / min(x)`, where every
    `1 + lam * x_i` is positive, so the root is unique; Newton's step is kept inside the
    bracket found so far, halving it when a step would leave it.
    """
    offsets = [fraction - score for fraction in FRACTIONS]
    low, high = -1 / max(offsets), -1 / min(offsets)
    lam = start if low < start < high else 0.0
    for _ in range(MAX_ITERATIONS):
        value = slope = 0.0
        for weight, offset in zip(freqs, offsets, strict=True):
            term = offset / (1 + lam * offset)
            value += weight * term
            slope -= weight * term * term
        if abs(value) < TOLERANCE:
            break
        if value > 0:
            low = lam
        else:
            high = lam
        step = lam - value / slope
        lam = step if low < step < high else (low + high) / 2
    mle = tuple(weight / (1 + lam * offset) for weight, offset in zip(freqs, offsets, strict=True))
    return mle, lam


def llr(counts: Counts, elo0: float, elo1: float) -> float:
    """The GSPRT's log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for `counts`."""
    test = Sprt(SprtTerms(elo0, elo1))
    test.update(counts)
    return test.llr


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """The Elo difference the counts estimate, with its 95 % interval."""

    elo: float
    low: float
    high: float

    def text(self) -> str:
        """`+12.3 [-4.5, +29.1]`."""
        return f"{_signed(self.elo)} [{_signed(self.low)}, {_signed(self.high)}]"


def _signed(elo: float) -> str:
    return f"{elo:+.1f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")


def estimate(counts: Counts) -> EloEstimate:
    """The Elo of the mean score per game, and the interval of the mean score's normal
    approximation (the pairs' own variance, `Z95` standard errors) mapped to Elo. Without a
    pair, nothing is known: the interval is the whole line."""
    pairs = sum(counts)
    if not pairs:
        return EloEstimate(0.0, -math.inf, math.inf)
    mean = sum(count * a for count, a in zip(counts, FRACTIONS, strict=True)) / pairs
    spread = sum(count * (a - mean) ** 2 for count, a in zip(counts, FRACTIONS, strict=True))
    error = math.sqrt(spread / pairs / pairs)  # the pairs' variance over their number, rooted
    return EloEstimate(elo_of(mean), elo_of(mean - Z95 * error), elo_of(mean + Z95 * error))


@dataclass(slots=True)
class PairCount:
    """The pentanomial count of a match under way, pair by pair."""

    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))

    def record(self, points: float) -> None:
        """Count a pair in which the first player scored `points` (0, 0.5, 1, 1.5 or 2)."""
        if points not in PAIR_SCORES:
            raise SprtError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points!r}")
        self.counts[PAIR_SCORES.index(points)] += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def points(self) -> float:
        """The first player's points over all the pairs' games."""
        return sum(count * score for count, score in zip(self.counts, PAIR_SCORES, strict=True))

    def as_counts(self) -> Counts:
        first, second, third, fourth, fifth = self.counts
        return first, second, third, fourth, fifth

    def estimate(self) -> EloEstimate:
        return estimate(self.as_counts())


@dataclass(slots=True)
class Sprt:
    """One test under way: its terms and the LLR of the count it was last given.

    It keeps each hypothesis's multiplier from the last fit as the next fit's start, which only
    makes the fit quicker (a Newton step or two from a count one pair away): the LLR is the one
    `llr` computes from the count alone.
    """

    terms: SprtTerms
    llr: float = 0.0
    _lams: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def update(self, counts: Counts) -> Hypothesis | None:
        """The LLR of `counts`, kept; the hypothesis it accepts, if any."""
        if len(counts) != len(PAIR_SCORES) or any(count < 0 for count in counts):
            raise SprtError(f"a pentanomial count is five counts of zero or more, not {counts}")
        self.llr = 0.0
        if sum(counts):
            freqs = frequencies(counts)
            p0, self._lams[0] = constrained_mle(freqs, score_of(self.terms.elo0), self._lams[0])
            p1, self._lams[1] = constrained_mle(freqs, score_of(self.terms.elo1), self._lams[1])
            self.llr = sum(
                count * math.log(q1 / q0)
                for count, q0, q1 in zip(counts, p0, p1, strict=True)
                if count
            )
        return self.decision

    @property
    def decision(self) -> Hypothesis | None:
        return self.terms.decision(self.llr)


@dataclass(frozen=True, slots=True)
class Characteristics:
    """What Wald's approximation predicts of a test on pairs drawn from a known distribution."""

    accept_h1: float
    """The chance the test accepts H1."""
    expected_pairs: float
    """The mean number of pairs it plays before deciding."""


def characteristics(terms: SprtTerms, probabilities: tuple[float, ...]) -> Characteristics:
    """Wald's approximation (no overshoot) for pairs scoring with `probabilities`.

    With the counts' frequencies near `probabilities`, each pair adds `z_i = log(p1_i / p0_i)` to
    the LLR, `p0` and `p1` the hypotheses' members nearest `probabilities`. With `h` the root
    other than 0 of `E[exp(h * z)] = 1`, `exp(h * LLR)` is a martingale, which gives the chance
    of ending at the upper bound `b` rather than the lower `a`:
    `(1 - e^(h a)) / (e^(h b) - e^(h a))`; Wald's identity then gives the mean length,
    `E[LLR at the end] / E[z]`, or `-a b / E[z^2]` when `E[z]` is 0.
    """
    p0, _ = constrained_mle(probabilities, score_of(terms.elo0))
    p1, _ = constrained_mle(probabilities, score_of(terms.elo1))
    steps = [math.log(q1 / q0) for q0, q1 in zip(p0, p1, strict=True)]
    drift = sum(p * z for p, z in zip(probabilities, steps, strict=True))
    a, b = terms.lower, terms.upper
    second_moment = sum(p * z * z for p, z in zip(probabilities, steps, strict=True))
    if abs(drift) < 1e-9 * second_moment:
        return Characteristics(-a / (b - a), -a * b / second_moment)
    h = _martingale_exponent(probabilities, steps, drift)
    accept_h1 = (1 - math.exp(h * a)) / (math.exp(h * b) - math.exp(h * a))
    return Characteristics(accept_h1, (accept_h1 * b + (1 - accept_h1) * a) / drift)


def _martingale_exponent(
    probabilities: tuple[float, ...], steps: list[float], drift: float
) -> float:
    """The root `h != 0` of `sum(p_i * exp(h * z_i)) = 1`, on the side opposite the drift's sign
    (the sum is convex in `h`, 1 at 0, with slope `drift` there), by bisection."""

    def excess(h: float) -> float:
        return sum(p * math.exp(h * z) for p, z in zip(probabilities, steps, strict=True)) - 1

    direction = -1.0 if drift > 0 else 1.0
    near, far = 0.0, direction
    while excess(far) < 0:
        near, far = far, 2 * far
    for _ in range(200):
        middle = (near + far) / 2
        if excess(middle) < 0:
            near = middle
        else:
            far = middle
    return (near + far) / 2
