"""Leagues gated by boss bots: which league each ladder entrant stands in, and whether a set of
leagues is one an instructor may define; pure.

A game's leagues run lowest first, each with a boss (a built-in agent, an entrant of the ladder
of its own, `boss:greedy`, rated like everyone) and the grade band it stands for. An entrant is
in the highest league whose boss, and every lower league's boss, it is above with the set's
confidence; everyone starts in the lowest league, whatever its boss. "Above with confidence c"
is the ladder's own belief that the entrant beats the boss: both skills are Gaussians, so

    P(skill_entrant > skill_boss) = Phi((mu_e - mu_b) / sqrt(sigma_e^2 + sigma_b^2)) >= c.

Why this and not OpenSkill's `predict_win`: that one adds the model's `beta` (the noise of one
game's performance) to the spread, so it answers who wins the next game, which stays uncertain
however many games are played; a promotion asks whether the skill is above the boss's, which
the ratings become sure of as games are added.

A new entrant and an unplayed boss both hold the model's first guess, so a probability of 0.5
promotes no one: a league is earned by games.

A set is refused whole, every problem in its sentence, if a boss is not stronger than the boss
below it by the strength the agents' side states (`AgentProgram.strengths`), if a boss has no
stated strength in the game, if two leagues share a name, or if the confidence is not between
0.5 and 1.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arbiter.server.storage.leagues import League, LeagueSet, StoredLeagues
from arbiter.server.tournaments.ladder_ratings import Skill

BOSS_PREFIX = "boss:"
"""A boss's entrant name on the ladder: `boss:` and its agent's name."""
DEFAULT_CONFIDENCE = 0.95


class LeagueRefused(ValueError):
    """A set of leagues that cannot be defined; the sentence lists every reason."""


@dataclass(frozen=True, slots=True)
class Placement:
    """An entrant's league and the grade band it stands for."""

    league: str
    band: str


def boss_entrant(agent: str) -> str:
    return BOSS_PREFIX + agent


def parse_league(text: str) -> League:
    """`NAME=BOSS:BAND`, as the admin command takes it (`Silver=greedy:C`)."""
    name, equals, rest = text.partition("=")
    boss, colon, band = rest.partition(":")
    if not (equals and colon and name.strip() and boss.strip() and band.strip()):
        raise LeagueRefused(f"{text!r} is not a league: write NAME=BOSS:BAND, e.g. Silver=greedy:C")
    return League(name.strip(), boss.strip(), band.strip())


def checked(
    game: str,
    class_name: str,
    leagues: Sequence[League],
    confidence: float,
    strengths: Mapping[str, int],
) -> LeagueSet:
    """The set, if it can be defined; `LeagueRefused` with every problem otherwise.
    `strengths` is each agent with a stated strength in `game`, by tier (0 the weakest)."""
    problems = [
        *_range_problems(leagues, confidence),
        *_name_problems(leagues),
        *_boss_problems(game, leagues, strengths),
    ]
    if problems:
        raise LeagueRefused(f"the leagues of {game} are refused: " + "; ".join(problems))
    return LeagueSet(game, class_name, tuple(leagues), confidence)


def _range_problems(leagues: Sequence[League], confidence: float) -> list[str]:
    problems = [] if leagues else ["give one league or more"]
    if not 0.5 < confidence < 1:
        problems.append(
            f"the confidence must be between 0.5 and 1 (not included), not {confidence}"
        )
    return problems


def _name_problems(leagues: Sequence[League]) -> list[str]:
    names = [league.name for league in leagues]
    repeated = sorted({name for name in names if names.count(name) > 1})
    return [f"the league {name!r} is named twice" for name in repeated]


def _boss_problems(game: str, leagues: Sequence[League], strengths: Mapping[str, int]) -> list[str]:
    stated = ", ".join(sorted(strengths, key=lambda agent: (strengths[agent], agent)))
    problems = [
        f"{league.name}'s boss {league.boss!r} has no stated strength in {game}"
        f" (agents with one, weakest first: {stated or 'none'})"
        for league in leagues
        if league.boss not in strengths
    ]
    known = [league for league in leagues if league.boss in strengths]
    for lower, higher in itertools.pairwise(known):
        if strengths[higher.boss] <= strengths[lower.boss]:
            problems.append(
                f"{higher.name}'s boss {higher.boss!r} is not stronger than {lower.name}'s"
                f" {lower.boss!r}: bosses go from the lowest league's up, each stronger"
            )
    return problems


def beat_probability(entrant: Skill, boss: Skill) -> float:
    """How sure the ratings are that the entrant's skill is above the boss's."""
    spread = math.sqrt(entrant.sigma**2 + boss.sigma**2)
    return 0.5 * math.erfc(-(entrant.mu - boss.mu) / (spread * math.sqrt(2)))


def league_index(entrant: Skill, bosses: Sequence[Skill], confidence: float) -> int:
    """The entrant's league (0 the lowest): the highest whose boss and every lower league's it
    is above with `confidence`; the lowest if none."""
    reached = 0
    for index, boss in enumerate(bosses):
        if beat_probability(entrant, boss) < confidence:
            break
        reached = index
    return reached


def author_of(entrant: str) -> str:
    """A version's author: `ann` of `ann/bot@v2`."""
    return entrant.partition("/")[0]


def placements(skills: Mapping[str, Skill], leagues: StoredLeagues) -> dict[str, Placement]:
    """Each version's league and grade band, by its entrant name (`ann/bot@v2`), from the
    ladder's skills (a boss not rated yet holds the model's first guess): what the course's
    export maps to grades. A boss, and a version whose author has no leagues, has none."""
    found: dict[str, Placement] = {}
    for entrant, skill in skills.items():
        one = leagues.of(author_of(entrant))
        if entrant.startswith(BOSS_PREFIX) or one is None:
            continue
        bosses = [skills.get(boss_entrant(league.boss), Skill()) for league in one.leagues]
        league = one.leagues[league_index(skill, bosses, one.confidence)]
        found[entrant] = Placement(league.name, league.band)
    return found
