"""Tournament formats: which games a tournament plays, and when each is known.

Pure: the desk checks a request and writes the first games; the runner, once every game so far
is finished, asks for the next ones (a Swiss round is paired from the results before it, a
knockout's next round from its winners) and stops when there are none.

- `round-robin`: every pair twice a round, once in each seat, `rounds` times; known at once.
- `gauntlet`: the challenger (the first entrant) against each other entrant, twice a round,
  colours swapped, `rounds` times; known at once.
- `swiss`: `rounds` rounds paired by score (`swiss`); a game with a random start plays each
  pairing twice, colours swapped, so both play the same start from each seat.
- `knockout`: a seeded bracket of ties of `rounds` colour-swapped pairs of games (`knockout`).
- `match`: two entrants, a colour-swapped pair a round, `rounds` pairs, or fewer when an SPRT
  on the pairs decides first (`paired_match`).

Every pair of games of one pairing in one round shares a start (`pair_seed`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import StrEnum

from arbiter.server.storage.interface import ScheduledGame
from arbiter.server.tournaments import knockout, paired_match, swiss
from arbiter.server.tournaments.sprt import SprtTerms
from arbiter.server.tournaments.standings import GameResult


class Format(StrEnum):
    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    MATCH = "match"


FORMATS = tuple(f.value for f in Format)


class FormatError(ValueError):
    """A format request that cannot be played, in a sentence."""


def checked_format(
    name: str | None,
    entrants: Sequence[str],
    rounds: int,
    challenger: str | None,
    sprt: SprtTerms | None = None,
) -> tuple[Format, list[str]]:
    """The format and the entrants in the order it seeds them (a gauntlet's challenger first, a
    match's tested entrant first); `FormatError` says what is wrong. `challenger` is an
    entrant's name; `sprt` the terms of a match's SPRT, which only a match has."""
    if name is None:
        name = Format.ROUND_ROBIN
    if name not in FORMATS:
        raise FormatError(f"no tournament format {name!r} (formats: {', '.join(FORMATS)})")
    found = Format(name)
    if challenger is not None and found not in (Format.GAUNTLET, Format.MATCH):
        raise FormatError(f"only a gauntlet or a match has a challenger, not a {found} tournament")
    if sprt is not None and found is not Format.MATCH:
        raise FormatError(f"only a match has an SPRT's terms, not a {found} tournament")
    if found is Format.MATCH and len(entrants) != 2:
        raise FormatError(f"a match is between two entrants, not {len(entrants)}")
    if len(entrants) < 2:
        raise FormatError(f"a {found} tournament needs two entrants or more, not {len(entrants)}")
    if found is Format.SWISS and rounds > len(entrants) - 1:
        raise FormatError(
            f"a Swiss tournament of {len(entrants)} entrants has at most {len(entrants) - 1}"
            f" rounds (each entrant meets each other at most once), not {rounds}"
        )
    if found is Format.GAUNTLET and challenger is None:
        raise FormatError("a gauntlet needs a challenger: the entrant who plays the field")
    if challenger is not None:
        if challenger not in entrants:
            raise FormatError(
                f"the challenger {challenger!r} is not an entrant ({', '.join(entrants)})"
            )
        return found, [challenger, *(e for e in entrants if e != challenger)]
    return found, list(entrants)


def first_games(
    format_: Format,
    entrants: Sequence[str],
    rounds: int,
    paired_starts: bool,
    sprt: SprtTerms | None = None,
) -> list[ScheduledGame]:
    """The games known when the tournament is created."""
    if format_ is Format.ROUND_ROBIN:
        return round_robin(entrants, rounds)
    if format_ is Format.GAUNTLET:
        return gauntlet(entrants, rounds)
    return next_games(format_, entrants, rounds, [], paired_starts, sprt)


def next_games(
    format_: Format,
    entrants: Sequence[str],
    rounds: int,
    games: Sequence[ScheduledGame],
    paired_starts: bool,
    sprt: SprtTerms | None = None,
) -> list[ScheduledGame]:
    """The games to add once all of `games` are finished; none when the tournament is over."""
    due: list[tuple[int, str, str]] = []
    if format_ is Format.SWISS:
        due = _swiss_round(entrants, rounds, games, paired_starts)
    elif format_ is Format.KNOCKOUT:
        due = knockout.progress(entrants, rounds, _finished(games)).due
    elif format_ is Format.MATCH:
        due = paired_match.next_pair(sprt, entrants, rounds, paired_games(games))
    return [
        ScheduledGame(len(games) + index, round_number, first, second)
        for index, (round_number, first, second) in enumerate(due, 1)
    ]


def contenders(
    format_: Format,
    entrants: Sequence[str],
    rounds: int,
    games: Sequence[ScheduledGame],
    sprt: SprtTerms | None = None,
) -> list[str]:
    """Entrants who may yet be given a game the schedule does not list: every Swiss entrant
    until the last round is paired, a knockout's entrants not yet eliminated, and both of a
    match's until it is over."""
    if format_ is Format.MATCH:
        state = paired_match.match_progress(sprt, entrants, paired_games(games))
        return [] if state.over(rounds) else list(entrants)
    if format_ is Format.SWISS:
        paired = max((g.round for g in games), default=0)
        return list(entrants) if paired < rounds else []
    if format_ is Format.KNOCKOUT:
        bracket = knockout.progress(entrants, rounds, _finished(games))
        if bracket.champion is not None:
            return []
        return [e for e in entrants if e not in bracket.eliminated]
    return []


def bracket(
    format_: Format, entrants: Sequence[str], rounds: int, games: Sequence[ScheduledGame]
) -> list[dict[str, object]] | None:
    """A knockout's ties as the `tournament` message lists them (None for other formats)."""
    if format_ is not Format.KNOCKOUT:
        return None
    return [line.to_wire() for line in knockout.progress(entrants, rounds, _finished(games)).ties]


def _swiss_round(
    entrants: Sequence[str],
    rounds: int,
    games: Sequence[ScheduledGame],
    paired_starts: bool,
) -> list[tuple[int, str, str]]:
    last = max((g.round for g in games), default=0)
    if last >= rounds:
        return []
    played = [game for _, game in _finished(games)]
    pairing = swiss.pair_round(entrants, played, swiss_byes(entrants, games))
    due = []
    for first, second in pairing.pairs:
        due.append((last + 1, first, second))
        if paired_starts:
            due.append((last + 1, second, first))
    return due


def swiss_byes(entrants: Sequence[str], games: Sequence[ScheduledGame]) -> list[str]:
    """Each round's bye: the entrant who has no game in it (a Swiss round pairs all others)."""
    byes = []
    for round_number in sorted({g.round for g in games}):
        playing = {p for g in games if g.round == round_number for p in (g.first, g.second)}
        byes += [e for e in entrants if e not in playing]
    return byes


def _finished(games: Sequence[ScheduledGame]) -> list[tuple[int, swiss.Played]]:
    """The finished games with their rounds, as the pairing modules read them."""
    return [
        (g.round, swiss.Played(g.first, g.second, _scores(g)))
        for g in games
        if g.status == "finished" and g.result is not None
    ]


def paired_games(games: Sequence[ScheduledGame]) -> list[paired_match.PairedGame]:
    """The finished games as a match reads them."""
    return [
        paired_match.PairedGame(
            g.round,
            g.first,
            _scores(g),
            paired_match.absent_of((g.first, g.second), g.defaults),
        )
        for g in games
        if g.status == "finished" and g.result is not None
    ]


def _scores(game: ScheduledGame) -> tuple[float, float]:
    assert game.result is not None
    return GameResult(game.first, game.second, game.result, game.winner, game.defaults).scores


def round_robin(entrants: Sequence[str], rounds: int) -> list[ScheduledGame]:
    """A double round robin per round: every pair twice, once with each entrant moving first.

    Games come in slots of disjoint pairs (the circle method), so up to n/2 games can run at once
    from the start; the second leg repeats the first with colours swapped.
    """
    slots = _circle(list(entrants))
    games: list[ScheduledGame] = []
    for round_number in range(1, rounds + 1):
        for leg in (0, 1):
            for pairs in slots:
                for first, second in pairs:
                    if leg:
                        first, second = second, first
                    games.append(ScheduledGame(len(games) + 1, round_number, first, second))
    return games


def gauntlet(entrants: Sequence[str], rounds: int) -> list[ScheduledGame]:
    """The first entrant against each other, twice a round with colours swapped."""
    challenger, *field = entrants
    games: list[ScheduledGame] = []
    for round_number in range(1, rounds + 1):
        for opponent in field:
            for first, second in ((challenger, opponent), (opponent, challenger)):
                games.append(ScheduledGame(len(games) + 1, round_number, first, second))
    return games


def _circle(players: list[str]) -> list[list[tuple[str, str]]]:
    """n - 1 slots of n / 2 disjoint pairs covering every pair once (a bye pads odd n); the
    fixed player alternates colours from slot to slot."""
    padded: list[str | None] = [*players, None] if len(players) % 2 else list(players)
    size = len(padded)
    slots = []
    for slot in range(size - 1):
        pairs = []
        for i in range(size // 2):
            a, b = padded[i], padded[size - 1 - i]
            if i == 0 and slot % 2:
                a, b = b, a
            if a is not None and b is not None:
                pairs.append((a, b))
        slots.append(pairs)
        padded = [padded[0], padded[-1], *padded[1:-1]]
    return slots


def start_leg(game: ScheduledGame, games: Sequence[ScheduledGame]) -> int:
    """Which pair of games between its two entrants in its round `game` belongs to: a
    knockout tie of several pairs gives each pair a start of its own."""
    same = [
        g.number
        for g in games
        if g.round == game.round and {g.first, g.second} == {game.first, game.second}
    ]
    return sorted(same).index(game.number) // 2


def pair_seed(tournament: str, round_number: int, first: str, second: str, leg: int = 0) -> int:
    """The random start of a game with a seed option: the same for both colours of a pair in a
    round (and `leg`), so each side plays the same start once from each seat."""
    a, b = sorted((first, second))
    key = f"{tournament}\0{round_number}\0{a}\0{b}" + (f"\0{leg}" if leg else "")
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1
