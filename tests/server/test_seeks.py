"""The table of open seeks: pairing looks only at the seeks it could pair with."""

from __future__ import annotations

import time
from typing import Any, cast

from arbiter import protocol
from arbiter.games import get_game
from arbiter.protocol import TimeControl
from arbiter.server.connection.limits import Limits
from arbiter.server.connection.session import Session
from arbiter.server.play.seeks import Seek, Seeks

COURT = get_game("kings-court")
CONTROL = TimeControl.parse("move=5")


class Seeker:
    """A connection as the table of seeks sees it: an identity with a name and an address, and
    the frames it was sent."""

    def __init__(self, name: str, address: str = "") -> None:
        self.name = name
        self.address = address
        self.sent: list[protocol.Message] = []

    def send(self, message: protocol.Message) -> None:
        self.sent.append(message)


def a_seek(
    seeks: Seeks,
    session: Seeker,
    opponent: str | None = None,
    control: TimeControl = CONTROL,
    **options: Any,
) -> Seek:
    return Seek(
        seeks.next_id(),
        cast(Session, session),
        COURT,
        options,
        control,
        True,
        "forfeit",
        opponent=opponent,
    )


def test_pairing_is_as_fast_with_30000_seeks_open_as_with_none() -> None:
    seeks = Seeks(Limits(seeks_per_connection=30_000, seeks=40_000))
    hoarder, other = Seeker("hoarder"), Seeker("other")
    for limit in range(30_000):
        seeks.add(a_seek(seeks, hoarder, no_capture_limit=limit % 999 + 1, seed=limit))
    waiting = a_seek(seeks, hoarder)
    seeks.add(waiting)
    started = time.perf_counter()
    for _ in range(100):
        mine = a_seek(seeks, other)
        assert seeks.pop_partner(mine) is waiting
        seeks.add(waiting)
    assert (time.perf_counter() - started) / 100 < 0.001  # a scan of the 30,000 took ms


def test_a_seeker_is_never_paired_with_itself_and_the_oldest_partner_comes_first() -> None:
    seeks = Seeks()
    first, second = Seeker("first"), Seeker("second")
    older, newer = a_seek(seeks, first), a_seek(seeks, first)
    seeks.add(older)
    seeks.add(newer)
    assert seeks.pop_partner(a_seek(seeks, first)) is None
    assert seeks.pop_partner(a_seek(seeks, second)) is older
    assert seeks.pop_partner(a_seek(seeks, second)) is newer
    assert seeks.pop_partner(a_seek(seeks, second)) is None


def test_cancelled_and_dropped_seeks_leave_every_index() -> None:
    seeks = Seeks(Limits(seeks_per_connection=2))
    gone, stays = Seeker("gone"), Seeker("stays")
    seeks.add(a_seek(seeks, gone))
    kept = a_seek(seeks, gone, no_capture_limit=7)
    seeks.add(kept)
    assert seeks.make_room(a_seek(seeks, gone)) is not None
    assert seeks.cancel(cast(Session, gone), kept.id)
    assert seeks.make_room(a_seek(seeks, gone)) is None
    seeks.drop(cast(Session, gone))
    assert seeks.pop_partner(a_seek(seeks, stays)) is None
    assert not seeks._casual
    assert not seeks._games
    assert not seeks._offers
    assert not seeks._of
    assert not seeks._open
    assert not seeks._held
    assert not len(seeks._holders)


def test_a_challenge_pairs_only_with_the_named_player() -> None:
    seeks = Seeks()
    alice, bob, carol = Seeker("alice"), Seeker("bob"), Seeker("carol")
    challenge = a_seek(seeks, alice, opponent="bob")
    seeks.add(challenge)
    assert seeks.pop_partner(a_seek(seeks, carol)) is None
    assert seeks.pop_partner(a_seek(seeks, carol, opponent="alice")) is None
    assert seeks.pop_partner(a_seek(seeks, bob, opponent="carol")) is None
    assert seeks.pop_partner(a_seek(seeks, bob)) is challenge


def test_a_challenge_takes_the_named_players_open_seek_or_its_counter_challenge() -> None:
    seeks = Seeks()
    alice, bob, carol = Seeker("alice"), Seeker("bob"), Seeker("carol")
    for_carol, for_anyone = a_seek(seeks, bob, opponent="carol"), a_seek(seeks, bob)
    seeks.add(for_carol)
    seeks.add(for_anyone)
    assert seeks.pop_partner(a_seek(seeks, alice, opponent="bob")) is for_anyone
    counter = a_seek(seeks, bob, opponent="alice")
    seeks.add(counter)
    assert seeks.pop_partner(a_seek(seeks, alice, opponent="bob")) is counter
    assert seeks.pop_partner(a_seek(seeks, carol)) is for_carol


def test_an_open_seek_takes_the_oldest_of_an_open_seek_and_a_challenge_naming_its_player() -> None:
    seeks = Seeks()
    alice, bob, carol = Seeker("alice"), Seeker("bob"), Seeker("carol")
    challenge, open_one = a_seek(seeks, alice, opponent="carol"), a_seek(seeks, bob)
    seeks.add(challenge)
    seeks.add(open_one)
    assert seeks.pop_partner(a_seek(seeks, carol)) is challenge
    assert seeks.pop_partner(a_seek(seeks, carol)) is open_one


def test_pairing_is_as_fast_with_30000_challenges_open_as_with_none() -> None:
    seeks = Seeks(Limits(seeks_per_connection=60_000, seeks=70_000))
    crowd, alice, bob = Seeker("crowd"), Seeker("alice"), Seeker("bob")
    for number in range(30_000):
        seeks.add(a_seek(seeks, crowd, opponent=f"player{number}"))
        seeks.add(a_seek(seeks, crowd, opponent="bob"))  # only bob is named, but by crowd
    waiting = a_seek(seeks, alice, opponent="bob")
    seeks.add(waiting)
    started = time.perf_counter()
    for _ in range(100):
        assert seeks.pop_partner(a_seek(seeks, bob, opponent="alice")) is waiting
        seeks.add(waiting)
    assert (time.perf_counter() - started) / 100 < 0.001


def test_rival_is_the_oldest_other_casual_seek_of_the_game() -> None:
    seeks = Seeks()
    alice, bob = Seeker("alice"), Seeker("bob")
    mine = a_seek(seeks, alice, control=TimeControl.parse("move=10"))
    seeks.add(mine)
    assert seeks.rival(mine) is None
    theirs = a_seek(seeks, bob, control=TimeControl.parse("move=2"))
    seeks.add(theirs)
    assert seeks.rival(mine) is theirs
    assert seeks.rival(theirs) is mine
    assert [seek.id for seek in seeks.casual()] == [mine.id, theirs.id]
