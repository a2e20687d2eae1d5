"""Elo ratings with error margins, fitted to a set of game results: pure arithmetic, no I/O.

Why a fit and not the running Elo update (`r += K * (score - expected)`): the running update
depends on the order the games were played in and has no error margin, while a tournament's
games are played in an order the schedule chose. The maximum-likelihood fit (what BayesElo and
Ordo compute) uses every game at once, and the curvature of the likelihood at its peak gives the
margin: how far the data let a rating move.

The model is Elo's own: a player rated `d` points above its opponent scores
`1 / (1 + 10 ** (-d / 400))` on average, a draw counting half a win for each side. A player who
won (or lost) every game has no finite best rating, so, like BayesElo's prior, every player gets
`PRIOR_DRAWS` virtual draws against a phantom rated `ANCHOR`: ratings stay finite, a player with
few games stays near the anchor, and the scale is pinned (otherwise adding 100 points to everyone
would fit as well). The ratings are then shifted so that their average is `ANCHOR`.

Margins are `Z95` standard errors of each rating against the pool's average (Ordo's choice),
from the inverse of the Fisher information. Measured against the phantom instead, every margin
would stay wide however many games were played, since the whole pool may drift against a
phantom that played no real game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ANCHOR = 1500.0
"""The phantom's rating: the centre the scale is pinned to."""
PRIOR_DRAWS = 1.0
"""Virtual draws each player has against the phantom (BayesElo's `prior`)."""
Z95 = 1.96
"""Standard errors in a 95 % margin."""
K = math.log(10) / 400
"""Elo points to natural-log odds."""
MAX_STEP = 400.0
"""Largest change of one rating in one Newton step: keeps the first steps from overshooting."""
TOLERANCE = 1e-7
MAX_ITERATIONS = 100


@dataclass(frozen=True, slots=True)
class Pairing:
    """One rated game: `score` is what `first` scored against `second` (1, 0.5 or 0)."""

    first: str
    second: str
    score: float


@dataclass(frozen=True, slots=True)
class Rating:
    player: str
    elo: float
    margin: float
    """Half the width of the 95 % interval, in Elo points."""
    games: int


def fit(players: Sequence[str], games: Iterable[Pairing]) -> dict[str, Rating]:
    """Every player's rating and margin; a player without games gets the anchor and the prior's
    wide margin."""
    index = {player: number for number, player in enumerate(players)}
    played = [(index[g.first], index[g.second], g.score) for g in games]
    ratings = [ANCHOR] * len(players)
    for _ in range(MAX_ITERATIONS):
        gradient, information = _derivatives(ratings, played)
        step = solve(information, gradient)
        for number, change in enumerate(step):
            ratings[number] += max(-MAX_STEP, min(MAX_STEP, change))
        if max(map(abs, step), default=0.0) < TOLERANCE:
            break
    _, information = _derivatives(ratings, played)
    covariance = invert(information)
    shift = ANCHOR - sum(ratings) / len(ratings) if ratings else 0.0
    counts = [0] * len(players)
    for first, second, _ in played:
        counts[first] += 1
        counts[second] += 1
    return {
        player: Rating(player, ratings[n] + shift, _margin(covariance, n), counts[n])
        for player, n in index.items()
    }


def _margin(covariance: list[list[float]], player: int) -> float:
    """Z95 standard errors of `rating - average rating`: the variance of that contrast is
    v' C v with v = e_player - 1/n."""
    size = len(covariance)
    weights = [(1.0 if n == player else 0.0) - 1.0 / size for n in range(size)]
    variance = sum(
        weights[a] * covariance[a][b] * weights[b] for a in range(size) for b in range(size)
    )
    return Z95 * math.sqrt(max(0.0, variance))


def expected_score(difference: float) -> float:
    """What a player rated `difference` points above its opponent scores on average."""
    return 1.0 / (1.0 + math.exp(-K * difference))


def _derivatives(
    ratings: list[float], played: list[tuple[int, int, float]]
) -> tuple[list[float], list[list[float]]]:
    """The log-likelihood's gradient and its negated Hessian (the Fisher information)."""
    size = len(ratings)
    gradient = [0.0] * size
    information = [[0.0] * size for _ in range(size)]
    for number, rating in enumerate(ratings):
        p = expected_score(rating - ANCHOR)
        gradient[number] += K * PRIOR_DRAWS * (0.5 - p)
        information[number][number] += K * K * PRIOR_DRAWS * p * (1 - p)
    for first, second, score in played:
        p = expected_score(ratings[first] - ratings[second])
        weight = K * K * p * (1 - p)
        gradient[first] += K * (score - p)
        gradient[second] -= K * (score - p)
        information[first][first] += weight
        information[second][second] += weight
        information[first][second] -= weight
        information[second][first] -= weight
    return gradient, information


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x == vector."""
    return [row[0] for row in _gauss_jordan(matrix, [[value] for value in vector])]


def invert(matrix: list[list[float]]) -> list[list[float]]:
    size = len(matrix)
    return _gauss_jordan(matrix, [[float(r == c) for c in range(size)] for r in range(size)])


def _gauss_jordan(matrix: list[list[float]], right: list[list[float]]) -> list[list[float]]:
    """X with matrix @ X == right, by Gauss-Jordan elimination with partial pivoting (the
    matrix is positive definite here, thanks to the prior): O(n^3), n the number of players."""
    size = len(matrix)
    rows = [[*matrix[n], *right[n]] for n in range(size)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda row: abs(rows[row][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [value / lead for value in rows[column]]
        for row in range(size):
            factor = rows[row][column]
            if row != column and factor:
                rows[row] = [a - factor * b for a, b in zip(rows[row], rows[column], strict=True)]
    return [row[size:] for row in rows]
