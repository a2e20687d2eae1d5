"""Leagues gated by boss bots, the pure part: which league a skill stands in (monotone in `mu`,
never past a boss it is not above with the confidence), the placements the grades export reads,
and a set of leagues refused whole with every reason."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.agents.strength import TIERS, strengths
from arbiter.server.storage.leagues import League, LeagueSet, StoredLeagues
from arbiter.server.tournaments.ladder_ratings import Skill
from arbiter.server.tournaments.leagues import (
    LeagueRefused,
    Placement,
    beat_probability,
    checked,
    league_index,
    parse_league,
    placements,
)

KINGS_COURT = strengths("kings-court")
THREE = [
    League("Bronze", "random", "D"),
    League("Silver", "greedy", "C"),
    League("Gold", "alphabeta", "B"),
]

mus = st.floats(min_value=-20, max_value=70)
sigmas = st.floats(min_value=0.1, max_value=10)
skills = st.builds(Skill, mus, sigmas)
confidences = st.floats(min_value=0.51, max_value=0.99)


@given(st.lists(skills, min_size=1, max_size=5), skills, mus, confidences)
def test_a_higher_mu_never_stands_in_a_lower_league(
    bosses: list[Skill], entrant: Skill, more: float, confidence: float
) -> None:
    higher = Skill(max(entrant.mu, more), entrant.sigma)
    assert league_index(higher, bosses, confidence) >= league_index(entrant, bosses, confidence)


@given(st.lists(skills, min_size=1, max_size=5), skills, confidences)
def test_an_entrant_is_never_above_a_boss_it_is_not_above_with_the_confidence(
    bosses: list[Skill], entrant: Skill, confidence: float
) -> None:
    index = league_index(entrant, bosses, confidence)
    assert 0 <= index < len(bosses)
    if index > 0:
        assert all(beat_probability(entrant, boss) >= confidence for boss in bosses[: index + 1])
    if index + 1 < len(bosses):
        assert any(beat_probability(entrant, boss) < confidence for boss in bosses[: index + 2])


def test_the_probability_is_the_normal_of_the_gap_over_the_joint_spread() -> None:
    assert beat_probability(Skill(25, 3), Skill(25, 4)) == pytest.approx(0.5)
    assert beat_probability(Skill(30, 3), Skill(25, 4)) == pytest.approx(
        0.5 * math.erfc(-1 / math.sqrt(2))
    )
    assert beat_probability(Skill(20, 3), Skill(25, 4)) == pytest.approx(0.1587, abs=1e-4)


def test_a_newcomer_starts_in_the_lowest_league_and_climbs_as_it_is_known_above_each_boss() -> None:
    bosses = [Skill(20, 1), Skill(30, 1), Skill(40, 1)]
    assert league_index(Skill(), bosses, 0.95) == 0
    assert league_index(Skill(35, 8), bosses, 0.95) == 0  # likely above, not surely
    assert league_index(Skill(35, 2), bosses, 0.95) == 1
    assert league_index(Skill(50, 2), bosses, 0.95) == 2
    assert league_index(Skill(10, 1), bosses, 0.95) == 0  # below every boss: still the lowest


def test_placements_follow_each_authors_class_and_leave_out_bosses() -> None:
    everyone = LeagueSet("kings-court", "", tuple(THREE), 0.9)
    cs101 = LeagueSet(
        "kings-court", "cs101", (League("Low", "random", "F"), League("High", "greedy", "A")), 0.9
    )
    stored = StoredLeagues({"": everyone, "cs101": cs101}, {"ann": "cs101"})
    found = placements(
        {
            "boss:random": Skill(10, 1),
            "boss:greedy": Skill(25, 1),
            "ann/bot@v1": Skill(35, 1),
            "bob/bot@v2": Skill(35, 1),
            "cat/bot@v1": Skill(),
        },
        stored,
    )
    assert found == {
        "ann/bot@v1": Placement("High", "A"),
        "bob/bot@v2": Placement("Silver", "C"),  # Gold's boss has not played: the first guess
        "cat/bot@v1": Placement("Bronze", "D"),
    }
    assert placements({"ann/bot@v1": Skill()}, StoredLeagues({}, {})) == {}


def test_a_set_in_order_is_accepted() -> None:
    accepted = checked("kings-court", "", THREE, 0.95, KINGS_COURT)
    assert accepted == LeagueSet("kings-court", "", tuple(THREE), 0.95)


REFUSED = {
    "out of order": (
        [League("Bronze", "greedy", "D"), League("Silver", "random", "C")],
        0.95,
        "Silver's boss 'random' is not stronger than Bronze's 'greedy'",
    ),
    "the same boss twice": (
        [League("Bronze", "greedy", "D"), League("Silver", "greedy", "C")],
        0.95,
        "Silver's boss 'greedy' is not stronger than Bronze's 'greedy'",
    ),
    "unknown agent": (
        [League("Bronze", "random", "D"), League("Silver", "nobody", "C")],
        0.95,
        "Silver's boss 'nobody' has no stated strength in kings-court"
        " (agents with one, weakest first: random, greedy, mcts, alphabeta)",
    ),
    "duplicate names": (
        [League("Bronze", "random", "D"), League("Bronze", "greedy", "C")],
        0.95,
        "the league 'Bronze' is named twice",
    ),
    "confidence 0.5": (THREE, 0.5, "the confidence must be between 0.5 and 1"),
    "confidence 1": (THREE, 1.0, "the confidence must be between 0.5 and 1"),
    "no league": ([], 0.95, "give one league or more"),
}


@pytest.mark.parametrize("kind", REFUSED)
def test_a_bad_set_is_refused_with_its_reason(kind: str) -> None:
    leagues, confidence, reason = REFUSED[kind]
    with pytest.raises(LeagueRefused, match="the leagues of kings-court are refused") as refused:
        checked("kings-court", "", leagues, confidence, KINGS_COURT)
    assert reason in str(refused.value)


def test_same_tier_bosses_are_not_in_order() -> None:
    shobu = [League("Bronze", "easy", "D"), League("Silver", "greedy", "C")]
    with pytest.raises(LeagueRefused, match="'greedy' is not stronger than Bronze's 'easy'"):
        checked("shobu", "", shobu, 0.95, strengths("shobu"))


def test_every_game_states_a_strength_order() -> None:
    assert all(tiers and tiers[0] == ("random",) for tiers in TIERS.values())
    assert strengths("no-such-game") == {}


@pytest.mark.parametrize(
    ("text", "league"),
    [
        ("Silver=greedy:C", League("Silver", "greedy", "C")),
        (" Gold = alphabeta : B+ ", League("Gold", "alphabeta", "B+")),
    ],
)
def test_a_league_is_written_name_boss_band(text: str, league: League) -> None:
    assert parse_league(text) == league


@pytest.mark.parametrize(
    "text", ["Silver", "Silver=greedy", "=greedy:C", "Silver=:C", "Silver=greedy:"]
)
def test_a_league_missing_a_part_is_refused(text: str) -> None:
    with pytest.raises(LeagueRefused, match="write NAME=BOSS:BAND"):
        parse_league(text)
