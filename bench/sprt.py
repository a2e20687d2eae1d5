"""Whether the SPRT keeps its promises: simulated runs of known Elo, then a real match.

    python bench/sprt.py [--runs N] [--seed S] [--only simulation|real] [--mean-tolerance F]

Simulation: for each true Elo difference in `CASES` (below elo0, at elo0, at elo1, beyond
elo1), `--runs` tests of `TERMS` on pairs drawn from `pair_distribution`'s model (draws at a
fixed rate, the first seat's advantage cancelled inside each pair). Every run is the test the
command runs (`server.tournaments.sprt.Sprt`, its LLR refitted after every pair), played to its
decision. Printed per case: how often H1 was accepted, the mean games, and what Wald's
approximation (`sprt.characteristics`) predicts of both. Goals: at or below elo0, H1 accepted at
most alpha of the time plus the simulation's binomial margin (`MARGIN_SE` standard errors of a
rate alpha over the runs); at or above elo1, H0 at most beta plus its margin; in every case the
mean number of games within `--mean-tolerance` (10 %) of Wald's.

Real: `arbiter match alphabeta random --game kings-court --sprt elo0=0 elo1=100`'s match, on a
real server on 127.0.0.1, must accept H1 in fewer than `REAL_LIMIT` games.

Exits 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import bisect
import math
import random
import sys
import time
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

# Run as a script, this folder comes first on the path, and its server.py (the server benchmark)
# would hide the `server` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import trio  # noqa: E402

from arbiter.client.match import MatchPlan, play_match  # noqa: E402
from arbiter.games import get_game  # noqa: E402
from arbiter.protocol import TimeControl  # noqa: E402
from arbiter.server.tournaments.sprt import (  # noqa: E402
    PAIR_SCORES,
    Hypothesis,
    PairCount,
    Sprt,
    SprtTerms,
    characteristics,
    score_of,
)

TERMS = SprtTerms(elo0=5, elo1=40, alpha=0.05, beta=0.05)
"""Wide enough apart that a run is some hundreds of games, so a thousand runs take a minute."""
CASES = (0.0, TERMS.elo0, TERMS.elo1, 2 * TERMS.elo1)
DRAW_RATE = 0.3
FIRST_SEAT = 0.05
"""How much more often the first seat wins than the same player in the second seat."""
MARGIN_SE = 3
REAL_LIMIT = 200
REAL_TERMS = SprtTerms(elo0=0, elo1=100)
REAL_TIME = "move=0.05"


def pair_distribution(elo: float) -> tuple[float, ...]:
    """The pentanomial probabilities of a player `elo` points above its opponent, each game
    won, drawn or lost independently: draws at `DRAW_RATE`, the first seat's wins raised by
    `FIRST_SEAT` at the second seat's expense, the expected score per game `score_of(elo)`."""
    score = score_of(elo)
    win = score - DRAW_RATE / 2
    as_first = (win + FIRST_SEAT, DRAW_RATE, 1 - DRAW_RATE - win - FIRST_SEAT)
    as_second = (win - FIRST_SEAT, DRAW_RATE, 1 - DRAW_RATE - win + FIRST_SEAT)
    pairs = [0.0] * len(PAIR_SCORES)
    for first, p in enumerate(as_first):  # 0 a win, 1 a draw, 2 a loss
        for second, q in enumerate(as_second):
            pairs[4 - first - second] += p * q
    return tuple(pairs)


@dataclass(frozen=True)
class Case:
    elo: float
    runs: int
    accepted_h1: int
    mean_games: float
    predicted_h1: float
    predicted_games: float

    def rate_h1(self) -> float:
        return self.accepted_h1 / self.runs


def run_once(probabilities: tuple[float, ...], rng: random.Random) -> tuple[Hypothesis, int]:
    """One test to its decision; the decision and the games it took."""
    cumulative = list(accumulate(probabilities))
    test = Sprt(TERMS)
    count = PairCount()
    while True:
        drawn = min(bisect.bisect_right(cumulative, rng.random()), len(PAIR_SCORES) - 1)
        count.record(PAIR_SCORES[drawn])
        decision = test.update(count.as_counts())
        if decision is not None:
            return decision, 2 * count.pairs


