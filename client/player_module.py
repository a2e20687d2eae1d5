"""Player modules: agents written against the original Watch Your Back! referee, on Arbiter.

A Player module is a Python file defining `Player` with `__init__(colour)`, `action(turns)` and
`update(action)` (the original referee's API). `PlayerAgent` makes one an ordinary `Agent`, so the
runner, `arbiter bot --player` and `arbiter referee` drive it like any other:

- It runs in a process of its own, spoken to over a pipe (one JSON line each way per call),
  because students' code crashes, hangs, prints and calls `sys.exit`, and none of that may take
  the client down with it. The child moves its stdout onto stderr before loading the module, so
  prints show up for the owner without ever mixing into the pipe.
- Each game translates its moves to and from its original Player API (`Game.legacy_action`,
  `parse_legacy_action`, `legacy_turns`, `legacy_start`): Watch Your Back! exactly as the
  original referee did (`turns` counts the moves of the current phase, actions are `(x, y)`,
  `((xa, ya), (xb, yb))` and `None` for a forfeit); every other game in notation strings, with
  `turns` the number of moves played so far. `update` hears only the opponent's actions.
- Anything that goes wrong inside the module (an exception, an answer that is not a move, no
  answer within the move's time, a dead process) is `PlayerCrashed`, a crash of the seat: the
  owner sees the traceback on stderr, and the client stops playing, which the server records as
  the seat's default.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arbiter import protocol
from arbiter.agents import Agent, AgentBase, AgentError, all_agent_names, make_agent
from arbiter.client.connection import ClientConnection
from arbiter.client.runner import GameRecord, LadderEntry, MessageHook, play_one, run_bot
from arbiter.client.sandbox.ending import ending
from arbiter.client.sandbox.limits import Limits
from arbiter.client.sandbox.process import prepare
from arbiter.games import Game, InvalidMoveError, State

CALL_GRACE = 1.0
"""Seconds a module may run past its move's time before it counts as hung. By then the server
has defaulted the seat anyway; the grace only keeps a slow-but-alive module from being called
hung for a few milliseconds of pipe latency."""
LOAD_SECONDS = 60.0
"""Time for a module's import (its top level: tables, an opening book) before it seeks a game."""
FINAL_UPDATE_SECONDS = 5.0
"""Time for the last `update` (the opponent's final move), delivered after the game ended."""
STOP_SECONDS = 2.0
"""How long a closing module gets to exit on its own before it is killed."""

HOST_MODULE = "arbiter.client.player_host"
"""What the child runs (`player_host.py`): the module's side of the pipe, light to start."""


def is_module_path(name: str) -> bool:
    """Whether a command-line agent name is a Player module's path rather than an agent name."""
    return name.endswith(".py") or os.sep in name or (os.altsep is not None and os.altsep in name)


def player_name(name: str) -> str:
    """The name a player connects under: a module's file name without `.py`, else the name."""
    return Path(name).stem if is_module_path(name) else name


def agent_or_module(text: str) -> str:
    """The command line's AGENT: a registered agent's name or an existing Player module file."""
    if is_module_path(text):
        if not Path(text).is_file():
            raise argparse.ArgumentTypeError(f"no Player module file {text!r}")
        return text
    names = all_agent_names()
    if text not in names:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {text!r} (choose from {', '.join(names)}, or a Player module's "
            "path ending in .py)"
        )
    return text


def make_any_agent(
    name: str, game: Game[Any, Any], seed: int | None = None, *, sandboxed: bool = False
) -> Agent:
    """A registered agent by name, or a `PlayerAgent` for a module path (`AgentError` if none),
    its process in the sandbox if `sandboxed`."""
    if not is_module_path(name):
        return make_agent(name, game, seed)
    return PlayerAgent(_module_file(name), game, sandboxed=sandboxed)


def _module_file(name: str | Path) -> Path:
    path = Path(name)
    if not path.is_file():
        raise AgentError(f"no Player module at {str(name)!r}: there is no such file")
    return path


class PlayerCrashed(Exception):
    """A Player module failed: its seat has crashed. `details` holds the module's traceback."""

    def __init__(self, module: Path, call: str, what: str, details: str = "") -> None:
        super().__init__(f"player module {module} crashed in {call}: {what}")
        self.details = details

    def report(self) -> str:
        """What its owner reads on stderr: the sentence, then the module's own traceback."""
        text = f"arbiter: {self}"
        return f"{text}\n{self.details.rstrip()}" if self.details else text


