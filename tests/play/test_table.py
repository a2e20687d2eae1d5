"""The match as the terminal knows it, from the server's messages."""

from __future__ import annotations

from arbiter import protocol
from arbiter.client.play.session import replayed
from arbiter.client.play.table import Table
from arbiter.games import get_game
from tests.play.tables import table_after

KINGS_COURT = get_game("kings-court")
OPENING = ["B4C4", "G4F4", "C4D4", "G6F6"]


def after(moves: list[str]):
    state = KINGS_COURT.new_game()
    for text in moves:
        state = state.play(KINGS_COURT.parse_move(text))
    return state


def test_a_hot_seat_move_reported_on_both_connections_is_played_once() -> None:
    table = table_after("kings-court", ["B4C4"], local=(0, 1))
    before = table.state
    table.apply(
        protocol.OpponentMoved(match=3, ply=1, seat="white", move="B4C4", elapsed=1.0), 1, 11.0
    )
    assert table.state == before == after(["B4C4"])
    assert table.local == {0, 1}
    assert table.to_move == {1}


def test_the_last_move_and_the_position_before_it_are_kept() -> None:
    table = table_after("kings-court", OPENING)
    assert table.last_move == "G6F6"
    assert table.mover == 1
    assert table.before == after(OPENING[:3])
    position = table.position()
    assert position is not None
    assert position.before == after(OPENING[:3]).to_data()


def test_your_turn_asks_the_local_seat_and_its_state_is_the_servers() -> None:
    table = table_after("kings-court", OPENING)
    assert table.to_move == {0}
    assert table.seat_to_move() == 0
    assert table.clocks.running == 0
    assert table.clocks.budget == 60.0


def test_the_final_move_known_only_from_game_over_is_still_marked() -> None:
    table = table_after("kings-court", OPENING[:3])
    final = after(OPENING)
    over = protocol.GameOver(
        match=3,
        result="both_forfeit",
        winner=None,
        reason="50 moves without a capture",
        state=final.to_data(),
        moves=OPENING,
    )
    table.apply(over, 0, 12.0)
    assert table.phase == "over"
    assert table.state == final
    assert table.last_move == "G6F6"
    assert table.mover == 1
    assert table.result == "both forfeit: 50 moves without a capture"
    assert table.to_move == set()
    assert table.seat_to_move() is None
    assert table.clocks.running is None


def watching_opening(time: dict[str, float]) -> protocol.Watching:
    """What a spectator is told of a King's Court match four moves in (OPENING)."""
    return protocol.Watching(
        match=9,
        game="kings-court",
        seats=["white", "black"],
        players=["ann", "bob"],
        options={"no_capture_limit": 50},
        time=time,
        state=after(OPENING).to_data(),
        moves=OPENING,
    )


def test_a_spectator_joining_mid_game_knows_the_last_move() -> None:
    table = Table(KINGS_COURT, watching=True)
    watching = watching_opening(time={"clock": 60.0, "increment": 0.0})
    table.apply(watching, None, 5.0)
    assert table.state == after(OPENING)
    assert table.before == after(OPENING[:3])
    assert (table.last_move, table.mover, table.local) == ("G6F6", 1, set())
    assert table.clocks.show(1, 6.0) == "--:--", "time spent before we came is not known"


def test_a_finished_match_is_replayed_from_its_first_move() -> None:
    watching = watching_opening(time={"move": 10.0})
    steps = replayed(KINGS_COURT, watching)
    assert isinstance(steps[0], protocol.Watching)
    assert steps[0].moves == []
    assert steps[0].state == KINGS_COURT.new_game().to_data()
    assert [(s.ply, s.seat, s.move) for s in steps[1:]] == [  # type: ignore[attr-defined]
        (1, "white", "B4C4"),
        (2, "black", "G4F4"),
        (3, "white", "C4D4"),
        (4, "black", "G6F6"),
    ]
    table = Table(KINGS_COURT, watching=True)
    for step in steps:
        table.apply(step, None, 1.0)
    assert table.state == after(OPENING)
    assert table.last_move == "G6F6"


def test_seeking_shows_the_time_control_asked_for() -> None:
    table = Table(KINGS_COURT)
    seeking = protocol.Seeking(seek=1, game="kings-court", options={}, time={"move": 30.0})
    table.apply(seeking, None, 0.0)
    assert table.phase == "seeking"
    assert table.control is not None
    assert table.control.move == 30.0
