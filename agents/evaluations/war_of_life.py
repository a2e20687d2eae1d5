"""War of Life: pieces after Conway's Crank, mine minus theirs (the land-grab measure).

The crank has already run inside `play`, so the count is of the board the next player faces.
The game is won by wiping the other colour out, and the crank makes positional features fleeting
(a cluster that looks strong is overcrowded a move later), so material is the whole evaluation:
what the search adds is looking further ahead than the seed's one- and two-ply strategies.
"""

from __future__ import annotations

from arbiter.agents.evaluation import Evaluation
from arbiter.games import Seat
from arbiter.games.war_of_life import WarOfLifeState

PIECE = 100.0


def evaluate(state: WarOfLifeState, seat: Seat) -> float:
    mine, theirs = (state.red, state.blue) if seat else (state.blue, state.red)
    return PIECE * (mine.bit_count() - theirs.bit_count())


EVALUATION = Evaluation(evaluate, scale=2 * PIECE)
