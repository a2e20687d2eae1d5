"""How strong the built-in agents are against each other, game by game: a ladder of tiers,
weakest first, as docs/agents.md's strength tables measured them.

A league's bosses must get stronger league by league, and the server, which imports no agent,
cannot tell a strong agent from a weak one by its name: it asks the agents' side (`arbiter
agents GAME --json --strength`). Only orders the tables measured with a clear margin are
stated; agents in one tier are not told apart, and an agent not listed for a game has no stated
strength there, so no league may use it as a boss.
"""

from __future__ import annotations

from typing import Final

TIERS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "amazons": (("random",), ("mcts",), ("greedy",), ("alphabeta",)),
    "kings-court": (("random",), ("greedy",), ("mcts",), ("alphabeta",)),
    "shobu": (("random",), ("easy", "greedy"), ("medium", "mcts"), ("hard", "alphabeta")),
    "war-of-life": (("random",), ("greedy",), ("mcts",), ("alphabeta",)),
    "watch-your-back": (("random",), ("mcts",), ("alphabeta",)),
}
"""Each game's agents in tiers, weakest first."""


def strengths(game: str) -> dict[str, int]:
    """Each agent with a stated strength in `game`, by its tier (0 the weakest)."""
    return {agent: level for level, tier in enumerate(TIERS.get(game, ())) for agent in tier}
