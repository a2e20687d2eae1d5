"""`arbiter match` played by a server: a tournament of the `match` format (two entrants in
colour-swapped pairs, until its SPRT decides or its pairs run out), created, started and
followed to its end.

Two matches take this road:

- `--server HOST:PORT`: A and B are that server's registered players, whose own clients play
  their games as any tournament entrant's do (`arbiter tournament play MATCH --agent ...`), or
  its hosted versions (`author/name`, `author/name@v2`), run on its workers. The games are the
  server's: its records, export, replay and web pages, like every tournament's.
- A match on this machine with a program (`cmd=COMMAND`) on a side: a program speaks the
  protocol itself and plays a tournament's games as `arbiter tournament local` runs it, so the
  match is played as one, by a local server's launcher (`client.entrants.LocalEntrants`), in the
  sandbox unless `--no-sandbox`.

The server runs the test and stops the match (`server.tournaments.paired_match`); this side reads
the same state from the same games to print each pair, the live line and the verdict, so what
it shows is what the server decided. An entrant who does not come to a game within the match's
`wait` stops it, that pair uncounted, and the verdict says who.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.entrants import LocalEntrants, normalized
from arbiter.client.tables import score_text
from arbiter.client.tournament_follow import FOLLOW_SECONDS, request, result_line
from arbiter.client.tournament_local import LOCAL_DIRECTOR
from arbiter.server.app import (
    MatchProgress,
    PairedGame,
    SprtTerms,
    admin_token,
    local_server,
    match_progress,
    read_tournaments,
)

MATCH_FORMAT = "match"
SERVED_WAIT = 60.0
"""How long a game of a served match waits for an entrant before the match stops: a program
or a worker's agent starts in a second or two, a loaded machine may take longer."""

ServedPairHook = Callable[[int, Sequence[dict[str, Any]], "Served"], None]
"""Told of each finished pair: its number, its two games as the `tournament` message lists
them (A first, then B first), and the match so far."""


@dataclass(frozen=True, slots=True)
class Sides:
    """How a `tournament_create` names A and B: registered players, entrants the server runs,
    and A (`challenger`, the one the test is about) where their order does not say it: the
    server lists players before the entrants it runs."""

    players: list[str]
    local: list[str]
    challenger: str | None = None


def server_sides(a: str, b: str) -> Sides:
    """A server's entrants: a hosted version (`author/name[@vN]`) is run by the server, any
    other name is a registered player's."""
    players = [name for name in (a, b) if "/" not in name]
    hosted = [name for name in (a, b) if "/" in name]
    return Sides(players, hosted, a if players == [b] else None)


def local_sides(a: str, b: str) -> Sides:
    """Entrants this machine's server runs, in order: built-in agents, Player modules and
    programs."""
    return Sides([], [normalized(a), normalized(b)])


def match_request(
    name: str,
    game: str,
    sides: Sides,
    *,
    pairs: int,
    terms: dict[str, float] | None,
    time: dict[str, float],
    wait: float,
) -> protocol.TournamentCreate:
    """The `tournament_create` of a match of at most `pairs` pairs, its SPRT's `terms` if any."""
    return protocol.TournamentCreate(
        name=name,
        game=game,
        players=sides.players,
        local=sides.local,
        time=time,
        rounds=pairs,
        wait=wait,
        format=MATCH_FORMAT,
        challenger=sides.challenger,
        sprt=terms,
    )


def unused_name(name: str, taken: Collection[str]) -> str:
    """`name`, or the first of `name-2`, `name-3`... not in `taken`."""
    number, found = 1, name
    while found in taken:
        number += 1
        found = f"{name}-{number}"
    return found


def match_name(seed: int | None) -> str:
    """A new match's name: `match-SEED` (the pairs' starts follow from it, so a seed repeats
    them), else a random one."""
    return f"match-{seed}" if seed is not None else f"match-{secrets.token_hex(4)}"


@dataclass(frozen=True, slots=True)
class Served:
    """A served match as it stands: the server's status, and the test read from its games."""

    status: protocol.Tournament
    progress: MatchProgress

    @property
    def entrants(self) -> tuple[str, str]:
        first, second = self.status.entrants
        return first, second


def read_served(status: protocol.Tournament, terms: SprtTerms | None) -> Served:
    """The match's state from a status, as the server reads it from the same games."""
    games = [PairedGame.from_wire(game) for game in status.games]
    finished = [game for game in games if game is not None]
    return Served(status, match_progress(terms, status.entrants, finished))


async def play_served(
    connection: ClientConnection,
    create: protocol.TournamentCreate,
    terms: SprtTerms | None,
    on_pair: ServedPairHook | None = None,
) -> Served:
    """Create and start the match on `connection` (an admin's), then follow it to its end,
    telling `on_pair` of each pair as it finishes."""
    await request(connection, create)
    status = await request(connection, protocol.TournamentStart(tournament=create.name))
    told = 0
    while True:
        served = read_served(status, terms)
        for number in range(told + 1, served.progress.rounds + 1):
            pair = [game for game in status.games if game["round"] == number]
            if on_pair is not None:
                on_pair(number, pair, served)
        told = served.progress.rounds
        if status.status == "finished":
            return served
        await trio.sleep(FOLLOW_SECONDS)
        status = await request(connection, protocol.TournamentStatus(tournament=create.name))


async def play_here(
    create: protocol.TournamentCreate,
    terms: SprtTerms | None,
    *,
    db_path: str | Path | None,
    sandboxed: bool,
    on_pair: ServedPairHook | None = None,
) -> Served:
    """Play the match on a server of this machine's (its records in `db_path`, else a
    throwaway file) whose launcher runs the entrants, sandboxed unless `sandboxed` is False.
    A kept file may hold matches already: a name it holds is numbered (`match-3-2`)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-match-") as scratch:
        db = db_path or Path(scratch) / "match.db"
        taken = {kept.name for kept in read_tournaments(db)} if db_path is not None else set()
        create = replace(create, name=unused_name(create.name, taken))
        token = admin_token(db, LOCAL_DIRECTOR)
        launcher = LocalEntrants.arbiter(sandboxed=sandboxed)
        async with (
            local_server(db, local_agents=launcher) as (host, port),
            await ClientConnection.open(host, port, LOCAL_DIRECTOR, token) as connection,
        ):
            return await play_served(connection, create, terms, on_pair)


def served_pair_line(number: int, games: Sequence[dict[str, Any]], served: Served) -> str:
    """`pair 3: local-a 1.5-0.5 local-b (local-a vs local-b: 1-0, ...; local-b vs ...)`: the
    points as the test counts them."""
    a, b = served.entrants
    finished = [PairedGame.from_wire(game) for game in games]
    points = [sum(game.points(side) for game in finished if game) for side in (a, b)]
    told = "; ".join(result_line(game) for game in games)
    return f"pair {number}: {a} {score_text(points[0])}-{score_text(points[1])} {b} ({told})"
