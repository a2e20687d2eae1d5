"""One evaluation module per game, each defining `EVALUATION` (an `agents.evaluation.Evaluation`).

`agents.evaluation.evaluation_for(game)` finds them by the game's name and imports only the one
a process plays.
"""
