"""A match as a tournament format, pure: a pair a round until the SPRT decides, the pairs run out
or an entrant does not come; its checks in sentences; the state a client reads from the wire
is the server's."""

from __future__ import annotations

import re

import pytest

from arbiter.server.storage.interface import ScheduledGame
from arbiter.server.storage.statuses import GameStatus
from arbiter.server.tournaments.formats import (
    Format,
    FormatError,
    checked_format,
    contenders,
    first_games,
    next_games,
    paired_games,
)
from arbiter.server.tournaments.paired_match import (
    PairedGame,
    match_progress,
    terms_of,
)
from arbiter.server.tournaments.sprt import SprtError, SprtTerms
from arbiter.server.tournaments.tournament import describe_game

TERMS = SprtTerms(0, 400)
ENTRANTS = ["a", "b"]


def finish(game: ScheduledGame, winner: int | None, absent: tuple[int, ...] = ()) -> None:
    """Record a result: `winner`'s seat wins (None: a draw), or the seats in `absent` did not
    come."""
    game.status = GameStatus.FINISHED
    game.match = game.number
    game.defaults = tuple("absent" if seat in absent else None for seat in (0, 1))  # type: ignore[assignment]
    if len(absent) == 2:
        game.result, game.winner = "both_forfeit", None
    elif absent:
        game.result, game.winner = "win", 1 - absent[0]
    elif winner is None:
        game.result, game.winner = "draw", None
    else:
        game.result, game.winner = "win", winner


def play(games: list[ScheduledGame], winner: str | None, rounds: int = 100) -> None:
    """Finish the pair under way (`winner` wins both games), then add the next one."""
    for game in games:
        if game.status != GameStatus.FINISHED:
            seat = None if winner is None else (0 if game.first == winner else 1)
            finish(game, seat)
    games += next_games(Format.MATCH, ENTRANTS, rounds, games, False, TERMS)


def test_a_match_is_a_pair_a_round_colours_swapped_until_the_test_decides() -> None:
    games = first_games(Format.MATCH, ENTRANTS, 100, False, TERMS)
    assert [(g.round, g.first, g.second) for g in games] == [(1, "a", "b"), (1, "b", "a")]
    assert contenders(Format.MATCH, ENTRANTS, 100, games, TERMS) == ENTRANTS
    for _ in range(4):
        play(games, "a")
    assert len(games) == 10  # four pairs won 2-0, and the fifth added
    play(games, "a")  # five 2-0 pairs: the test says H1 (elo0=0 elo1=400)
    assert len(games) == 10
    state = match_progress(TERMS, ENTRANTS, paired_games(games))
    assert state.test is not None
    assert state.test.decision is not None
    assert state.test.decision.value == "H1"
    assert state.count.as_counts() == (0, 0, 0, 0, 5)
    assert contenders(Format.MATCH, ENTRANTS, 100, games, TERMS) == []


def test_a_fixed_match_plays_its_pairs_and_a_draw_is_half_each() -> None:
    games = first_games(Format.MATCH, ENTRANTS, 2, False)
    for game in games:
        finish(game, None)
    games += next_games(Format.MATCH, ENTRANTS, 2, games, False)
    assert [(g.round, g.first) for g in games[2:]] == [(2, "a"), (2, "b")]
    for game in games[2:]:
        finish(game, 0)  # each first mover wins: one each
    assert next_games(Format.MATCH, ENTRANTS, 2, games, False) == []
    state = match_progress(None, ENTRANTS, paired_games(games))
    assert state.test is None
    assert state.count.as_counts() == (0, 0, 2, 0, 0)


def test_an_absent_entrant_stops_the_match_and_its_pair_is_not_counted() -> None:
    games = first_games(Format.MATCH, ENTRANTS, 100, False, TERMS)
    play(games, "b")
    finish(games[2], None, absent=(1,))
    finish(games[3], None, absent=(0, 1))
    assert next_games(Format.MATCH, ENTRANTS, 100, games, False, TERMS) == []
    state = match_progress(TERMS, ENTRANTS, paired_games(games))
    assert state.count.as_counts() == (1, 0, 0, 0, 0)
    assert state.stopped == "a and b did not come to play (pair 2, not counted)"
    assert state.rounds == 2


def test_a_client_reads_the_state_the_server_reads() -> None:
    games = first_games(Format.MATCH, ENTRANTS, 100, False, TERMS)
    play(games, "a")
    finish(games[2], 1)
    finish(games[3], None)
    wire = [PairedGame.from_wire(describe_game(game)) for game in games]
    assert wire == paired_games(games)
    from_wire = match_progress(TERMS, ENTRANTS, [g for g in wire if g is not None])
    from_server = match_progress(TERMS, ENTRANTS, paired_games(games))
    assert from_wire.to_wire() == from_server.to_wire()
    assert from_server.count.as_counts() == (0, 1, 0, 0, 1)  # 2-0, then a loss and a draw


@pytest.mark.parametrize(
    ("format_", "entrants", "challenger", "terms", "sentence"),
    [
        ("match", ["a", "b", "c"], None, TERMS, "a match is between two entrants, not 3"),
        ("round-robin", ENTRANTS, None, TERMS, "only a match has an SPRT's terms"),
        ("swiss", ENTRANTS, "a", None, "only a gauntlet or a match has a challenger"),
        ("match", ENTRANTS, "z", None, "the challenger 'z' is not an entrant (a, b)"),
    ],
)
def test_a_match_that_cannot_be_played_is_a_sentence(
    format_: str,
    entrants: list[str],
    challenger: str | None,
    terms: SprtTerms | None,
    sentence: str,
) -> None:
    with pytest.raises(FormatError, match=re.escape(sentence)):
        checked_format(format_, entrants, 1, challenger, terms)


def test_a_matchs_challenger_is_the_entrant_tested() -> None:
    assert checked_format("match", ["b", "a"], 5, "a", TERMS) == (Format.MATCH, ["a", "b"])


@pytest.mark.parametrize(
    ("given", "sentence"),
    [
        ({"elo0": 0}, "an SPRT needs elo1"),
        ({"elo0": 0, "elo1": 5, "gamma": 1}, "an SPRT's terms are elo0, elo1, alpha, beta"),
        ({"elo0": 0, "elo1": "5"}, "elo1 must be a number, not '5'"),
        ({"elo0": 5, "elo1": 0}, "elo0 (5) must be below elo1 (0)"),
        ({"elo0": 0, "elo1": 5, "beta": 0.5}, "beta (0.5) must be between 0 and 0.5"),
    ],
)
def test_terms_that_cannot_decide_are_a_sentence(given: dict[str, object], sentence: str) -> None:
    with pytest.raises(SprtError, match=re.escape(sentence)):
        terms_of(given)
