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
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from types import ModuleType
from typing import Any

from arbiter.games import amazons, kings_court, shobu, war_of_life, watch_your_back

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


def lockstep_game(module: ModuleType, start: Any, seed: int, probe: Callable[[], Any]) -> list[Any]:
    """A random game from `start` in lockstep (moves drawn from `random.Random(seed)`, `probe`
    making one possibly illegal move a ply); every state it passed, the last one over."""
    rng = random.Random(seed)
    state = start
    passed = [state]
    while True:
        outcome = both(module, state.outcome, f"seed {seed}: outcome", state)
        moves = both(module, state.legal_moves, f"seed {seed}: legal moves", state)
        if outcome is not None:
            both(module, partial(state.why_illegal, probe()), f"seed {seed}: why_illegal", state)
            return passed
        move = rng.choice(moves)
        for asked in (move, *(probe() for _ in range(PROBES_PER_PLY))):
            question = partial(state.why_illegal, asked)
            both(module, question, f"seed {seed}: why_illegal({asked!r})", state)
        state = both(module, partial(state.play, move), f"seed {seed}: play {move!r}", state)
        passed.append(state)


def replay(module: ModuleType, start: Any, record: list[Any], max_plies: int) -> Any:
    """The kernel playout's `record` replayed from `start` through the Python rules, each move
    checked; the state reached, which must be over unless `max_plies` were played."""
    with python_rules(module):
        state = start
        for move in record:
            reason = state.why_illegal(move)
            if reason is not None:
                raise Drift(f"kernel playout move {move!r} at {state!r} is illegal: {reason}")
            state = state.play(move)
        over = state.outcome() is not None
    if len(record) < max_plies and not over:
        raise Drift(f"kernel playout stopped after {len(record)} of {max_plies}, game over: {over}")
    return state


def perft(state: Any, depth: int) -> int:
    """Positions `depth` moves ahead, counted through the state's own rules (leaves at game's
    end count once)."""
    if depth == 0:
        return 1
    return sum(perft(state.play(move), depth - 1) for move in state.legal_moves())


