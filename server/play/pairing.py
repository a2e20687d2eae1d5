"""Seeks and pairing: a seek checked, paired with a waiting one or left open, and a match
started for each pair.

Pairing is first come, first seated: a seek waits until another session seeks the same game with
the same options and time control; the waiting seek takes the first seat. That makes pairing
predictable for scripts (`arbiter referee` seats agent A first by seeking first) and fair over a
series of games only when the seekers alternate, which is the tournament's business, not ours.

A seek may name its opponent (a challenge): then it pairs only with that player's seek. A seat
a worker hosts for a challenge (`Workers.opponent_of`) seeks only its opponent, whatever its
agent asks: a program that seeks anyone must not meet someone else's hosted seat. A
registered player's seek for a game it still has to play in a tournament is *kept* for the
tournament (`server.play.tournament_desk`) and never paired here; both find it in one table of
open seeks (`server.play.seeks`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from functools import partial
from typing import Any

from arbiter import protocol
from arbiter.games import Game
from arbiter.protocol import ErrorCode, TimeControl
from arbiter.server.connection.session import Session
from arbiter.server.play import messages
from arbiter.server.play.defaults import Illegal
from arbiter.server.play.hosted_submissions import (
    NotPlayable,
    is_submission_spec,
    resolve,
    run_of,
    seat_base,
)
from arbiter.server.play.live_matches import LiveMatches
from arbiter.server.play.match import Match
from arbiter.server.play.seek_terms import TermsRefused, checked_terms
from arbiter.server.play.seeks import Seek, Seeks
from arbiter.server.play.tournament_desk import TournamentDesk
from arbiter.server.play.workers import HOSTED_PREFIX, Hosting, NoWorker, Workers
from arbiter.server.storage.accounts import Account, AccountError
from arbiter.server.storage.errors import NotStored
from arbiter.server.storage.interface import Storage

log = logging.getLogger(__name__)

MAX_HOSTED_BASE = 56
"""A hosted seat's name is `hosted-AGENT` cut to this, then `-N`: within a name's 64."""


class Pairing:
    """Answers `seek` and `cancel_seek`, and starts the matches of the seeks it pairs."""

    def __init__(
        self,
        storage: Storage,
        seeks: Seeks,
        matches: LiveMatches,
        tournaments: Callable[[], TournamentDesk],
        workers: Workers,
    ) -> None:
        self.storage = storage
        self.seeks = seeks
        self.matches = matches
        self._tournaments = tournaments
        """The tournaments plugged into the lobby, asked which seeks they keep."""
        self.workers = workers
        """Who runs the agent a seek challenges as `hosted:AGENT`."""

    async def seek(self, session: Session, seek: protocol.Seek, account: Account | None) -> None:
        """Pair `seek` with the oldest waiting seek it fits, or leave it open."""
        terms = _terms(session, seek)
        if terms is None:
            return
        game, time_control, illegal = terms
        opponent, hosting = seek.opponent, None
        bound = self.workers.opponent_of(session.name) if session.hosted else None
        if bound is not None:
            if opponent not in (None, bound):
                session.send_error(
                    ErrorCode.BAD_OPPONENT,
                    f"{session.name!r} is hosted to play {bound!r} alone, not {opponent!r}",
                    ref="seek",
                )
                return
            opponent = bound
        if opponent is not None and opponent.startswith(HOSTED_PREFIX):
            hosting = await self._host_opponent(session, game.name, time_control, opponent)
            if hosting is None:
                return
            opponent = hosting.name
        tournaments = self._tournaments()
        await tournaments.ready()
        player = None if account is None else account.name
        mine = Seek(
            self.seeks.next_id(),
            session,
            game,
            dict(seek.options),
            time_control,
            seek.hints,
            illegal,
            player=player,
            opponent=opponent,
        )
        mine.kept = player is not None and tournaments.wants(player, game.name)
        if hosting is not None:
            if hosting.ended.is_set():  # before the challenge could open
                _tell_hosted_ended(mine, hosting.ending)
                return
            hosting.on_end = partial(self._hosted_opponent_ended, mine)
        waiting = None if mine.kept else self.seeks.pop_partner(mine)
        if waiting is not None:
            await self._start_match(waiting, mine)
        elif self._open(mine) and mine.kept:
            tournaments.seek_arrived()

    async def _host_opponent(
        self, session: Session, game: str, control: TimeControl, opponent: str
    ) -> Hosting | None:
        """A challenge to `hosted:AGENT` (a built-in agent, or a submission's `author/name`): a
        worker runs it under a seat name of its own, which challenges this player back; that
        name is the seek's opponent. None after telling the client why no worker will."""
        agent = opponent.removeprefix(HOSTED_PREFIX)
        try:
            author = None
            if is_submission_spec(agent):
                row = await resolve(self.workers.storage, agent, game)
                base, run, author = seat_base(row), run_of(row), row.author
            else:
                base, run = f"hosted-{agent}", {"kind": "agent", "agent": agent}
            name = self.workers.free_name(base[:MAX_HOSTED_BASE])
            return await self.workers.host(
                name, game, control, run, opponent=session.name, author=author
            )
        except (NoWorker, NotPlayable, AccountError, NotStored) as error:
            session.send_error(
                ErrorCode.BAD_OPPONENT, f"no game against {opponent}: {error}", ref="seek"
            )
            return None

    def _hosted_opponent_ended(self, seek: Seek, ending: str) -> None:
        """The agent an open challenge waits for ended before their game began (its worker
        was lost, or it could not run): the challenge is withdrawn, saying why."""
        if self.seeks.cancel(seek.session, seek.id):
            _tell_hosted_ended(seek, ending)
            seek.session.send(messages.seek_cancelled(seek.id))

    def _open(self, mine: Seek) -> bool:
        """Leave `mine` open, if there is room for it; False after telling its client why not."""
        session = mine.session
        refusal = self.seeks.make_room(mine)
        if refusal is not None:
            session.send_error(ErrorCode.TOO_MANY_SEEKS, refusal, ref="seek")
            return False
        self.seeks.add(mine)
        session.send(
            messages.seeking(
                mine.id, mine.game.name, mine.options, mine.time_control, mine.opponent
            )
        )
        return True

    def cancel(self, session: Session, seek_id: int) -> None:
        if not self.seeks.cancel(session, seek_id):
            session.send_error(
                ErrorCode.UNKNOWN_SEEK, f"no open seek {seek_id} of yours", ref="cancel_seek"
            )
            return
        session.send(messages.seek_cancelled(seek_id))

    async def _start_match(self, first: Seek, second: Seek) -> None:
        game = first.game
        options = game.resolve_options(first.options, fresh_seed=lambda: secrets.randbits(31))
        sessions = (first.session, second.session)
        cpu_seats = (first.session.hosted, second.session.hosted)
        try:
            match_id = await self.storage.create_match(
                game.name,
                options,
                first.time_control.to_wire(),
                (first.illegal, second.illegal),
                game.seats,
                [session.name for session in sessions],
                clocks=["cpu" if cpu else "wall" for cpu in cpu_seats],
            )
        except NotStored as error:
            log.error("a new %s match could not be stored: %s", game.name, error)
            for session in sessions:
                session.send_error(
                    ErrorCode.INTERNAL_ERROR,
                    f"the match could not start: the server could not store it ({error});"
                    " your seek is withdrawn",
                    ref="seek",
                )
            return
        self.matches.start(
            Match(
                id=match_id,
                game=game,
                options=options,
                control=first.time_control,
                sessions=list(sessions),
                hints=(first.hints, second.hints),
                storage=self.storage,
                illegal=(first.illegal, second.illegal),
                grace=self.matches.grace,
                cpu_seats=cpu_seats,
                stalls=self.matches.stalls,
            )
        )


def _tell_hosted_ended(seek: Seek, ending: str) -> None:
    seek.session.send_error(
        ErrorCode.BAD_OPPONENT,
        f"{seek.opponent} ended before your game began ({ending}): your seek is withdrawn",
        ref="seek",
    )


def _terms(
    session: Session, seek: protocol.Seek
) -> tuple[Game[Any, Any], TimeControl, Illegal] | None:
    """The game, time control and illegal-move rule `seek` asks for; None after telling the
    client why they are refused (a challenge to itself, or terms the server does not offer)."""
    if seek.opponent == session.name:
        session.send_error(
            ErrorCode.BAD_OPPONENT,
            f"you play as {session.name!r}: a seek cannot challenge its own player",
            ref="seek",
        )
        return None
    illegal = Illegal(seek.illegal)
    try:
        game, time_control = checked_terms(seek.game, seek.options, seek.time, illegal)
    except TermsRefused as refused:
        session.send_error(refused.code, str(refused), ref="seek")
        return None
    return game, time_control, illegal
