"""The table of open seeks: pairing looks only at the seeks it could pair with."""

from __future__ import annotations

import time
from typing import Any, cast

from arbiter.games import get_game
from arbiter.protocol import TimeControl
from arbiter.server.limits import Limits
from arbiter.server.seeks import Seek, Seeks
from arbiter.server.session import Session

COURT = get_game("kings-court")
CONTROL = TimeControl.parse("move=5")


def a_seek(seeks: Seeks, session: object, **options: Any) -> Seek:
    return Seek(seeks.next_id(), cast(Session, session), COURT, options, CONTROL, True, "forfeit")


def test_pairing_is_as_fast_with_30000_seeks_open_as_with_none() -> None:
    seeks = Seeks(Limits(seeks_per_connection=30_000, seeks=40_000))
    hoarder, other = object(), object()
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
    first, second = object(), object()
    older, newer = a_seek(seeks, first), a_seek(seeks, first)
    seeks.add(older)
    seeks.add(newer)
    assert seeks.pop_partner(a_seek(seeks, first)) is None
    assert seeks.pop_partner(a_seek(seeks, second)) is older
    assert seeks.pop_partner(a_seek(seeks, second)) is newer
    assert seeks.pop_partner(a_seek(seeks, second)) is None


def test_cancelled_and_dropped_seeks_leave_every_index() -> None:
    seeks = Seeks(Limits(seeks_per_connection=2))
    gone, stays = object(), object()
    seeks.add(a_seek(seeks, gone))
    kept = a_seek(seeks, gone, no_capture_limit=7)
    seeks.add(kept)
    assert seeks.refusal(cast(Session, gone)) is not None
    assert seeks.cancel(cast(Session, gone), kept.id)
    assert seeks.refusal(cast(Session, gone)) is None
    seeks.drop(cast(Session, gone))
    assert seeks.pop_partner(a_seek(seeks, stays)) is None
    assert not seeks._casual and not seeks._of and not seeks._open
