"""The lobby, visible: `lobby` lists open seeks with why they do not pair,
live matches with their move number and clocks, and tournaments with their progress; `follow`
pushes a fresh listing after each change, coalesced; a seek may challenge one player. Real TCP."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ServerError
from arbiter.server.play.lobby_feed import FOLLOW_SECONDS
from tests.conftest import RunningServer
from tests.e2e.helpers import Dial, until
from tests.tournament.helpers import create, director, register, start

GAME = "kings-court"


async def listing(connection: ClientConnection, follow: bool = False) -> protocol.LobbyListing:
    await connection.send(protocol.Lobby(follow=follow))
    with trio.fail_after(10):
        answer: protocol.LobbyListing = await until(connection, protocol.LobbyListing)
    return answer


async def seek(
    connection: ClientConnection, time: dict[str, float] | None = None, **fields: Any
) -> protocol.Message:
    await connection.send(protocol.Seek(game=GAME, time=time or {}, **fields))
    with trio.fail_after(10):
        return await connection.receive()


async def test_the_listing_shows_an_open_seek_with_everything_it_asks_for(
    dial: Dial,
) -> None:
    lonely, looker = await dial.client("lonely"), await dial.client("looker")
    seeking = await seek(lonely, {"move": 3.0}, options={"no_capture_limit": 20})
    assert isinstance(seeking, protocol.Seeking)
    shown = await listing(looker)
    assert shown.seeks == [
        {
            "seek": seeking.seek,
            "player": "lonely",
            "game": GAME,
            "options": {"no_capture_limit": 20},
            "time": {"move": 3.0, "lag": 1.0},
            "opponent": None,
            "unpaired": None,  # nobody else seeks the game: it just waits
        }
    ]
    assert (shown.matches, shown.tournaments, shown.seeks_left_out) == ([], [], 0)
    assert not shown.following


async def test_a_live_match_shows_its_move_number_and_both_clocks_running(
    dial: Dial,
) -> None:
    white, black = await dial.client("white"), await dial.client("black")
    looker = await dial.client("looker")
    clock = {"clock": 60.0, "increment": 0.0}
    await seek(white, clock)
    started = await seek(black, clock)
    assert isinstance(started, protocol.MatchStarted)
    with trio.fail_after(10):
        turn = await until(white, protocol.YourTurn)
        await white.send(protocol.Move(match=turn.match, move=turn.legal[0]))
        await until(black, protocol.YourTurn)
    first = (await listing(looker)).matches
    await trio.sleep(0.5)
    later = (await listing(looker)).matches
    assert [m["match"] for m in first] == [started.match]
    entry = first[0]
    assert entry["players"] == ["white", "black"]
    assert entry["seats"] == ["white", "black"]
    assert (entry["game"], entry["ply"], entry["to_move"]) == (GAME, 1, "black")
    assert entry["time"] == {"clock": 60.0, "increment": 0.0, "lag": 1.0}
    assert 58 < entry["clocks"][0] <= 60
    assert 58 < entry["clocks"][1] <= 60
    assert later[0]["clocks"][0] == entry["clocks"][0], "white's clock stands still"
    assert 0.4 < entry["clocks"][1] - later[0]["clocks"][1] < 2, "black's runs"
    assert later[0]["time_left"] == pytest.approx(later[0]["clocks"][1])


async def test_seeks_with_different_time_controls_each_say_why_they_do_not_pair(
    dial: Dial,
) -> None:
    """The Node example seeks `move=2`; a bot on the game's default (`move=10`) never met it."""
    node, bot = await dial.client("node"), await dial.client("bot")
    assert isinstance(await seek(node, {"move": 2.0}), protocol.Seeking)
    assert isinstance(await seek(bot), protocol.Seeking)  # the default: move=10
    unpaired = {entry["player"]: entry["unpaired"] for entry in (await listing(bot)).seeks}
    assert unpaired == {
        "node": "bot seeks move=10, this seek move=2",
        "bot": "node seeks move=2, this seek move=10",
    }


async def test_seeks_with_different_options_say_so(dial: Dial) -> None:
    ann, ben = await dial.client("ann"), await dial.client("ben")
    await seek(ann, options={"no_capture_limit": 20})
    await seek(ben)
    unpaired = {entry["player"]: entry["unpaired"] for entry in (await listing(ann)).seeks}
    assert unpaired["ben"] == "ann seeks no_capture_limit=20, this seek default options"
    assert unpaired["ann"] == "ben seeks default options, this seek no_capture_limit=20"


