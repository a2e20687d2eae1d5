"""`arbiter tournament local`: a whole tournament on this machine, through a real server.

The server runs on 127.0.0.1 with a launcher (`client.entrants.LocalEntrants`) that runs each
entrant (a built-in agent, a Player module, a program) in a process of its own, exactly as a
remote tournament's clients would play. Its seats are `local-...` names, so a kept file's
accounts never stand in the way of the names people play under.

With `--db FILE` the tournament is kept, and an interrupted one is *resumed* by the next run on
the file (the server reads it back: finished games stand, the game in play continues from its
stored moves), which says so; a new tournament in that file is started only with `--new`. Why
not start a new one each time: an interrupted run of hours is what a rerun means to finish, and
two tournaments of the same seats at once would take each other's seeks and tokens.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.entrants import LocalEntrants
from arbiter.client.tournament_follow import Follower, finished, request
from arbiter.server.app import admin_token, local_server, read_tournaments

LOCAL_NAME = "local"
LOCAL_NAMES = re.compile(r"local(-[0-9]+)?")
"""The names `tournament local` gives its tournaments: `local`, then `local-2`... in one file."""
LOCAL_DIRECTOR = "director"
LOCAL_WAIT = 60.0
"""How long a local tournament's game waits for its entrants: their processes start in a second
or two, but a loaded machine (or a program with a slow start) may take longer."""


class LocalError(Exception):
    """The file holds a tournament that stops this run; the sentence says what to do."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run does in its file: start the tournament `name`, or resume `resumed`."""

    name: str
    resumed: protocol.Tournament | None = None

    def announcement(self, db: str | Path | None) -> str | None:
        """What to say before running: a resumed tournament's name and progress."""
        if self.resumed is None:
            return None
        status = self.resumed
        return (
            f"resuming tournament {status.name!r} in {str(db)!r} ({status.game}:"
            f" {', '.join(status.entrants)}): {finished(status)} of {len(status.games)} games"
            " played (--new starts another once it is finished)"
        )


def plan(db: str | Path | None, game: str, new: bool) -> Plan:
    """Resume the file's unfinished local tournament, else start a new one when the file holds
    none or `new` asks for it; `LocalError` when the file's last one is finished and `new` was
    not given, or is unfinished and it was, or is of another game."""
    kept = [] if db is None else read_tournaments(db)  # made by prepare_database
    local = [status for status in kept if LOCAL_NAMES.fullmatch(status.name)]
    if not local:
        return Plan(LOCAL_NAME)
    last = local[-1]
    if last.status == "finished":
        if not new:
            raise LocalError(
                f"{str(db)!r} holds the finished tournament {last.name!r}: add --new to play"
                f" another there, or read it with `arbiter tournament standings --db {db}`"
            )
        return Plan(f"{LOCAL_NAME}-{len(local) + 1}")
    if new:
        raise LocalError(
            f"{str(db)!r} holds the unfinished tournament {last.name!r}: rerun without --new to"
            " finish it first, or keep the new one in another file"
        )
    if last.game != game:
        raise LocalError(
            f"{str(db)!r} holds the unfinished {last.game} tournament {last.name!r}: rerun it"
            f" with {last.game} to finish it, or keep a {game} one in another file"
        )
    return Plan(last.name, last)


async def run_local(
    game: str,
    agents: list[str],
    follower: Follower,
    chosen: Plan,
    *,
    rounds: int = 1,
    format: str | None = None,
    challenger: str | None = None,
    time: dict[str, float] | None = None,
    options: dict[str, Any] | None = None,
    concurrency: int = 1,
    db_path: str | Path | None = None,
    sandboxed: bool = True,
) -> protocol.Tournament:
    """Run (or resume, as `chosen` says) a tournament of local entrants through a real server
    on 127.0.0.1, in `db_path` or a throwaway file, Player modules and programs sandboxed
    unless `sandboxed` is False; returns its finished status."""
    with tempfile.TemporaryDirectory(prefix="arbiter-tournament-") as scratch:
        db = db_path or Path(scratch) / "tournament.db"
        token = admin_token(db, LOCAL_DIRECTOR)
        async with (
            local_server(db, local_agents=LocalEntrants.arbiter(sandboxed=sandboxed)) as (
                host,
                port,
            ),
            await ClientConnection.open(host, port, LOCAL_DIRECTOR, token) as connection,
        ):
            if chosen.resumed is None:
                create = protocol.TournamentCreate(
                    name=chosen.name,
                    game=game,
                    local=agents,
                    options=options or {},
                    time=time or {},
                    rounds=rounds,
                    concurrency=concurrency,
                    wait=LOCAL_WAIT,
                    format=format,
                    challenger=challenger,
                )
                await request(connection, create)
            if chosen.resumed is None or chosen.resumed.status == "created":
                await request(connection, protocol.TournamentStart(tournament=chosen.name))
            return await follower.follow(connection, chosen.name)


def interrupted(follower: Follower, db: str | Path | None) -> str:
    """What an interrupted run tells its user: what was played, and what of it was kept."""
    if not follower.total:
        played = "before any game was played"
    else:
        played = f"after {follower.done} of {follower.total} games"
    if db is None:
        return (
            f"interrupted {played}: nothing was kept (no --db); run with --db FILE to keep the"
            " games and resume after an interruption"
        )
    return f"interrupted {played}; they are kept in {str(db)!r}: rerun the command to resume"
