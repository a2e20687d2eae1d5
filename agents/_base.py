"""What an agent is: a state and a time budget in, a move out. Agents never see a socket."""

from __future__ import annotations

from typing import Any, Protocol

from arbiter.games import Game, State


class Agent(Protocol):
    """A decision maker for one game. `choose` may take up to `budget` seconds."""

    def choose(self, state: State[Any], budget: float) -> Any:
        """A legal move for `state.turn` (the game's move object, not its text)."""
        ...


class AgentFactory(Protocol):
    def __call__(self, game: Game[Any, Any], seed: int | None, /) -> Agent: ...
