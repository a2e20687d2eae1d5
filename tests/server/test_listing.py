"""The lobby listing's bounds: however many seeks the server holds, a listing is one frame any
client accepts, built in a moment, and says how many it left out."""

from __future__ import annotations

import time

from arbiter import protocol
from arbiter.protocol import TimeControl
from arbiter.server.connection.limits import Limits
from arbiter.server.play.listing import UNPAIRED_LEN, listing
from arbiter.server.play.seeks import Seeks
from tests.server.test_seeks import Seeker, a_seek


def test_ten_thousand_seeks_with_the_longest_names_fit_one_frame_and_are_counted() -> None:
    seeks = Seeks(Limits(seeks_per_connection=10_000))
    longest = "王" * 64  # 64 characters of 3 bytes each
    for number in range(10_000):
        seeker = Seeker(f"{number}{longest}"[:64])
        control = TimeControl(move=1 + number % 100)
        seeks.add(a_seek(seeks, seeker, opponent=longest, control=control, no_capture_limit=20))
    started = time.perf_counter()
    shown = listing(seeks, [], [], now=0.0, following=False)
    took = time.perf_counter() - started
    frame = protocol.Encoded(shown).frame
    assert len(frame) < protocol.DEFAULT_MAX_FRAME
    assert 10 <= len(shown.seeks) <= protocol.MAX_LISTED
    assert shown.seeks_left_out == 10_000 - len(shown.seeks)
    assert all(len(entry["unpaired"]) <= UNPAIRED_LEN for entry in shown.seeks)
    assert took < 0.05, f"{took:.3f} s to list 10,000 seeks"
