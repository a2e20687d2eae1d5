"""The pure parts: the schedule, scoring and standings, Elo with margins, default kinds."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.tournaments.formats import pair_seed
from arbiter.server.tournaments.formats import round_robin as schedule
from arbiter.server.tournaments.ratings import ANCHOR, Pairing, expected_score, fit
from arbiter.server.tournaments.standings import GameResult, standings
from arbiter.server.tournaments.tournament import local_names

# -- the schedule ------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(entrants=st.integers(2, 9), rounds=st.integers(1, 3))
def test_every_pair_meets_twice_a_round_once_from_each_seat(entrants: int, rounds: int) -> None:
    names = [f"p{n}" for n in range(entrants)]
    games = schedule(names, rounds)
    assert [g.number for g in games] == list(range(1, len(games) + 1))
    assert len(games) == rounds * entrants * (entrants - 1)
    for round_number in range(1, rounds + 1):
        seatings = Counter((g.first, g.second) for g in games if g.round == round_number)
        assert set(seatings) == set(itertools.permutations(names, 2))
        assert set(seatings.values()) == {1}


def test_games_come_in_slots_of_disjoint_pairs_so_half_the_field_can_play_at_once() -> None:
    games = schedule(["a", "b", "c", "d"], 1)
    for slot in range(0, len(games), 2):
        first, second = games[slot], games[slot + 1]
        assert not {first.first, first.second} & {second.first, second.second}


def test_the_second_leg_swaps_the_colours_of_the_first() -> None:
    games = schedule(["a", "b", "c"], 1)
    half = len(games) // 2
    assert [(g.second, g.first) for g in games[:half]] == [
        (g.first, g.second) for g in games[half:]
    ]


def test_a_pair_shares_its_random_start_within_a_round_but_not_across_rounds() -> None:
    assert pair_seed("cup", 1, "a", "b") == pair_seed("cup", 1, "b", "a")
    assert pair_seed("cup", 1, "a", "b") != pair_seed("cup", 2, "a", "b")
    assert 0 <= pair_seed("cup", 1, "a", "b") < 2**31


def test_local_entrants_get_seats_of_their_own_numbered_when_entered_twice() -> None:
    seats = [("greedy", "greedy"), ("random", "random"), ("greedy", "greedy")]
    assert local_names(seats, ["alice", "greedy"]) == {
        "local-greedy": "greedy",
        "local-random": "random",
        "local-greedy-2": "greedy",
    }
    assert local_names([("alice", "/home/alice/alice.py")], ["local-alice"]) == {
        "local-alice-2": "/home/alice/alice.py"
    }
    long = local_names([("x" * 70, "cmd=./x")], [])
    assert [len(name) for name in long] == [len("local-") + 52]


# -- scoring ----------------------------------------------------------------------------------


def win(first: str, second: str, winner: int, *defaults: str | None) -> GameResult:
    kinds = (*defaults, None, None)[:2]
    return GameResult(first, second, "win", winner, (kinds[0], kinds[1]))


def test_scores_win_one_draw_half_loss_and_double_forfeit_nothing() -> None:
    assert win("a", "b", 0).scores == (1.0, 0.0)
    assert win("a", "b", 1).scores == (0.0, 1.0)
    assert GameResult("a", "b", "draw", None).scores == (0.5, 0.5)
    assert GameResult("a", "b", "both_forfeit", None).scores == (0.0, 0.0)


def test_a_default_scores_nothing_for_the_defaulter_and_one_for_the_opponent() -> None:
    table = {line.player: line for line in standings(["a", "b"], [win("a", "b", 1, "time", None)])}
    assert (table["a"].points, table["b"].points) == (0.0, 1.0)
    assert table["a"].defaults == {"crash": 0, "illegal": 0, "time": 1, "absent": 0}
    assert (table["a"].losses, table["b"].wins) == (0, 1)


def test_each_game_counts_once_in_exactly_one_column() -> None:
    results = [
        win("a", "b", 0),
        win("b", "a", 0, None, "crash"),
        GameResult("a", "c", "draw", None),
        GameResult("c", "a", "both_forfeit", None),
        GameResult("b", "c", "both_forfeit", None, ("absent", "absent")),
        win("c", "b", 1, "illegal"),
    ]
    for line in standings(["a", "b", "c"], results):
        columns = line.wins + line.draws + line.losses + line.forfeits + line.total_defaults
        assert columns == line.games == 4


def test_standings_order_by_points_then_sonneborn_berger_then_name() -> None:
    # a beats b, b beats c, c beats a: three points each way round; d loses everything.
    results = [win("a", "b", 0), win("b", "c", 0), win("c", "a", 0)]
    results += [win(x, "d", 0) for x in "abc"]
    order = [line.player for line in standings(["d", "c", "b", "a"], results)]
    assert order == ["a", "b", "c", "d"]
    table = {line.player: line for line in standings(["a", "b", "c", "d"], results)}
    assert table["a"].tiebreak == 2.0  # beat b (2 points) and d (0 points)


def test_the_crosstable_lists_each_players_scores_against_each_opponent_in_game_order() -> None:
    results = [win("a", "b", 0), GameResult("b", "a", "draw", None)]
    table = {line.player: line for line in standings(["a", "b"], results)}
    assert table["a"].against == {"b": [1.0, 0.5]}
    assert table["b"].against == {"a": [0.0, 0.5]}
    wire = table["a"].to_wire(1)
    assert wire["against"] == {"b": [1.0, 0.5]}
    assert wire["rank"] == 1


def test_absences_and_double_forfeits_are_not_rated() -> None:
    assert not win("a", "b", 0, None, "absent").rated
    assert not GameResult("a", "b", "both_forfeit", None).rated
    assert win("a", "b", 0, None, "illegal").rated
    table = {
        line.player: line for line in standings(["a", "b"], [win("a", "b", 0, None, "absent")])
    }
    assert table["a"].rating is not None
    assert table["a"].rating.games == 0


# -- Elo -----------------------------------------------------------------------------------------


def test_equal_results_give_equal_ratings_at_the_anchor() -> None:
    ratings = fit(["a", "b"], [Pairing("a", "b", 0.5)] * 10)
    assert ratings["a"].elo == pytest.approx(ANCHOR) == ratings["b"].elo


def test_a_perfect_score_gives_a_finite_rating_above_the_loser() -> None:
    ratings = fit(["a", "b"], [Pairing("a", "b", 1.0)] * 4)
    assert ANCHOR < ratings["a"].elo < ANCHOR + 800
    assert ratings["a"].elo + ratings["b"].elo == pytest.approx(2 * ANCHOR)


def test_the_fit_reproduces_the_observed_score_up_to_the_prior() -> None:
    # 75% over many games is about 191 Elo points apart.
    games = [Pairing("a", "b", 1.0)] * 300 + [Pairing("a", "b", 0.0)] * 100
    ratings = fit(["a", "b"], games)
    assert expected_score(ratings["a"].elo - ratings["b"].elo) == pytest.approx(0.75, abs=0.005)


def test_margins_shrink_as_games_are_added() -> None:
    few = fit(["a", "b"], [Pairing("a", "b", 1.0), Pairing("a", "b", 0.0)] * 2)
    many = fit(["a", "b"], [Pairing("a", "b", 1.0), Pairing("a", "b", 0.0)] * 50)
    assert many["a"].margin < few["a"].margin / 3
    assert many["a"].games == 100


@settings(max_examples=40, deadline=None)
@given(
    scores=st.lists(
        st.tuples(st.sampled_from("abc"), st.sampled_from("abc"), st.sampled_from([0, 0.5, 1])),
        max_size=20,
    )
)
def test_ratings_average_the_anchor_and_margins_are_positive(scores: list) -> None:
    games = [Pairing(a, b, s) for a, b, s in scores if a != b]
    ratings = fit(["a", "b", "c"], games)
    assert sum(r.elo for r in ratings.values()) / 3 == pytest.approx(ANCHOR)
    assert all(r.margin > 0 for r in ratings.values())