# --------------------------------------------------------------------------------------------
# Translation between the Player API and the game's moves: pure, so the tests check it directly.


class ActionError(ValueError):
    """A module's answer that is no move of the game."""


def phase_turns(game: Game[Any, Any], state: State[Any]) -> int:
    """`turns` for `action`, as the game's original referee counted them."""
    return game.legacy_turns(state)


def move_from_action(game: Game[Any, Any], action: Any) -> Any:
    """The game's move for what `action()` returned (after the pipe turned tuples into lists)."""
    try:
        return game.parse_legacy_action(action)
    except InvalidMoveError as error:
        raise ActionError(f"action() returned {action!r}: {error}") from None


def action_from_move(game: Game[Any, Any], move: Any) -> Any:
    """What `update()` receives for an opponent's move, in the game's original form."""
    return game.legacy_action(move)


# --------------------------------------------------------------------------------------------
# The client's side of the pipe: blocking calls with deadlines, made from the runner's thread.


class PlayerProcess:
    """The child process running one Player module, and the pipe to it: in the sandbox
    (`client.sandbox`, its own folder read-only) if `sandboxed`."""

    def __init__(self, path: Path, *, sandboxed: bool = False) -> None:
        self.path = path
        command = [sys.executable, "-m", HOST_MODULE, str(path.resolve())]
        self._launch = None
        if sandboxed:
            self._launch = prepare(command, Limits(), code=[path.resolve().parent])
            command = self._launch.argv
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd="/" if sandboxed else None,
            preexec_fn=None if self._launch is None else self._launch.preexec,
        )
        self._buffer = b""
        self._loaded = False

    def wait_loaded(self, deadline: float) -> None:
        """Wait for the module to be imported (its top level run), or raise `PlayerCrashed`."""
        if not self._loaded:
            self._receive(f"loading {self.path.name}", deadline)
            self._loaded = True

    def call(self, name: str, request: dict[str, Any], deadline: float) -> Any:
        """Send one call and return its result, or raise `PlayerCrashed` saying what failed."""
        self.wait_loaded(deadline)
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(request).encode() + b"\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died(name) from None
        return self._receive(name, deadline).get("result")

    def _receive(self, name: str, deadline: float) -> dict[str, Any]:
        line = self._read_line(name, deadline)
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            self.close()
            last_line = reply["error"].strip().splitlines()[-1]
            raise PlayerCrashed(self.path, name, last_line, reply["error"])
        return reply

    def _read_line(self, name: str, deadline: float) -> bytes:
        """One reply line, waiting no later than `deadline` (`time.monotonic()`)."""
        assert self._process.stdout is not None
        pipe = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([pipe], [], [], remaining)[0]:
                self.kill()
                raise PlayerCrashed(
                    self.path, name, "no answer before its time ran out: stopped it"
                )
            chunk = os.read(pipe, 65536)
            if not chunk:
                raise self._died(name)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _died(self, name: str) -> PlayerCrashed:
        try:
            code = self._process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        self.close()
        if code is None:
            return PlayerCrashed(self.path, name, "its process stopped answering")
        how = ending(Limits(), code, None, b"").sentence
        return PlayerCrashed(self.path, name, f"its process exited ({how}, exit code {code})")

    def kill(self) -> None:
        """End a child that stopped answering at once: it would not read a polite close."""
        self._process.kill()
        self.close()

    def close(self) -> None:
        """End the child: closing its stdin lets it exit; a stuck one is killed."""
        with contextlib.suppress(OSError):
            if self._process.stdin is not None:
                self._process.stdin.close()
        try:
            self._process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        if self._launch is not None:
            self._launch.cleanup()


# --------------------------------------------------------------------------------------------
# The Agent.


