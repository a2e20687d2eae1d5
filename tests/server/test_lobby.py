"""The lobby on memory streams: what becomes of a dropped client's seats as its matches end."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from arbiter import protocol
from arbiter.games import Termination
from arbiter.protocol import ErrorCode
from arbiter.server.play.defaults import TERMINATIONS, DefaultKind
from tests.server.memory import Client, connect, lobby_on_file

SEEK = protocol.Seek(game="kings-court", time={"move": 60.0})


async def until(client: Client, kind: type[protocol.Message], match: int) -> None:
    """Read until a `kind` message for `match` arrives (two matches' frames interleave)."""
    while True:
        message = await client.receive()
        if isinstance(message, kind) and getattr(message, "match", None) == match:
            return


async def test_a_match_that_ends_releases_only_its_own_away_seat(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    async with lobby_on_file(tmp_path / "arbiter.db") as lobby:
        ann = await connect(lobby, nursery, "ann")
        opponents = []
        for name in ("bob", "cat"):
            opponent = await connect(lobby, nursery, name)
            await ann.send(SEEK)
            await opponent.send(SEEK)
            opponents.append((opponent, (await opponent.expect(protocol.MatchStarted)).match))
        (bob, first), (cat, second) = opponents  # ann sought first: she is white in both
        await ann.close()
        await trio.testing.wait_all_tasks_blocked()
        assert all(0 in lobby.matches[match].away for match in (first, second))

        await bob.send(protocol.Resign(match=first))
        await until(bob, protocol.GameOver, first)
        ann = await connect(lobby, nursery, "ann", resume=ann.session)
        resumed = await ann.expect(protocol.Resumed)
        assert resumed.match == second
        assert resumed.to_move
        turn = await ann.expect(protocol.YourTurn)
        assert turn.legal is not None
        await ann.send(protocol.Move(match=second, move=turn.legal[0]))
        await until(cat, protocol.OpponentMoved, second)
        assert not lobby.matches[second].away


def test_every_default_kind_ends_a_game_with_its_own_termination() -> None:
    assert TERMINATIONS == {
        DefaultKind.CRASH: Termination.DISCONNECT,
        DefaultKind.ILLEGAL: Termination.ILLEGAL_MOVE,
        DefaultKind.TIME: Termination.TIME,
        DefaultKind.ABSENT: Termination.ABSENT,
    }


async def test_a_lobby_with_no_tournaments_plugged_in_says_so_and_pairs_every_seek(
    tmp_path: Path, nursery: trio.Nursery, mock_clock: trio.testing.MockClock
) -> None:
    async with lobby_on_file(tmp_path / "arbiter.db") as lobby:
        ann = await connect(lobby, nursery, "ann")
        await ann.send(protocol.TournamentStatus(tournament="spring"))
        refused = await ann.expect(protocol.Error)
        assert (refused.code, refused.ref) == (ErrorCode.NOT_ALLOWED, "tournament_status")
        assert "no tournaments" in refused.message
        bob = await connect(lobby, nursery, "bob")
        await ann.send(SEEK)
        await ann.expect(protocol.Seeking)
        await bob.send(SEEK)
        assert (await bob.expect(protocol.MatchStarted)).players == ["ann", "bob"]
        await ann.send(protocol.Lobby(follow=False))
        listing = await ann.receive()
        while not isinstance(listing, protocol.LobbyListing):  # past the match's own frames
            listing = await ann.receive()
        assert listing.tournaments == []
        assert [entry["players"] for entry in listing.matches] == [["ann", "bob"]]
