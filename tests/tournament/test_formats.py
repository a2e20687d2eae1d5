"""Swiss, knockout and gauntlet pairing, pure: the rules as properties over random results.

Results are drawn per game (a win either way, a draw, a double forfeit), the format adds its
next games once all before are finished, exactly as the runner asks, until it has none.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.storage.interface import ScheduledGame
from arbiter.server.storage.statuses import GameStatus
from arbiter.server.tournaments import knockout
from arbiter.server.tournaments.formats import (
    Format,
    FormatError,
    bracket,
    checked_format,
    contenders,
    first_games,
    next_games,
    pair_seed,
    start_leg,
    swiss_byes,
)

OUTCOMES = ("first", "second", "draw", "both_forfeit")


def finish(game: ScheduledGame, outcome: str) -> None:
    game.status = GameStatus.FINISHED
    game.result = {"first": "win", "second": "win"}.get(outcome, outcome)
    game.winner = {"first": 0, "second": 1}.get(outcome)


def play_out(
    format_: Format,
    entrants: Sequence[str],
    rounds: int,
    outcomes: Iterator[str],
    paired_starts: bool = False,
) -> Iterator[list[ScheduledGame]]:
    """Each batch of games the format adds, played with the next outcomes, until none."""
    games = first_games(format_, entrants, rounds, paired_starts)
    played: list[ScheduledGame] = []
    while games:
        assert [g.number for g in games] == list(
            range(len(played) + 1, len(played) + 1 + len(games))
        )
        for game in games:
            finish(game, next(outcomes))
        played += games
        yield games
        games = next_games(format_, entrants, rounds, played, paired_starts)


def names(count: int) -> list[str]:
    return [f"p{i:02}" for i in range(count)]


# -- Swiss -------------------------------------------------------------------------------------


def colour_fits(colour: Counter[str], a: str, b: str) -> bool:
    return not (colour[a] >= 2 and colour[b] >= 2) and not (colour[a] <= -2 and colour[b] <= -2)


def rematch_free_round_exists(
    field: Sequence[str], met: set[frozenset[str]], byes: set[str], colour: Counter[str]
) -> bool:
    """Brute force: some bye (to an entrant without one) and pairing of the rest repeats no
    pair and keeps colours within bounds."""
    candidates: list[str | None] = [p for p in field if p not in byes] if len(field) % 2 else [None]
    return any(_pairable([p for p in field if p != bye], met, colour) for bye in candidates)


def _pairable(rest: list[str], met: set[frozenset[str]], colour: Counter[str]) -> bool:
    if not rest:
        return True
    top, others = rest[0], rest[1:]
    return any(
        frozenset((top, other)) not in met
        and colour_fits(colour, top, other)
        and _pairable([p for p in others if p != other], met, colour)
        for other in others
    )


@settings(max_examples=150, deadline=None)
@given(
    count=st.integers(2, 10),
    data=st.data(),
    seed=st.integers(0, 2**32),
)
def test_swiss_rounds_keep_the_pairing_rules(count: int, data: st.DataObject, seed: int) -> None:
    entrants = names(count)
    rounds = data.draw(st.integers(1, count - 1))
    draw = random.Random(seed)
    outcomes = iter(lambda: draw.choice(OUTCOMES), None)
    met: set[frozenset[str]] = set()
    colour: Counter[str] = Counter()
    byes: set[str] = set()
    played_rounds = 0
    for batch in play_out(Format.SWISS, entrants, rounds, outcomes):
        played_rounds += 1
        playing = [p for g in batch for p in (g.first, g.second)]
        assert len(playing) == len(set(playing)), "nobody plays twice in a round"
        bye = set(entrants) - set(playing)
        assert len(bye) == count % 2, "a bye exactly when the field is odd, one at most"
        assert not bye & byes, "nobody gets a second bye"
        avoidable = rematch_free_round_exists(entrants, met, byes, colour)
        pairs = [frozenset((g.first, g.second)) for g in batch]
        if avoidable:
            assert not set(pairs) & met, "a rematch although a round without one existed"
        byes |= bye
        met |= set(pairs)
        for game in batch:
            colour[game.first] += 1
            colour[game.second] -= 1
        assert all(abs(colour[p]) <= 2 for p in entrants), colour
    assert played_rounds == rounds


def test_swiss_byes_score_a_point_and_go_to_the_lowest_score_first() -> None:
    entrants = names(5)
    games = first_games(Format.SWISS, entrants, 3, paired_starts=False)
    assert swiss_byes(entrants, games) == ["p04"]  # the lowest seed, all on 0
    for game in games:
        finish(game, "first")
    second = next_games(Format.SWISS, entrants, 3, games, paired_starts=False)
    (bye,) = set(entrants) - {p for g in second for p in (g.first, g.second)}
    losers = {g.second for g in games}
    assert bye in losers, "the bye goes to one of the lowest-scored entrants"
    assert contenders(Format.SWISS, entrants, 3, games + second) == entrants


def test_a_random_start_plays_each_swiss_pairing_twice_with_colours_swapped() -> None:
    games = first_games(Format.SWISS, names(4), 2, paired_starts=True)
    assert [(g.first, g.second) for g in games] == [
        ("p00", "p01"), ("p01", "p00"), ("p02", "p03"), ("p03", "p02"),
    ]  # fmt: skip
    seeds = [pair_seed("cup", g.round, g.first, g.second, start_leg(g, games)) for g in games]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3]


# -- knockout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("count", range(2, 34))
@pytest.mark.parametrize("results", ["random", "draw", "both_forfeit"])
def test_a_knockout_bracket_of_every_size(count: int, results: str) -> None:
    entrants = names(count)
    legs = 1 + count % 2  # a tie of one pair of games, or of two
    draw = random.Random(count)
    outcomes = iter(lambda: draw.choice(OUTCOMES) if results == "random" else results, None)
    batches = list(play_out(Format.KNOCKOUT, entrants, legs, outcomes))
    games = [g for batch in batches for g in batch]
    finished = [(g.round, knockout_played(g)) for g in games]
    final = knockout.progress(entrants, legs, finished)
    size = 2 ** math.ceil(math.log2(count))
    rounds = int(math.log2(size))

    assert final.champion is not None
    assert final.due == []
    assert sorted(final.eliminated) == sorted(set(entrants) - {final.champion})
    losers = [
        line.tie.lower if line.winner == line.tie.higher else line.tie.higher
        for line in final.ties
        if line.tie.lower
    ]
    assert Counter(losers) == Counter(list(final.eliminated)), (
        "every entrant but one is out exactly once"
    )
    assert max(line.tie.round for line in final.ties) == rounds == max(g.round for g in games)
    byes = [line.tie.higher for line in final.ties if line.tie.lower is None]
    assert sorted(byes) == entrants[: size - count], "the top seeds have the byes"
    assert all(line.tie.round == 1 for line in final.ties if line.tie.lower is None)
    for line in final.ties:
        if line.tie.lower is None:
            continue
        tie_games = [
            g for g in games if g.round == line.tie.round and line.tie.lower in (g.first, g.second)
        ]
        assert len(tie_games) in (2 * legs, 2 * legs + knockout.TIEBREAK_GAMES)
        for one, other in zip(tie_games[::2], tie_games[1::2], strict=True):
            assert (
                (one.first, one.second)
                == (other.second, other.first)
                == (line.tie.higher, line.tie.lower)
            )
    if results != "random":  # every tie level, the tiebreak too: the higher seed goes through
        assert final.champion == entrants[0]
    wire = bracket(Format.KNOCKOUT, entrants, legs, games)
    assert wire is not None
    assert wire[-1]["winner"] == final.champion


def knockout_played(game: ScheduledGame) -> knockout.Played:
    scores = {"first": (1.0, 0.0), "second": (0.0, 1.0), "draw": (0.5, 0.5)}
    outcome = "draw" if game.result == "draw" else "both_forfeit"
    if game.result == "win":
        outcome = "first" if game.winner == 0 else "second"
    return knockout.Played(game.first, game.second, scores.get(outcome, (0.0, 0.0)))


def test_a_tie_level_after_its_games_is_replayed_once_then_goes_to_the_higher_seed() -> None:
    entrants = ["top", "low"]
    games = first_games(Format.KNOCKOUT, entrants, 1, paired_starts=False)
    finish(games[0], "first")
    finish(games[1], "first")  # one win each: level
    tiebreak = next_games(Format.KNOCKOUT, entrants, 1, games, paired_starts=False)
    assert [(g.round, g.first, g.second) for g in tiebreak] == [
        (1, "top", "low"),
        (1, "low", "top"),
    ]
    assert contenders(Format.KNOCKOUT, entrants, 1, games + tiebreak) == entrants
    finish(tiebreak[0], "second")  # low wins the tiebreak 1.5 to 0.5
    finish(tiebreak[1], "draw")
    done = games + tiebreak
    assert next_games(Format.KNOCKOUT, entrants, 1, done, paired_starts=False) == []
    assert contenders(Format.KNOCKOUT, entrants, 1, done) == []
    assert bracket(Format.KNOCKOUT, entrants, 1, done) == [
        {"round": 1, "higher": "top", "lower": "low", "points": [1.5, 2.5], "winner": "low"}
    ]


def test_each_pair_of_a_ties_games_has_a_start_of_its_own() -> None:
    games = first_games(Format.KNOCKOUT, ["a", "b"], 2, paired_starts=False)
    seeds = [pair_seed("cup", g.round, g.first, g.second, start_leg(g, games)) for g in games]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3]


# -- gauntlet and requests ---------------------------------------------------------------------


def test_a_gauntlet_is_the_challenger_against_each_other_entrant_colours_swapped() -> None:
    found, order = checked_format("gauntlet", ["a", "b", "c"], 2, "b")
    assert (found, order) == (Format.GAUNTLET, ["b", "a", "c"])
    games = first_games(found, order, 2, paired_starts=False)
    assert [(g.round, g.first, g.second) for g in games] == [
        (1, "b", "a"), (1, "a", "b"), (1, "b", "c"), (1, "c", "b"),
        (2, "b", "a"), (2, "a", "b"), (2, "b", "c"), (2, "c", "b"),
    ]  # fmt: skip
    assert next_games(found, order, 2, games, paired_starts=False) == []


FORMATS = "round-robin, gauntlet, swiss, knockout, match"
REFUSED = [
    ("league", ["a", "b"], 1, None, f"no tournament format 'league' (formats: {FORMATS})"),
    ("knockout", ["a"], 1, None, "a knockout tournament needs two entrants or more, not 1"),
    ("swiss", ["a"], 1, None, "a swiss tournament needs two entrants or more, not 1"),
    (
        "swiss",
        ["a", "b", "c"],
        3,
        None,
        "a Swiss tournament of 3 entrants has at most 2 rounds (each entrant meets each other"
        " at most once), not 3",
    ),
    (
        "gauntlet",
        ["a", "b"],
        1,
        None,
        "a gauntlet needs a challenger: the entrant who plays the field",
    ),
    ("gauntlet", ["a", "b"], 1, "z", "the challenger 'z' is not an entrant (a, b)"),
    (
        "swiss",
        ["a", "b"],
        1,
        "a",
        "only a gauntlet or a match has a challenger, not a swiss tournament",
    ),
]


@pytest.mark.parametrize(("format_", "entrants", "rounds", "challenger", "sentence"), REFUSED)
def test_a_format_that_cannot_be_played_is_a_sentence(
    format_: str, entrants: list[str], rounds: int, challenger: str | None, sentence: str
) -> None:
    with pytest.raises(FormatError) as caught:
        checked_format(format_, entrants, rounds, challenger)
    assert str(caught.value) == sentence
