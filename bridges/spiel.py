"""Our five games as OpenSpiel Python games: `pyspiel.load_game("arbiter_amazons")` and so on.

Importing this module registers them (`pyspiel.register_game`), named `arbiter_` and the game's
name with underscores. The rules stay in games/; an OpenSpiel state holds one of our states and
the actions chosen toward its next move (`encoding.Turn`), and asks the game's `Encoding` for
legal actions, tensors and strings. A game's options are OpenSpiel parameters of the same names
(War of Life's `seed` defaults to 0 here: OpenSpiel parameters have values, not "draw one").

Returns: win 1, loss -1, draw 0. King's Court's double forfeit gives both players -1, so that
game is general-sum; the other four are zero-sum. Serialisation is OpenSpiel's default for
Python games, the history of actions, replayed on load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from arbiter.bridges.encoding import Encoding, Turn, returns
from arbiter.bridges.encodings import ENCODINGS
from arbiter.games import Game, State

_Type = pyspiel.GameType


def spiel_name(game_name: str) -> str:
    """The OpenSpiel name of one of our games: `arbiter_kings_court`."""
    return "arbiter_" + game_name.replace("-", "_")


def _parameters(game: Game[Any, Any]) -> dict[str, Any]:
    return {option.name: 0 if option.is_seed else option.default for option in game.options}


def _game_type(encoding: Encoding) -> Any:
    game = encoding.game
    return pyspiel.GameType(
        short_name=spiel_name(game.name),
        long_name=f"Arbiter {game.title}",
        dynamics=_Type.Dynamics.SEQUENTIAL,
        chance_mode=_Type.ChanceMode.DETERMINISTIC,
        information=_Type.Information.PERFECT_INFORMATION,
        utility=_Type.Utility.GENERAL_SUM if game.can_both_forfeit else _Type.Utility.ZERO_SUM,
        reward_model=_Type.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(game),
    )


class SpielGame(pyspiel.Game):  # type: ignore[misc]
    """One of our games under OpenSpiel; `encoding` says which (a subclass per game)."""

    encoding: Encoding

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        game = self.encoding.game
        given = dict(params or {})
        self.options = game.resolve_options({**_parameters(game), **given})
        length = self.encoding.game.max_plies(self.options) * self.encoding.max_tokens
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.num_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None if game.can_both_forfeit else 0.0,
            max_game_length=length,
        )
        super().__init__(_game_type(self.encoding), info, given)

    def new_initial_state(self, state: State[Any] | None = None) -> SpielState:
        """The start, or (for a bot that joins a game under way) the position `state`."""
        start = self.encoding.game.initial_state(self.options) if state is None else state
        return SpielState(self, Turn(start))

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> Observer:
        return Observer(self.encoding)


class SpielState(pyspiel.State):  # type: ignore[misc]
    """A position under OpenSpiel: one of our states and the actions chosen toward its move."""

    def __init__(self, game: SpielGame, turn: Turn) -> None:
        super().__init__(game)
        self.encoding = game.encoding
        self.turn = turn

    def current_player(self) -> int:
        return int(pyspiel.PlayerId.TERMINAL) if self.is_terminal() else self.turn.state.turn

    def _legal_actions(self, player: int) -> list[int]:
        return self.encoding.legal_actions(self.turn)

    def _apply_action(self, action: int) -> None:
        self.turn = self.encoding.advance(self.turn, action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.encoding.action_name(action)

    def is_terminal(self) -> bool:
        return self.turn.state.outcome() is not None

    def returns(self) -> list[float]:
        return returns(self.turn.state.outcome())

    def __str__(self) -> str:
        return self.encoding.observation_string(self.turn)


class Observer:
    """OpenSpiel's Python observer: the encoding's tensor and string (perfect information, so
    every player sees the same)."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        self.tensor = np.zeros(int(np.prod(encoding.tensor_shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(encoding.tensor_shape)}

    def set_from(self, state: SpielState, player: int) -> None:
        self.tensor[:] = self.encoding.tensor(state.turn).ravel()

    def string_from(self, state: SpielState, player: int) -> str:
        return self.encoding.observation_string(state.turn)


def _register(encoding: Encoding) -> type[SpielGame]:
    name = "".join(part.title() for part in encoding.game_name.split("-"))
    cls = type(f"{name}SpielGame", (SpielGame,), {"encoding": encoding})
    pyspiel.register_game(_game_type(encoding), cls)
    return cls


GAMES: dict[str, type[SpielGame]] = {name: _register(enc) for name, enc in ENCODINGS.items()}
"""Our game's name -> its OpenSpiel game class (registered)."""


def load(game_name: str, **options: Any) -> SpielGame:
    """Our game `game_name` as an OpenSpiel game, with options as parameters."""
    game: SpielGame = pyspiel.load_game(spiel_name(game_name), options)
    return game