class PlayerAgent(AgentBase):
    """An `Agent` asking a Player module for its moves and telling it the opponent's.

    The process starts at once, so the module loads while the client seeks. `Player(colour)` is
    built on the first turn (the seat is then known: it is the one to move), then, for every game
    but Watch Your Back!, its optional `start(state)` gets the start position (War of Life's is
    random, and the Player API has no other way to tell it). The opponent's moves heard in between
    (`observe`, the runner's message hook) reach `update` before the next `action`, in the
    original referee's order.
    """

    def __init__(self, path: Path, game: Game[Any, Any], *, sandboxed: bool = False) -> None:
        self.path = path
        self.game = game
        self._process = PlayerProcess(path, sandboxed=sandboxed)
        self._created = False
        self._start: dict[str, Any] | None = None
        self._heard: list[Any] = []

    def observe(self, message: object) -> None:
        """Note an opponent's move for `update`; called on the trio thread, so it never blocks."""
        if isinstance(message, protocol.MatchStarted):
            self._start = message.state
        elif isinstance(message, protocol.OpponentMoved):
            move = self.game.parse_move(message.move)
            self._heard.append(action_from_move(self.game, move))

    def choose(self, state: State[Any], budget: float) -> Any:
        deadline = time.monotonic() + budget + CALL_GRACE
        if not self._created:
            colour = self.game.seats[state.turn]
            self._process.call(f"Player({colour!r})", {"call": "init", "colour": colour}, deadline)
            if self.game.legacy_start:
                start = {"call": "start", "state": self._start}
                self._process.call("start(state)", start, deadline)
            self._created = True
        self._deliver_heard(deadline)
        turns = phase_turns(self.game, state)
        name = f"action({turns})"
        answer = self._process.call(name, {"call": "action", "turns": turns}, deadline)
        try:
            return move_from_action(self.game, answer)
        except ActionError as error:
            self._process.close()
            raise PlayerCrashed(self.path, name, str(error)) from None

    def load(self) -> None:
        """Wait until the module is imported: before seeking, so its import time is never taken
        from a move, and a module that cannot load never joins a game."""
        self._process.wait_loaded(time.monotonic() + LOAD_SECONDS)

    def finish(self) -> None:
        """After the game: `update` with the opponent's last move, as the original referee did."""
        if self._created:
            self._deliver_heard(time.monotonic() + FINAL_UPDATE_SECONDS)

    def _deliver_heard(self, deadline: float) -> None:
        while self._heard:
            action = self._heard.pop(0)
            self._process.call(
                f"update({action!r})", {"call": "update", "action": action}, deadline
            )

    def close(self) -> None:
        self._process.close()


# --------------------------------------------------------------------------------------------
# Playing: one seat with crash handling, and `arbiter bot --player`.


def report_to_stderr(crash: PlayerCrashed) -> None:
    print(crash.report(), file=sys.stderr, flush=True)


async def play_seat(
    connection: ClientConnection,
    game: Game[Any, Any],
    agent: Agent,
    *,
    on_message: MessageHook | None = None,
    on_crash: Callable[[PlayerCrashed], None] = report_to_stderr,
    **seek: Any,
) -> GameRecord:
    """`play_one`, plus what a Player module needs: its message hook, and a crash reported.

    A `PlayerCrashed` is re-raised after `on_crash`: the caller stops playing and closes the
    connection, which the server records as the seat's default.
    """
    try:
        return await play_one(connection, game, agent, on_message=on_message, **seek)
    except BaseException as error:
        crash = _first_crash(error)
        if crash is None:
            raise
        on_crash(crash)
        raise crash from None


def _first_crash(error: BaseException) -> PlayerCrashed | None:
    """The crash in `error`, which may come wrapped in the exception groups of the runner's
    nurseries (it thinks in a thread while another task answers pings)."""
    if isinstance(error, PlayerCrashed):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            if (crash := _first_crash(inner)) is not None:
                return crash
    return None


async def run_player_bot(
    host: str,
    port: int,
    game_name: str,
    path: Path,
    *,
    name: str,
    games: int = 1,
    time_control: dict[str, Any] | None = None,
    opponent: str | None = None,
    on_result: Callable[[GameRecord], None] | None = None,
    on_message: MessageHook | None = None,
    tls: ssl.SSLContext | None = None,
    token: str | None = None,
    ladder: LadderEntry | None = None,
) -> list[GameRecord]:
    """Connect once and play `games` games with a fresh Player per game (as the original
    referee built one per game); a crash ends the run with `PlayerCrashed`. `token` and
    `ladder` are `run_bot`'s."""
    path = _module_file(path)
    return await run_bot(
        host,
        port,
        game_name,
        lambda game, _: PlayerAgent(path, game),
        name=name,
        games=games,
        time_control=time_control,
        opponent=opponent,
        on_result=on_result,
        on_message=on_message,
        tls=tls,
        token=token,
        ladder=ladder,
        play=play_seat,
    )
