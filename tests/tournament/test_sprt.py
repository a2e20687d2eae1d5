"""The SPRT on colour-swapped pairs (`server.tournaments.sprt`) and `arbiter match`.

The statistics are checked as properties (the LLR rises with the score, is the same seen from
either player, is what the count alone gives however it was reached), then against simulation
(bench/sprt.py with fewer runs and a wider tolerance on the mean length than its own run of a
thousand), then for real: alphabeta against random in King's Court, on a real server.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.client.match import sprt_terms
from arbiter.server.tournaments.sprt import (
    FRACTIONS,
    PAIR_SCORES,
    Counts,
    Hypothesis,
    PairCount,
    Sprt,
    SprtError,
    SprtTerms,
    constrained_mle,
    estimate,
    frequencies,
    llr,
    score_of,
)
from tests.bench.runs import run_bench
from tests.conftest import TIMED
from tests.tournament.helpers import arbiter, arbiter_here, text

counts = st.tuples(*[st.integers(0, 60)] * 5).filter(lambda c: sum(c) > 0)
elos = st.floats(-300, 300, allow_nan=False)
gaps = st.floats(1, 200, allow_nan=False)


def as_counts(values: list[int]) -> Counts:
    first, second, third, fourth, fifth = values
    return first, second, third, fourth, fifth


@given(counts, elos, gaps, st.integers(0, 3))
def test_the_llr_rises_when_a_pair_scores_more(
    count: Counts, elo0: float, gap: float, lower: int
) -> None:
    if count[lower] == 0:
        return
    better = list(count)
    better[lower] -= 1
    better[lower + 1] += 1
    before = llr(count, elo0, elo0 + gap)
    assert llr(as_counts(better), elo0, elo0 + gap) >= before - 1e-6 * max(1, abs(before))


@given(counts, elos, gaps)
def test_the_test_seen_from_the_other_player_is_the_same_test(
    count: Counts, elo0: float, gap: float
) -> None:
    """B's pairs are A's reversed; B's H0 (-elo1) is A's H1 and B's H1 (-elo0) A's H0."""
    mirrored = as_counts(list(reversed(count)))
    assert llr(mirrored, -elo0 - gap, -elo0) == pytest.approx(
        -llr(count, elo0, elo0 + gap), rel=1e-6, abs=1e-6
    )
    assert estimate(mirrored).elo == pytest.approx(-estimate(count).elo)


@given(st.lists(st.sampled_from(PAIR_SCORES), min_size=1, max_size=80))
def test_the_llr_pair_by_pair_is_the_llr_of_the_count(scores: list[float]) -> None:
    test = Sprt(SprtTerms(0, 30))
    count = PairCount()
    for points in scores:
        count.record(points)
        test.update(count.as_counts())
    assert test.llr == pytest.approx(llr(count.as_counts(), 0, 30), rel=1e-9, abs=1e-9)
    assert count.points == sum(scores)


@given(counts, elos)
def test_the_fitted_distribution_has_the_hypothesis_score(count: Counts, elo: float) -> None:
    fitted, _ = constrained_mle(frequencies(count), score_of(elo))
    assert sum(fitted) == pytest.approx(1)
    assert all(p > 0 for p in fitted)
    mean = sum(p * a for p, a in zip(fitted, FRACTIONS, strict=True))
    assert mean == pytest.approx(score_of(elo))


def test_the_bounds_are_walds_and_decide() -> None:
    terms = SprtTerms(0, 5, alpha=0.05, beta=0.1)
    assert terms.lower == pytest.approx(math.log(0.1 / 0.95))
    assert terms.upper == pytest.approx(math.log(0.9 / 0.05))
    assert terms.decision(terms.upper) is Hypothesis.H1
    assert terms.decision(terms.lower) is Hypothesis.H0
    assert terms.decision(0.0) is None


def test_the_estimate_and_its_interval() -> None:
    even = estimate((5, 10, 20, 10, 5))
    assert even.elo == pytest.approx(0)
    assert even.low < 0 < even.high
    assert even.low == pytest.approx(-even.high)
    ahead = estimate((2, 5, 20, 15, 8))
    assert 0 < ahead.low < ahead.elo < ahead.high
    assert estimate((0, 0, 0, 0, 3)).elo == math.inf  # won every game: no finite estimate


@pytest.mark.parametrize(
    ("words", "alpha", "beta", "sentence"),
    [
        (["elo0=5", "elo1=5"], 0.05, 0.05, "elo0 (5) must be below elo1 (5)"),
        (["elo0=10", "elo1=0"], 0.05, 0.05, "elo0 (10) must be below elo1 (0)"),
        (["elo0=0", "elo1=5"], 0.5, 0.05, "alpha (0.5) must be between 0 and 0.5"),
        (["elo0=0", "elo1=5"], 0.05, 0.0, "beta (0) must be between 0 and 0.5"),
        (["elo0=0", "elo2=5"], 0.05, 0.05, "--sprt takes elo0=X elo1=Y, and 'elo2=5' is neither"),
        (["elo0=0", "5"], 0.05, 0.05, "and '5' is neither"),
        (["elo0=0"], 0.05, 0.05, "--sprt needs elo1= as well"),
        (["elo0=0", "elo1=five"], 0.05, 0.05, "elo1 must be a number of Elo points, not 'five'"),
        (["elo0=0", "elo0=1", "elo1=5"], 0.05, 0.05, "--sprt was given elo0 twice"),
        (["elo0=0", "elo1=inf"], 0.05, 0.05, "elo1 must be a finite number"),
    ],
)
def test_terms_that_cannot_decide_get_a_sentence(
    words: list[str], alpha: float, beta: float, sentence: str
) -> None:
    with pytest.raises(SprtError, match=re.escape(sentence)):
        sprt_terms(words, alpha, beta)


def test_a_pair_scores_in_half_points() -> None:
    with pytest.raises(SprtError, match=re.escape("not 3")):
        PairCount().record(3)


@pytest.mark.long
def test_simulated_tests_keep_their_error_rates_and_walds_length() -> None:
    """bench/sprt.py's simulation with 250 runs a case: the rates within 3 binomial standard
    errors of alpha and beta, the mean length within 20 % of Wald's (the bench's 1,000 runs
    hold it to 10 %)."""
    done = run_bench(
        "sprt.py", "--only", "simulation", "--runs", "250", "--mean-tolerance", "0.2",
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(r"^\s+(-?\d+) +([\d.]+) +([\d.]+) .* met \(", done.stdout, re.MULTILINE)
    assert [elo for elo, *_ in rows] == ["0", "5", "40", "80"], done.stdout


@TIMED  # the search plays within its budget: the coverage tracer would weaken it
async def test_alphabeta_is_found_stronger_than_random_and_the_games_are_kept(
    tmp_path: Path,
) -> None:
    db = tmp_path / "match.db"
    done = await arbiter(
        "match", "alphabeta", "random", "--game", "kings-court", "--sprt", "elo0=0",
        "elo1=100", "--time", "move=0.05", "--seed", "3", "--db", str(db), seconds=120,
    )  # fmt: skip
    out = text(done)
    accepted = re.search(r"^H1 accepted after (\d+) games \(elo0=0 elo1=100", out, re.MULTILINE)
    assert accepted is not None, out
    games = int(accepted[1])
    assert games < 200
    assert re.search(
        rf"^games {games}, score [\d.½]+-[\d.½]+, LLR [\d.]+ \[-2\.94, 2\.94\]", out, re.MULTILINE
    )
    exported = await arbiter("export", "--db", str(db))
    records = [json.loads(line) for line in text(exported).splitlines()]
    assert len(records) == games
    for first, second in zip(records[::2], records[1::2], strict=True):  # colours swapped
        assert first["players"] == list(reversed(second["players"]))


async def test_a_fixed_match_plays_whole_pairs_from_shared_starts(tmp_path: Path) -> None:
    db = tmp_path / "match.db"
    done = await arbiter(
        "match", "greedy", "random", "--game", "war-of-life", "--games", "3",
        "--time", "move=0.05", "--seed", "4", "--db", str(db),
    )  # fmt: skip
    out = text(done)
    assert re.search(r"^pair 2: greedy [\d.½]+-[\d.½]+ random ", out, re.MULTILINE), out
    assert "greedy vs random: 4 games played" in out
    assert "LLR" not in out
    exported = await arbiter("export", "--db", str(db))
    records = [json.loads(line) for line in text(exported).splitlines()]
    assert len(records) == 4
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first["options"] == second["options"]  # the same random start, twice
        assert first["players"] == ["greedy", "random"]
        assert second["players"] == ["random", "greedy"]


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--sprt", "elo0=5", "elo1=0"], "arbiter: elo0 (5) must be below elo1 (0)"),
        (["--sprt", "elo0=0", "elo2=5"], "'elo2=5' is neither"),
        (["--sprt", "elo0=0", "elo1=5", "--alpha", "0.7"], "alpha (0.7) must be between 0"),
        (["--games", "0"], "expected a whole number of at least 1, not '0'"),
        (["--games", "-4"], "expected a whole number of at least 1, not '-4'"),
        (["--games", "2", "--sprt", "elo0=0", "elo1=5"], "not allowed with argument"),
        ([], "one of the arguments --sprt --games is required"),
    ],
)
async def test_bad_input_gets_a_sentence_and_plays_nothing(args: list[str], sentence: str) -> None:
    done = await arbiter_here("match", "greedy", "random", "--game", "shobu", *args)
    assert done.returncode == 2
    assert sentence in done.stderr.decode()
    assert done.stdout == b""


async def test_an_unknown_agent_is_named() -> None:
    done = await arbiter_here("match", "greedy", "nosuch", "--game", "shobu", "--games", "2")
    assert done.returncode == 2
    assert "nosuch" in done.stderr.decode()
    assert done.stdout == b""
