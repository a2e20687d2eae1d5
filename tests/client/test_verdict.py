"""Every client writes a result the same way, a time loss's limit included once."""

from __future__ import annotations

from arbiter.client.verdict import verdict


def test_a_win_names_the_winner_and_the_reason_after_a_colon() -> None:
    reason = "white ran out of time (10 s per move)"
    assert verdict("win", "black", reason) == f"black wins: {reason}"


def test_draws_and_double_forfeits_read_as_words() -> None:
    assert verdict("draw", None, "65,536 moves") == "draw: 65,536 moves"
    assert verdict("both_forfeit", None, "51 moves without a capture") == (
        "both forfeit: 51 moves without a capture"
    )
