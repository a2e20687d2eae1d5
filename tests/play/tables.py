"""Tables (a client's view of a match) built from the messages a client would receive."""

from __future__ import annotations

from typing import Any

from arbiter import protocol
from arbiter.client.play.table import Table
from arbiter.games import get_game

TIME = {"clock": 600.0, "increment": 5.0, "move": 60.0}


def table_after(
    game_name: str,
    moves: list[str],
    *,
    local: tuple[int, ...] = (0,),
    options: dict[str, Any] | None = None,
    players: tuple[str, str] = ("ann", "random"),
) -> Table:
    """A table fed the messages a client would get for `moves`, its local seats' reports as
    `move_accepted`, the others' as `opponent_moved`, and `your_turn` if a local seat is next."""
    game = get_game(game_name)
    resolved = game.resolve_options(options or {}, lambda: 7)
    state = game.initial_state(resolved)
    table = Table(game)
    for seat in local:
        table.apply(
            protocol.MatchStarted(
                match=3,
                game=game_name,
                seat=game.seats[seat],
                seats=list(game.seats),
                players=list(players),
                options=resolved,
                time=TIME,
                hints=True,
                state=state.to_data(),
                illegal="retry",
            ),
            seat,
            0.0,
        )
    clocks = [600.0, 600.0]
    for ply, text in enumerate(moves, start=1):
        seat = state.turn
        state = state.play(game.parse_move(text))
        clocks = [max(0.0, left - 2.0) if i == seat else left for i, left in enumerate(clocks)]
        report: protocol.Message = (
            protocol.MoveAccepted(match=3, ply=ply, move=text, elapsed=2.0, clocks=clocks)
            if seat in local
            else protocol.OpponentMoved(
                match=3, ply=ply, seat=game.seats[seat], move=text, elapsed=2.0, clocks=clocks
            )
        )
        table.apply(report, seat if seat in local else None, 10.0)
    if not state.is_over() and state.turn in local:
        your_turn = protocol.YourTurn(
            match=3, ply=state.ply, state=state.to_data(), legal=None, time_left=60.0, clocks=clocks
        )
        table.apply(your_turn, state.turn, 10.0)
    return table
