"""Hint lists as the server builds them: every legal move, unless they could not fit a frame."""

from __future__ import annotations

from arbiter import protocol
from arbiter.games import get_game
from arbiter.games.kings_court import KingsCourtState
from arbiter.protocol import TimeControl
from arbiter.server.play.hints import MAX_HINT_CHARACTERS
from arbiter.server.play.match import Match
from arbiter.server.play.turn import Turn


def lattice(size: int) -> KingsCourtState:
    """White on A1 amid black pieces on every other square of a size x size corner: capture
    routes multiply with the size (424 moves at 6, 17,058 at 7)."""
    rows = []
    for row in reversed(range(8)):
        cells = ""
        for column in range(8):
            if (column, row) in ((0, 0), (3, 3)):
                cells += "w"
            elif column < size and row < size and column % 2 != row % 2:
                cells += "b"
            else:
                cells += "."
        rows.append(cells)
    return KingsCourtState.from_rows(rows, ply=10)


async def test_hints_are_left_out_only_when_they_could_not_fit_a_frame() -> None:
    game = get_game("kings-court")
    match = Match(
        id=1,
        game=game,
        options={},
        control=TimeControl.parse("move=5"),
        sessions=[],
        hints=(True, True),
        storage=None,  # type: ignore[arg-type]  # building a message stores nothing
    )
    for size, fits in ((6, True), (7, False)):
        match.state = lattice(size)
        every_move = [game.format_move(move) for move in match.state.legal_moves()]
        turn = Turn(0, match.clocks[0], 0.0, match.stalls)
        frame = match._your_turn_message(0, turn).frame_for(protocol.VERSIONS[-1])
        body = frame[protocol.HEADER.size :]
        assert (sum(map(len, every_move)) <= MAX_HINT_CHARACTERS) is fits
        assert protocol.decode_body(body)["legal"] == (every_move if fits else None)
        assert len(body) <= protocol.DEFAULT_MAX_FRAME
