"""The ladder's pure core: skills with their uncertainty, the table, the pairing rule, tau."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.tournaments.ladder import Ladder, LadderError, kendall_tau
from arbiter.server.tournaments.ladder_pairing import (
    HOUR,
    begun_in_the_hour,
    next_opening,
    pairings,
)
from arbiter.server.tournaments.ladder_ratings import Skill, rated
from arbiter.server.tournaments.standings import GameResult


def win(first: str, second: str, winner: int) -> GameResult:
    return GameResult(first, second, "win", winner)


# -- skills ------------------------------------------------------------------------------------


def test_a_win_moves_the_winner_up_the_loser_down_and_both_become_surer() -> None:
    start = Skill()
    up, down = rated(start, start, win("a", "b", 0))
    assert down.mu < start.mu < up.mu
    assert up.sigma < start.sigma
    assert down.sigma < start.sigma
    assert up.ordinal > down.ordinal


def test_the_same_game_moves_the_same_skills_the_same_way() -> None:
    game = win("a", "b", 1)
    assert rated(Skill(30, 4), Skill(20, 6), game) == rated(Skill(30, 4), Skill(20, 6), game)


def test_a_draw_pulls_two_ratings_together_and_an_upset_moves_them_more() -> None:
    strong, weak = Skill(30, 4), Skill(20, 4)
    drawn = rated(strong, weak, GameResult("a", "b", "draw", None))
    assert weak.mu < drawn[1].mu < drawn[0].mu < strong.mu
    expected = rated(strong, weak, win("a", "b", 0))
    upset = rated(strong, weak, win("a", "b", 1))
    assert strong.mu - upset[0].mu > expected[0].mu - strong.mu


def test_a_double_forfeit_moves_no_rating() -> None:
    nobody = GameResult("a", "b", "both_forfeit", None)
    assert rated(Skill(30, 4), Skill(20, 6), nobody) == (Skill(30, 4), Skill(20, 6))


@pytest.mark.parametrize("kind", ["crash", "absent"])
def test_a_default_counts_as_the_loss_it_is_scored_as(kind: str) -> None:
    defaulted = GameResult("a", "b", "win", 1, (kind, None))
    one, two = rated(Skill(), Skill(), defaulted)
    assert one.mu < two.mu


# -- the table ---------------------------------------------------------------------------------


def test_the_table_ranks_by_the_conservative_rating_and_counts_every_game() -> None:
    ladder = Ladder(["a", "b", "c"])
    for number in range(6):
        ladder.record(win("a", "b", 0) if number % 2 else win("b", "a", 1), float(number))
    ladder.record(GameResult("a", "c", "both_forfeit", None), 6.0)
    table = ladder.table()
    assert [entry.name for entry in table] == ["a", "c", "b"]  # c: unknown, between the two
    assert {entry.name: entry.games for entry in table} == {"a": 7, "b": 6, "c": 1}
    assert table[1].skill == Skill()


def test_a_ladder_refuses_a_repeated_entrant_a_stranger_and_a_game_against_itself() -> None:
    with pytest.raises(LadderError, match="entered once: a repeated"):
        Ladder(["a", "b", "a"])
    ladder = Ladder(["a", "b"])
    with pytest.raises(LadderError, match="'z' is not an entrant"):
        ladder.record(win("a", "z", 0), 0.0)
    with pytest.raises(LadderError, match="'a' cannot play itself"):
        ladder.record(win("a", "a", 0), 0.0)
    assert ladder.games == []
    assert all(entry.games == 0 for entry in ladder.table())


def test_the_uncertainty_shrinks_as_games_are_added() -> None:
    ladder = Ladder(["a", "b"])
    sigmas = []
    for number in range(20):
        ladder.record(win("a", "b", int(number % 3 == 0)), float(number))
        sigmas.append(ladder.entries["a"].skill.sigma)
    assert sigmas == sorted(sigmas, reverse=True)


# -- Kendall's tau -----------------------------------------------------------------------------


def test_tau_is_one_for_the_same_order_minus_one_reversed_and_between_otherwise() -> None:
    order = ["a", "b", "c", "d"]
    assert kendall_tau(order, order) == 1.0
    assert kendall_tau(order[::-1], order) == -1.0
    assert kendall_tau(["b", "a", "c", "d"], order) == pytest.approx(4 / 6)
    with pytest.raises(LadderError, match="not the same names"):
        kendall_tau(["a", "b"], ["a", "c"])


# -- pairing -----------------------------------------------------------------------------------

names = st.lists(st.sampled_from("abcdefgh"), min_size=2, max_size=8, unique=True)


def played_ladder(entrants: list[str], games: int, seed: int) -> Ladder:
    """A ladder after `games` games paired by the rule, each won by the earlier name."""
    ladder, rng = Ladder(entrants), random.Random(seed)
    for number in range(games):
        [(first, second)] = pairings(ladder, rng, now=float(number))
        ladder.record(win(first, second, 0 if first < second else 1), float(number))
    return ladder


@settings(max_examples=60, deadline=None)
@given(
    entrants=names, games=st.integers(0, 40), seed=st.integers(0, 2**32), slots=st.integers(1, 5)
)
def test_pairs_are_of_two_free_entrants_and_never_share_one(
    entrants: list[str], games: int, seed: int, slots: int
) -> None:
    ladder = played_ladder(entrants, games, seed)
    rng = random.Random(seed)
    busy = set(entrants[:1]) if len(entrants) > 2 else set()
    chosen = pairings(ladder, rng, now=float(games), busy=busy, slots=slots)
    seated = [name for pair in chosen for name in pair]
    assert len(seated) == len(set(seated))  # never itself, never two games at once
    assert not busy & set(seated)
    assert len(chosen) == min(slots, (len(entrants) - len(busy)) // 2)  # nobody left idle


@settings(max_examples=60, deadline=None)
@given(entrants=names, games=st.integers(0, 60), seed=st.integers(0, 2**32))
def test_each_pair_splits_its_colours_within_one_game(
    entrants: list[str], games: int, seed: int
) -> None:
    ladder = played_ladder(entrants, games, seed)
    for a, b in itertools.combinations(entrants, 2):
        firsts = Counter(g.result.first for g in ladder.games if {a, b} == set(g.result.players))
        assert abs(firsts[a] - firsts[b]) <= 1


@settings(max_examples=60, deadline=None)
@given(
    entrants=names,
    games=st.integers(0, 30),
    seed=st.integers(0, 2**32),
    per_hour=st.integers(1, 6),
    spacing=st.floats(1.0, 2 * HOUR),
)
def test_nobody_begins_more_than_its_cap_in_any_hour(
    entrants: list[str], games: int, seed: int, per_hour: int, spacing: float
) -> None:
    ladder, rng, now = Ladder(entrants), random.Random(seed), 0.0
    for _ in range(games):
        chosen = pairings(ladder, rng, now=now, per_hour=per_hour)
        if not chosen:
            opening = next_opening(ladder, now=now, per_hour=per_hour)
            assert opening > now
            now = opening
            chosen = pairings(ladder, rng, now=now, per_hour=per_hour)
            assert chosen, "the opening next_opening names has a pair"
        [(first, second)] = chosen
        ladder.record(win(first, second, 0), now)
        assert max(begun_in_the_hour(ladder, now).values()) <= per_hour
        now += spacing


@settings(max_examples=30, deadline=None)
@given(entrants=names, games=st.integers(0, 30), seed=st.integers(0, 2**32))
def test_the_same_table_and_generator_pair_alike(
    entrants: list[str], games: int, seed: int
) -> None:
    ladder = played_ladder(entrants, games, seed)
    assert pairings(ladder, random.Random(seed), now=0.0, slots=4) == pairings(
        ladder, random.Random(seed), now=0.0, slots=4
    )


def test_close_ratings_meet_far_more_often_than_distant_ones() -> None:
    ladder = Ladder(["low", "mid", "high"])
    ladder.entries["low"].skill = Skill(10, 2)
    ladder.entries["mid"].skill = Skill(26, 2)
    ladder.entries["high"].skill = Skill(29, 2)
    rng = random.Random(1)
    met = Counter(frozenset(pair) for _ in range(2000) for pair in pairings(ladder, rng, now=0.0))
    assert met[frozenset({"mid", "high"})] > 10 * met[frozenset({"low", "high"})]


def test_an_uncertain_newcomer_plays_more_than_settled_entrants() -> None:
    ladder = Ladder(["old1", "old2", "old3", "new"])
    for name in ("old1", "old2", "old3"):
        ladder.entries[name].skill = Skill(25, 1.5)
    rng = random.Random(2)
    seated = Counter(
        name for _ in range(2000) for pair in pairings(ladder, rng, now=0.0) for name in pair
    )
    assert seated["new"] > 2 * max(seated["old1"], seated["old2"], seated["old3"])
