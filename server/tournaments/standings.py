"""A tournament's standings from its finished games: points, results by kind, crosstable, Elo.

Pure: the tournament runner, the `tournament` message and the tests all compute the table from
the same list of `GameResult`s, so what a player reads is what the store says.

Scoring: win 1, draw 0.5, loss 0; a default (crash, illegal move, time exceeded, absence) 0 to
the defaulter and 1 to its opponent; a double forfeit 0 to both. Each game counts for a player as
exactly one of: a win (a win by the opponent's default included), a draw, a loss, a double
forfeit, or a default of its own. A Swiss bye scores 1 and is no game.

Order: points, then Sonneborn-Berger, then Elo, then name; a Swiss tournament's table goes by
points, then Buchholz (the sum of the opponents' points: who was met matters when not everyone
meets), then Sonneborn-Berger, then a draw seeded by the tournament's name (`swiss_order`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arbiter.server.play.defaults import DefaultKind
from arbiter.server.tournaments.ratings import Pairing, Rating, fit

DEFAULT_KINDS = tuple(kind.value for kind in DefaultKind)
"""Why a seat defaulted: its connection dropped past the grace period (a crashed program), an
illegal or unreadable move (or one out of turn), its time ran out, or it was not there when the
game was due."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game between `first` (seat 0, moved first) and `second`."""

    first: str
    second: str
    result: str
    """'win', 'draw' or 'both_forfeit', as in `game_over`."""
    winner: int | None
    """The winning seat (0 or 1) of a win."""
    defaults: tuple[str | None, str | None] = (None, None)
    """Each seat's default kind (one of DEFAULT_KINDS), None for a seat that did not default."""

    @property
    def players(self) -> tuple[str, str]:
        return (self.first, self.second)

    @property
    def scores(self) -> tuple[float, float]:
        if self.result == "win":
            return (1.0, 0.0) if self.winner == 0 else (0.0, 1.0)
        return (0.5, 0.5) if self.result == "draw" else (0.0, 0.0)

    @property
    def rated(self) -> bool:
        """Played, with a winner or a draw: Elo learns nothing from a game that never took place
        (an absence) nor from a double forfeit, where both sides scored the same nothing."""
        return "absent" not in self.defaults and self.result != "both_forfeit"


@dataclass(slots=True)
class Standing:
    """One player's line of the table."""

    player: str
    points: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    """Double forfeits (both players scored 0)."""
    defaults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DEFAULT_KINDS, 0))
    tiebreak: float = 0.0
    """Sonneborn-Berger: the points of every opponent beaten, plus half of those drawn with."""
    buchholz: float = 0.0
    """The points of every opponent met, once a game."""
    byes: int = 0
    rating: Rating | None = None
    against: dict[str, list[float]] = field(default_factory=dict)
    """The crosstable row: this player's scores against each opponent, in game order."""

    @property
    def total_defaults(self) -> int:
        return sum(self.defaults.values())

    def to_wire(self, rank: int) -> dict[str, Any]:
        """The plain map a `tournament` message carries."""
        assert self.rating is not None
        return {
            "rank": rank,
            "player": self.player,
            "points": self.points,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "forfeits": self.forfeits,
            "defaults": dict(self.defaults),
            "tiebreak": self.tiebreak,
            "buchholz": self.buchholz,
            "byes": self.byes,
            "rating": round(self.rating.elo, 1),
            "margin": round(self.rating.margin, 1),
            "rated_games": self.rating.games,
            "against": {name: list(scores) for name, scores in self.against.items()},
        }


def standings(
    players: Sequence[str],
    results: Sequence[GameResult],
    byes: Sequence[str] = (),
    draw: str | None = None,
) -> list[Standing]:
    """The table, best first: by points, then Sonneborn-Berger, then rating, then name; with
    a `draw` (a Swiss tournament's name), by points, Buchholz, Sonneborn-Berger, then the
    draw. `byes` lists a Swiss tournament's byes, one point each."""
    table = {player: Standing(player) for player in players}
    for result in results:
        for seat, player in enumerate(result.players):
            _count(table[player], result, seat)
    for player in byes:
        table[player].byes += 1
        table[player].points += 1.0
    for result in results:
        for seat, player in enumerate(result.players):
            opponent = table[result.players[1 - seat]]
            table[player].tiebreak += result.scores[seat] * opponent.points
            table[player].buchholz += opponent.points
    ratings = fit(
        players,
        [Pairing(r.first, r.second, r.scores[0]) for r in results if r.rated],
    )
    for standing in table.values():
        standing.rating = ratings[standing.player]
    if draw is not None:
        return sorted(table.values(), key=lambda line: swiss_order(line, draw))
    return sorted(table.values(), key=_order)


def _count(line: Standing, result: GameResult, seat: int) -> None:
    score = result.scores[seat]
    line.games += 1
    line.points += score
    line.against.setdefault(result.players[1 - seat], []).append(score)
    kind = result.defaults[seat]
    if kind is not None:
        line.defaults[kind] += 1
    elif result.result == "both_forfeit":
        line.forfeits += 1
    elif result.result == "draw":
        line.draws += 1
    elif score == 1.0:
        line.wins += 1
    else:
        line.losses += 1


def _order(line: Standing) -> tuple[float, float, float, str]:
    """Elo is rounded to a tenth, as shown: players whose results mirror each other tie on
    rating whatever the last bits of the fit, and then go by name."""
    elo = round(line.rating.elo, 1) if line.rating is not None else 0.0
    return (-line.points, -line.tiebreak, -elo, line.player)


def swiss_order(line: Standing, draw: str) -> tuple[float, float, float, bytes]:
    """Points, Buchholz, Sonneborn-Berger, then a draw: a hash of the tournament's name and the
    player's, the same on every reading of the table and favouring no seed."""
    lot = hashlib.sha256(f"{draw}\0{line.player}".encode()).digest()
    return (-line.points, -line.buchholz, -line.tiebreak, lot)