def memory_held(calls: Callable[[int], None], count: int = 10_000) -> int:
    """The bytes still traced after `calls(count)`, past a traced warm-up of a tenth as many:
    tuples CPython keeps on its free lists, and caches the first calls fill, are counted before
    the measure. What a kernel leaks per call grows with `count`."""
    tracemalloc.start()
    try:
        calls(count // 10)
        before = tracemalloc.get_traced_memory()[0]
        calls(count)
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def limited_game(
    module: ModuleType,
    limits: tuple[int, ...],
    probe: Callable[[random.Random], Any],
    replay_playout: Callable[[Any, random.Random], None],
    seed: int,
) -> int:
    """One random game in lockstep under a no-capture limit the seed picks from `limits`, then a
    kernel playout replayed from one of its positions (any but the last); returns its plies."""
    rng = random.Random(seed)
    start = module.GAME.new_game(no_capture_limit=limits[seed % len(limits)])
    passed = lockstep_game(module, start, seed, partial(probe, rng))
    replay_playout(rng.choice(passed[:-1]), rng)
    return len(passed) - 1


def playout_length(rng: random.Random, longest: int) -> int:
    """`max_plies` for a replayed playout: cut short at a random length one time in four."""
    return rng.randrange(40) if rng.random() < 0.25 else longest


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
    kernel = amazons.KERNEL
    assert kernel is not None
    max_plies = playout_length(rng, amazons.MAX_PLY)
    record: list[amazons.Move] = []
    board = (start.white, start.black, start.arrows, start.to_move)
    end = kernel.playout(*board, rng.getrandbits(64), max_plies, record)
    state = replay(amazons, start, record, max_plies)
    replayed = (state.white, state.black, state.arrows, state.to_move)
    if replayed != end:
        raise Drift(f"kernel playout ended on {end}, its moves replayed reach {replayed}")


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
    max_plies = playout_length(rng, war_of_life.MAX_PLY)
    record: list[tuple[int, int]] = []
    board = (start.blue, start.red, start.ply, war_of_life.MAX_PLY)
    end = kernel.playout(*board, rng.getrandbits(64), max_plies, record)
    moves = [war_of_life.Move(source, target) for source, target in record]
    state = replay(war_of_life, start, moves, max_plies)
    if (state.blue, state.red, state.ply) != end:
        raise Drift(f"kernel playout ended on {end}, its moves replayed reach {state!r}")


# -- King's Court ---------------------------------------------------------------------------------

KINGS_COURT_LIMITS = (3, 12, kings_court.DEFAULT_NO_CAPTURE_LIMIT)
"""No-capture limits the games draw from: small ones reach the double forfeit often."""


def kings_court_game(seed: int) -> int:
    return limited_game(
        kings_court, KINGS_COURT_LIMITS, kings_court_probe, replay_kings_court_playout, seed
    )


def kings_court_probe(rng: random.Random) -> kings_court.Move:
    """A move that is often nearly legal: a start square, then steps of one or two squares."""
    square = rng.randrange(64)
    path = [square]
    for _ in range(rng.randrange(1, 4)):
        step = rng.choice((1, 2)) * rng.choice((1, -1, 8, -8))
        square = min(63, max(0, square + step))
        path.append(square)
    return tuple(path)


def replay_kings_court_playout(start: kings_court.KingsCourtState, rng: random.Random) -> None:
    kernel = kings_court.KERNEL
    assert kernel is not None
    max_plies = playout_length(rng, kings_court.max_plies(start.no_capture_limit))
    record: list[kings_court.Move] = []
    white, black, plies, since_capture, direction = kernel.playout(
        start.white,
        start.black,
        start.turn,
        min(start.ply, 4),
        -1 if start.first_direction is None else start.first_direction,
        start.since_capture,
        start.no_capture_limit,
        rng.getrandbits(64),
        max_plies,
        record,
    )
    state = replay(kings_court, start, record, max_plies)
    first_direction = None if direction < 0 else direction
    end = (white, black, start.ply + plies, since_capture, first_direction)
    replayed = (state.white, state.black, state.ply, state.since_capture, state.first_direction)
    if replayed != end:
        raise Drift(f"kernel playout ended on {end}, its moves replayed reach {replayed}")


# -- Watch Your Back! -----------------------------------------------------------------------------

WATCH_YOUR_BACK_LIMITS = (2, 8, watch_your_back.NO_CAPTURE_LIMIT)


def watch_your_back_game(seed: int) -> int:
    return limited_game(
        watch_your_back,
        WATCH_YOUR_BACK_LIMITS,
        watch_your_back_probe,
        replay_watch_your_back_playout,
        seed,
    )


def watch_your_back_probe(rng: random.Random) -> watch_your_back.Move:
    """A placement, a step of one or two squares (often off its line), or a pass."""
    x, y = rng.randrange(8), rng.randrange(8)
    kind = rng.randrange(3)
    if kind == 0:
        return (x, y)
    if kind == 1:
        dx, dy = rng.choice(((0, 1), (1, 0), (1, 1))), rng.choice((1, 2, -1, -2))
        return ((x, y), (min(7, max(0, x + dx[0] * dy)), min(7, max(0, y + dx[1] * dy))))
    return watch_your_back.PASS


def replay_watch_your_back_playout(
    start: watch_your_back.WatchYourBackState, rng: random.Random
) -> None:
    kernel = watch_your_back.KERNEL
    assert kernel is not None
    max_plies = playout_length(rng, watch_your_back.max_plies(start.no_capture_limit))
    record: list[watch_your_back.Move | None] = []
    board = (start.white, start.black, start.ply, start.shrinks, start.since_capture)
    end = kernel.playout(*board, start.no_capture_limit, rng.getrandbits(64), max_plies, record)
    moves = [watch_your_back.PASS if move is None else move for move in record]
    state = replay(watch_your_back, start, moves, max_plies)
    replayed = (state.white, state.black, state.ply, state.shrinks, state.since_capture)
    if replayed != end:
        raise Drift(f"kernel playout ended on {end}, its moves replayed reach {replayed}")


def shobu_game(seed: int) -> int:
    """bench/shobu_lockstep.py's checks: one seeded game, every position asked both ways (near
    misses among the illegal turns, and `random_move`'s draw), and one kernel playout replayed
    through the Python rules."""
    from bench.shobu_lockstep import check_game, check_playout

    return check_game(seed) + check_playout(seed)


CHECKS: dict[str, tuple[ModuleType, Callable[[int], int]]] = {
    "amazons": (amazons, amazons_game),
    "war-of-life": (war_of_life, war_of_life_game),
    "kings-court": (kings_court, kings_court_game),
    "watch-your-back": (watch_your_back, watch_your_back_game),
    "shobu": (shobu, shobu_game),
}
"""Per game: its rules module (with `KERNEL`) and the lockstep check of one seeded game."""
