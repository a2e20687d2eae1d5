"""A ladder entrant's skill: a rating with its uncertainty, updated game by game; pure.

A ladder never ends, so its ratings cannot be fitted once at the end as a tournament's Elo is
(`ratings.py`): each game moves its two players' ratings at once, and the table is read at any
moment. What the table must also say is how sure it is: a new entrant, or a new version of one,
has played little, and the pairing rule (`ladder_pairing.py`) gives it games until it is known.
So a skill is a Gaussian belief, `mu` (the likely rating) and `sigma` (its standard deviation),
and the table ranks by the conservative `ordinal`, `mu - 3 sigma`: a rating the entrant is
almost surely above, so a lucky newcomer with two wins does not top entrants with hundreds.

The arithmetic is OpenSkill's (the `openskill` package, Weng and Lin's Bayesian approximation).
Why OpenSkill over the other two well-known systems with uncertainty: TrueSkill's reference
implementation is tied to Microsoft's patent and trademark, and Glicko-2 is defined over rating
periods (a batch of games at once), which a continuous ladder does not have; OpenSkill is
maintained, MIT-licensed, updates after every game, and takes a two-player draw as a tie of
ranks. Of its five models, Plackett-Luce, the library's default: its update handles ties
between any number of players, and the library's examples and defaults are tuned for it, so
nothing here second-guesses it.

The model keeps its defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): `tau` adds a little
uncertainty before each game, so `sigma` never settles at zero and an entrant whose strength
changes can still move; without it a long-lived entry would be frozen in place.

Which games count: `GameResult.rated`, as for the tournament's Elo. A win, loss or draw moves
the ratings (a default counts as the loss it is scored as: a program that crashes or runs out of
time is weaker for it). A double forfeit, or a game an entrant never came to, moves nothing:
both sides scored the same nothing, and the game says nothing about who plays better.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from arbiter.server.tournaments.standings import GameResult

MODEL = PlackettLuce()
"""OpenSkill's Plackett-Luce model with its default parameters (see above)."""
CONFIDENCE = 3.0
"""Standard deviations taken off `mu` in the `ordinal` a table is ranked by."""


@dataclass(frozen=True, slots=True)
class Skill:
    """An entrant's rating, `mu`, and its uncertainty, `sigma` (a standard deviation)."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def ordinal(self) -> float:
        """The conservative rating a table ranks by: `mu - 3 sigma`."""
        return self.mu - CONFIDENCE * self.sigma


def rated(first: Skill, second: Skill, result: GameResult) -> tuple[Skill, Skill]:
    """The two players' skills after `result` (`first` moved first); unchanged after a double
    forfeit, where both sides scored the same nothing. Unlike a tournament's Elo, a ladder rates
    an absence as the loss it is scored as: the ladder pairs an entrant only when it should be
    able to come (a ready version, a bot waiting with a seek), so one that does not is as beaten
    as one that crashes."""
    if result.result == "both_forfeit":
        return first, second
    points = result.scores
    ranks = [1.0 - points[0], 1.0 - points[1]]  # a lower rank is better; a draw ties
    teams = [[MODEL.rating(first.mu, first.sigma)], [MODEL.rating(second.mu, second.sigma)]]
    [[one], [two]] = MODEL.rate(teams, ranks=ranks)
    return Skill(one.mu, one.sigma), Skill(two.mu, two.sigma)
