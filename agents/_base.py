"""What an agent is: a state and a time budget in, a move out. Agents never see a socket.

`choose` is all an agent needs. An agent that holds something outside its object (a process, a
file, a model in memory) or wants to hear the game's messages may also define any of the
optional lifecycle methods below; `lifecycle(agent)` gives a runner all four, doing nothing for
the ones an agent leaves out, so runners call them unconditionally and never ask what kind of
agent they hold. Subclassing `AgentBase` is the same thing spelt as a base class.

The order a runner keeps, for one game: `load()` (before seeking: slow start-up is never taken
from a move's time), `observe(message)` for every message of the connection, `choose` on each
turn, `finish()` after the game ended, and `close()` always, last, even after a failure.
`load`, `choose` and `finish` may block (runners call them off the event loop); `observe` and
`close` must not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from arbiter.games import Game, State


class Agent(Protocol):
    """A decision maker for one game. `choose` may take up to `budget` seconds."""

    def choose(self, state: State[Any], budget: float) -> Any:
        """A legal move for `state.turn` (the game's move object, not its text)."""
        ...


class AgentFactory(Protocol):
    def __call__(self, game: Game[Any, Any], seed: int | None, /) -> Agent: ...


class AgentBase:
    """The optional lifecycle methods, each doing nothing: override the ones you need."""

    def load(self) -> None:
        """Get ready to play (may block): called once before the game is sought."""

    def observe(self, message: object) -> None:
        """A message the connection received (a `protocol` message); must not block."""

    def finish(self) -> None:
        """The game is over (may block): e.g. tell a wrapped program the last move."""

    def close(self) -> None:
        """Release what the agent holds; called last, also after a failure; must not block."""


def _nothing(*_: object) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """An agent's lifecycle methods, a no-op standing in for each one it does not define."""

    load: Callable[[], None]
    observe: Callable[[object], None]
    finish: Callable[[], None]
    close: Callable[[], None]


def lifecycle(agent: Agent) -> Lifecycle:
    """The agent's `load`, `observe`, `finish` and `close`: the one place that looks for them."""
    found = {name: getattr(agent, name, _nothing) for name in Lifecycle.__slots__}
    return Lifecycle(**found)


class Registration(NamedTuple):
    """One line of `agents.register`: name, factory, help, and the games (None: all)."""

    name: str
    factory: Callable[[Game[Any, Any], int | None], Agent]
    help: str
    games: tuple[str, ...] | None = None
