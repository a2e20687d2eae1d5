"""Spectators: a live match shown as it stands and then move by move, a finished one read back
from the store, replayed and shown once per connection.

A finished match's frames are kept encoded (`server.play.snapshots`), so a match watched again
costs neither a read nor a replay; spectators asking for it while it is read and replayed wait
for that one reading rather than each starting their own; the replay runs on the event loop in
slices of time (`server.common.slices`), so a long game shown for the first time holds no
match's move for longer than a slice. An id that will never have anything to show (an aborted
match) is remembered too, and refused without a read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import trio

from arbiter import protocol
from arbiter.games import Game, GameError, State, get_game
from arbiter.protocol import ErrorCode
from arbiter.server.common.slices import Slices
from arbiter.server.connection.session import Session
from arbiter.server.play import messages
from arbiter.server.play.match import Match
from arbiter.server.play.messages import Ending, Table
from arbiter.server.play.seating import Seating
from arbiter.server.play.snapshots import Shown, nothing_to_show, snapshots
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.records import FullRecord

log = logging.getLogger(__name__)


class Spectating:
    """Answers `watch`: the live matches from `matches`, the finished ones from `storage`."""

    def __init__(
        self, storage: Storage, matches: dict[int, Match], seating: Seating, cache_bytes: int
    ) -> None:
        self.storage = storage
        self.matches = matches
        self.seating = seating
        self.snapshots = snapshots(cache_bytes)
        """Finished matches as a spectator is shown them, encoded."""
        self.nothing_to_show = nothing_to_show()
        """Ids whose watch is refused without a read: matches that will never be shown."""
        self._reading: dict[int, trio.Event] = {}
        """Finished matches being read and replayed for a spectator, set once they are done."""

    async def watch(self, session: Session, match_id: int, since: int | None = None) -> None:
        """Show `session` the match (a live one's moves from about `since`, when it knows the
        ones before; a finished one's in full, encoded once for every spectator)."""
        match = self.matches.get(match_id)
        if match is not None:
            if not match.add_spectator(session, since):
                session.send_error(
                    ErrorCode.ALREADY_WATCHING,
                    f"you already watch match {match_id}: its moves keep coming",
                    "watch",
                    match_id,
                )
            return
        if self.seating.was_shown(session, match_id):
            session.send_error(
                ErrorCode.ALREADY_WATCHING,
                f"you were shown finished match {match_id} already: it does not change",
                "watch",
                match_id,
            )
            return
        if self.nothing_to_show.get(match_id):
            session.send_error(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}", "watch", match_id)
            return
        while (reading := self._reading.get(match_id)) is not None:
            await reading.wait()
        shown = self.snapshots.get(match_id) or await self._read_once(session, match_id)
        if shown is not None:  # two writes of the kept frames rather than a joined copy
            session.send(shown[0])
            session.send(shown[1])
            self.seating.shown(session, match_id)

    async def _read_once(self, session: Session, match_id: int) -> Shown | None:
        self._reading[match_id] = done = trio.Event()
        try:
            return await self._show_finished(session, match_id)
        finally:
            del self._reading[match_id]
            done.set()

    async def _show_finished(self, session: Session, match_id: int) -> Shown | None:
        """A finished match's frames for a spectator, read back and replayed (then kept), or
        None after telling `session` why there are none."""
        record = await self.storage.load_match(match_id)
        if record is None or record.status != "finished":
            if record is not None and record.status == "aborted":  # for good
                self.nothing_to_show.put(match_id, True)
            session.send_error(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}", "watch", match_id)
            return None
        try:
            state = await replayed(get_game(record.game), record.options, record.notation)
        except GameError as error:  # an edited file, or rules changed since it was played
            log.error("match %d does not replay: %s", match_id, error)
            session.send_error(
                ErrorCode.INTERNAL_ERROR,
                f"match {match_id} cannot be shown: its stored moves do not replay ({error})",
                "watch",
                match_id,
            )
            return None
        table = Table(
            record.id,
            get_game(record.game),
            record.players,
            record.options,
            record.time_control,
            protocol.Position(state.to_data(), None),  # nobody is to move in a finished match
            record.notation,
        )
        assert record.result is not None
        assert record.reason is not None
        ending = Ending(
            record.result,
            record.winner,
            record.reason,
            record.termination,
            final_clocks_ms(record),
            record.clocks,
        )
        shown = (
            protocol.Encoded(messages.watching(table)),
            protocol.Encoded(messages.game_over(table, ending)),
        )
        self.snapshots.put(match_id, shown)
        return shown


async def replayed(
    game: Game[Any, Any], options: Mapping[str, Any], texts: Sequence[str]
) -> State[Any]:
    """The position a stored game's moves reach (each checked, as `Game.replay` does), played in
    slices of time between checkpoints."""
    state: State[Any] = game.initial_state(options)
    slices = Slices()
    for text in texts:
        await slices.step()
        _, state = game.apply_text(state, text)
    return state


def final_clocks_ms(record: FullRecord) -> list[int] | None:
    """A finished match's game clocks as its moves left them, in milliseconds (a seat that
    never moved has its whole clock); None without a game clock."""
    start = record.time_control.get("clock")
    if start is None:
        return None
    clocks = [float(start), float(start)]
    for row in record.moves:
        if row.clock is not None:
            clocks[record.seats.index(row.seat)] = row.clock
    return [round(seconds * 1000) for seconds in clocks]