async def test_a_challenge_pairs_only_with_the_named_player_and_says_so_meanwhile(
    dial: Dial,
) -> None:
    alice, carol, bob = [await dial.client(n) for n in ("alice", "carol", "bob")]
    challenge = await seek(alice, opponent="bob")
    assert isinstance(challenge, protocol.Seeking)
    assert challenge.opponent == "bob"
    assert isinstance(await seek(carol), protocol.Seeking), "carol is not bob: no match"
    seeks = {entry["player"]: entry for entry in (await listing(carol)).seeks}
    assert seeks["alice"]["opponent"] == "bob"
    assert seeks["carol"]["opponent"] is None
    assert seeks["alice"]["unpaired"] == "this seek challenges bob, not carol"
    assert seeks["carol"]["unpaired"] == "alice challenges bob"
    started = await seek(bob, opponent="alice")
    assert isinstance(started, protocol.MatchStarted)
    assert started.players == ["alice", "bob"]
    assert [entry["player"] for entry in (await listing(carol)).seeks] == ["carol"]


async def test_a_seek_cannot_challenge_its_own_player(dial: Dial) -> None:
    narcissus = await dial.client("narcissus")
    with pytest.raises(ServerError, match=r"bad_opponent.*cannot challenge its own player"):
        await seek(narcissus, opponent="narcissus")
    assert (await listing(narcissus)).seeks == []


async def test_a_tournament_shows_its_state_and_games_played_as_they_finish(
    server: RunningServer,
    dial: Dial,
) -> None:
    """Both entrants stay away: each game defaults after `wait`, and the follower sees it."""
    register(server.db, "ann", "ben")
    async with await director(server.port, server.db) as boss:
        await create(boss, players=["ann", "ben"], wait=0.3)
        looker = await dial.client("looker")
        shown = await listing(looker, follow=True)
        assert shown.following
        assert shown.tournaments == [
            {"name": "cup", "game": GAME, "status": "created", "played": 0, "games": 2}
        ]
        await start(boss)
        seen = []
        with trio.fail_after(20):
            while not seen or seen[-1] != ("finished", 2):
                pushed = await until(looker, protocol.LobbyListing)
                entry = pushed.tournaments[0]
                seen.append((entry["status"], entry["played"]))
    assert seen[0][0] == "running"
    assert seen[-1] == ("finished", 2)


async def test_a_follower_hears_of_a_match_and_its_moves_at_most_once_a_second(
    dial: Dial,
) -> None:
    looker = await dial.client("looker")
    assert (await listing(looker, follow=True)).matches == []
    white, black = await dial.client("white"), await dial.client("black")
    await seek(white, {"move": 5.0})
    started = await seek(black, {"move": 5.0})
    assert isinstance(started, protocol.MatchStarted)
    with trio.fail_after(5):  # the match shows within a second of starting
        pushed = await until(looker, protocol.LobbyListing)
        while not pushed.matches:
            pushed = await until(looker, protocol.LobbyListing)
    assert pushed.following
    assert pushed.matches[0]["match"] == started.match
    arrivals: list[tuple[float, int]] = []

    async def follow() -> None:
        while True:
            pushed = await until(looker, protocol.LobbyListing)
            plies = [m["ply"] for m in pushed.matches]
            arrivals.append((trio.current_time(), plies[0] if plies else -1))

    played = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(follow)
        played = await shuffle(white, black, seconds=3.5)
        await trio.sleep(FOLLOW_SECONDS + 0.5)  # the last move's listing comes within a second
        nursery.cancel_scope.cancel()
    assert played >= 20, "moves came many times a second"
    assert 3 <= len(arrivals) <= 6, arrivals
    gaps = [later[0] - earlier[0] for earlier, later in itertools.pairwise(arrivals)]
    assert min(gaps) >= FOLLOW_SECONDS * 0.9, gaps
    assert arrivals[-1][1] in (played, -1), "the last listing shows the last move (or the end)"
    plies = [ply for _, ply in arrivals if ply >= 0]
    assert plies == sorted(plies), "each listing shows the match as far as it has come"


async def shuffle(white: ClientConnection, black: ClientConnection, seconds: float) -> int:
    """Both seats play their first hinted move, one move every 0.05 s, for `seconds` or until
    the game ends; the number of moves played."""
    played = 0
    with trio.move_on_after(seconds):
        seats = [white, black]
        while True:
            mover = seats[played % 2]
            message = await mover.receive()
            if isinstance(message, protocol.GameOver):
                break
            if isinstance(message, protocol.YourTurn):
                assert message.legal
                await trio.sleep(0.05)
                await mover.send(protocol.Move(match=message.match, move=message.legal[0]))
                played += 1
    return played


async def test_a_follower_that_stops_following_gets_one_last_listing_and_no_more(
    dial: Dial,
) -> None:
    looker = await dial.client("looker")
    await listing(looker, follow=True)
    last = await listing(looker, follow=False)
    assert not last.following
    first, second = await dial.client("first"), await dial.client("second")
    await seek(first)
    assert isinstance(await seek(second), protocol.MatchStarted)
    with trio.move_on_after(FOLLOW_SECONDS * 2) as quiet:
        await until(looker, protocol.LobbyListing)
    assert quiet.cancelled_caught, "no listing came after follow: false"