def simulate(elo: float, runs: int, rng: random.Random) -> Case:
    probabilities = pair_distribution(elo)
    results = [run_once(probabilities, rng) for _ in range(runs)]
    theory = characteristics(TERMS, probabilities)
    return Case(
        elo,
        runs,
        sum(decision is Hypothesis.H1 for decision, _ in results),
        sum(games for _, games in results) / runs,
        theory.accept_h1,
        2 * theory.expected_pairs,
    )


def misses(case: Case, mean_tolerance: float) -> list[str]:
    """The goals `case` missed, each a sentence."""
    missed = []
    if case.elo <= TERMS.elo0:
        limit = TERMS.alpha + MARGIN_SE * math.sqrt(TERMS.alpha * (1 - TERMS.alpha) / case.runs)
        if case.rate_h1() > limit:
            missed.append(f"false positives {case.rate_h1():.3f} above {limit:.3f}")
    if case.elo >= TERMS.elo1:
        limit = TERMS.beta + MARGIN_SE * math.sqrt(TERMS.beta * (1 - TERMS.beta) / case.runs)
        if 1 - case.rate_h1() > limit:
            missed.append(f"false negatives {1 - case.rate_h1():.3f} above {limit:.3f}")
    off = case.mean_games / case.predicted_games - 1
    if abs(off) > mean_tolerance:
        missed.append(f"mean games {off:+.1%} off Wald's, beyond ±{mean_tolerance:.0%}")
    return missed


def run_simulation(runs: int, seed: int, mean_tolerance: float) -> bool:
    print(
        f"simulation: elo0={TERMS.elo0:g} elo1={TERMS.elo1:g} alpha={TERMS.alpha:g}"
        f" beta={TERMS.beta:g}, draws {DRAW_RATE:.0%}, {runs} runs per case"
    )
    print(f"{'elo':>6} {'H1':>7} {'Wald H1':>8} {'games':>8} {'Wald':>8} {'off':>7}  goals")
    rng = random.Random(seed)
    passed = True
    for elo in CASES:
        began = time.perf_counter()
        case = simulate(elo, runs, rng)
        missed = misses(case, mean_tolerance)
        passed = passed and not missed
        print(
            f"{elo:>6g} {case.rate_h1():>7.3f} {case.predicted_h1:>8.3f} {case.mean_games:>8.1f}"
            f" {case.predicted_games:>8.1f} {case.mean_games / case.predicted_games - 1:>+7.1%}"
            f"  {'; '.join(missed) or 'met'} ({time.perf_counter() - began:.1f} s)",
            flush=True,
        )
    return passed


def run_real(seed: int) -> bool:
    game = get_game("kings-court")
    plan = MatchPlan(
        game, ("alphabeta", "random"), terms=REAL_TERMS, time=TimeControl.parse(REAL_TIME)
    )
    began = time.perf_counter()
    result = trio.run(lambda: play_match(plan, seed=seed))
    games = 2 * result.count.pairs
    decided = result.sprt.decision if result.sprt else None
    print(
        f"real: alphabeta vs random, kings-court, {REAL_TIME}, elo0={REAL_TERMS.elo0:g}"
        f" elo1={REAL_TERMS.elo1:g}: {decided.value if decided else 'no decision'} after"
        f" {games} games, LLR {result.sprt.llr if result.sprt else 0:.2f},"
        f" Elo {result.count.estimate().text()}"
        f" ({time.perf_counter() - began:.1f} s)"
    )
    return decided is Hypothesis.H1 and games < REAL_LIMIT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs per case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("simulation", "real"))
    parser.add_argument("--mean-tolerance", type=float, default=0.10)
    args = parser.parse_args()
    passed = True
    if args.only in (None, "simulation"):
        passed = run_simulation(args.runs, args.seed, args.mean_tolerance) and passed
    if args.only in (None, "real"):
        passed = run_real(args.seed) and passed
    if not passed:
        print("a goal was missed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
