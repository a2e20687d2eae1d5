"""Playing a game's compiled kernel and its Python rules in lockstep, one random game at a time.

The Python module is the rules' statement and the kernel a second implementation of its hot
parts, so each check here asks both the same question and insists on the same answer: the
legal moves (in order), the end test and its outcome, `why_illegal` on the move played and on a
random probe, the state after each move; then a whole kernel playout is replayed move by move
through the Python rules (each move legal, the same final position, and an ended game exactly
when the kernel stopped early). Both paths run in one process: `python_rules` hides a module's
kernel for the length of a `with`, so the same state answers from the Python code.

The test files run a few hundred games; `bench/rules.py --check N` runs N per game, so that the
two paths are compared over tens of thousands of games without slowing the suite.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import ModuleType
from typing import Any

from arbiter.games import amazons, war_of_life

PROBES_PER_PLY = 1
AMAZONS_MOVE_LIST_STRIDE = 12
"""Amazons' full move lists (hundreds of moves, slow in Python) are compared every this many
plies, from an offset the seed picks; the end test and `why_illegal` at every ply."""


class Drift(AssertionError):
    """The kernel and the Python rules answered one question differently."""


@contextmanager
def python_rules(module: ModuleType) -> Iterator[None]:
    """The module's Python rules alone while inside: its kernel is hidden, then restored."""
    saved = module.KERNEL
    module.KERNEL = None
    try:
        yield
    finally:
        module.KERNEL = saved


def both(module: ModuleType, question: Callable[[], Any], what: str, state: Any) -> Any:
    """The kernel's answer to `question` about `state`, after checking the Python rules give the
    same one (`what` names the question in the error)."""
    native = question()
    with python_rules(module):
        python = question()
    if native != python:
        raise Drift(f"{what} at {state!r}: the kernel says {native!r}, the Python rules {python!r}")
    return native


def kernel_or_skip(module: ModuleType) -> Any:
    """The module's kernel; a test without it is skipped, but fails where `CI` is set, because
    a CI machine has a compiler and must build every kernel."""
    import pytest

    if module.KERNEL is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{module.__name__} has no compiled kernel, and CI must build it")
        pytest.skip(f"{module.__name__}'s kernel is not built (no compiler?)")
    return module.KERNEL


# -- Amazons ---------------------------------------------------------------------------------------


def amazons_game(seed: int) -> int:
    """One random Amazons game in lockstep, then a kernel playout replayed; returns its plies."""
    rng = random.Random(seed)
    state = amazons.GAME.new_game()
    offset = seed % AMAZONS_MOVE_LIST_STRIDE
    while True:
        outcome = both(amazons, state.outcome, f"seed {seed}: outcome", state)
        if outcome is not None or state.ply % AMAZONS_MOVE_LIST_STRIDE == offset:
            both(amazons, state.legal_moves, f"seed {seed}: legal moves", state)
        if outcome is not None:
            break
        move = state.random_move(rng)
        for probe in (move, *(amazons_probe(rng) for _ in range(PROBES_PER_PLY))):
            both(
                amazons,
                partial(state.why_illegal, probe),
                f"seed {seed}: why_illegal{probe}",
                state,
            )
        state = state.play(move)
    replay_amazons_playout(amazons.GAME.new_game(), rng)
    return state.ply


def amazons_probe(rng: random.Random) -> amazons.Move:
    return rng.randrange(100), rng.randrange(100), rng.randrange(100)


def replay_amazons_playout(start: amazons.AmazonsState, rng: random.Random) -> None:
    """A kernel playout from `start`, cut short at a random length one time in four."""
    kernel = amazons.KERNEL
    assert kernel is not None
    max_plies = rng.randrange(40) if rng.random() < 0.25 else amazons.MAX_PLY
    record: list[amazons.Move] = []
    board = (start.white, start.black, start.arrows, start.to_move)
    end = kernel.playout(*board, rng.getrandbits(64), max_plies, record)
    with python_rules(amazons):
        state = start
        for move in record:
            reason = state.why_illegal(move)
            if reason is not None:
                raise Drift(f"kernel playout move {move} at {state!r} is illegal: {reason}")
            state = state.play(move)
        replayed = (state.white, state.black, state.arrows, state.to_move)
        over = state.outcome() is not None
    if replayed != end:
        raise Drift(f"kernel playout ended on {end}, its moves replayed reach {replayed}")
    if len(record) < max_plies and not over:
        raise Drift(f"kernel playout stopped after {len(record)} of {max_plies}, game over: {over}")


# -- War of Life -----------------------------------------------------------------------------------


def war_of_life_game(seed: int) -> int:
    """One random War of Life game in lockstep, then a kernel playout replayed; its plies."""
    rng = random.Random(seed)
    start = war_of_life.GAME.new_game(seed=seed, swap=bool(seed & 1))
    state = start
    while True:
        outcome = both(war_of_life, state.outcome, f"seed {seed}: outcome", state)
        moves = both(war_of_life, state.legal_moves, f"seed {seed}: legal moves", state)
        if outcome is not None:
            break
        move = rng.choice(moves)
        probe = war_of_life.Move(rng.randrange(64), rng.randrange(64))
        for asked in (move, probe):
            both(
                war_of_life,
                partial(state.why_illegal, asked),
                f"seed {seed}: why_illegal{asked}",
                state,
            )
        state = both(war_of_life, partial(state.play, move), f"seed {seed}: play {move}", state)
    replay_war_of_life_playout(start, rng)
    return state.ply


def replay_war_of_life_playout(start: war_of_life.WarOfLifeState, rng: random.Random) -> None:
    kernel = war_of_life.KERNEL
    assert kernel is not None
    max_plies = rng.randrange(100) if rng.random() < 0.25 else war_of_life.MAX_PLY
    record: list[tuple[int, int]] = []
    board = (start.blue, start.red, start.ply, war_of_life.MAX_PLY)
    end = kernel.playout(*board, rng.getrandbits(64), max_plies, record)
    with python_rules(war_of_life):
        state = start
        for source, target in record:
            move = war_of_life.Move(source, target)
            if move not in state.legal_moves():
                raise Drift(f"kernel playout move {move!r} at {state!r} is not a legal move")
            state = state.play(move)
        over = state.outcome() is not None
    if (state.blue, state.red, state.ply) != end:
        raise Drift(f"kernel playout ended on {end}, its moves replayed reach {state!r}")
    if len(record) < max_plies and not over:
        raise Drift(f"kernel playout stopped after {len(record)} of {max_plies}, game over: {over}")


CHECKS: dict[str, tuple[ModuleType, Callable[[int], int]]] = {
    "amazons": (amazons, amazons_game),
    "war-of-life": (war_of_life, war_of_life_game),
}
"""Per game: its rules module (with `KERNEL`) and the lockstep check of one seeded game."""
