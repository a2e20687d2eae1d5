"""The evaluations' compiled features against their Python statements: the same values, always.

Each evaluation module states its features in Python and, where the game's kernel is built,
calls a compiled twin of the hottest ones (`_territory` for `territory`, and so on). Here every
position of many random games is evaluated both ways, for both seats, and each twin is also
asked about random bitboards no game reaches, so a drift in either shows up as a failing value.
The skip when no kernel is built turns into a failure under `CI`, where a compiler is present.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from arbiter.agents.evaluations import amazons as amazons_evaluation
from arbiter.agents.evaluations import kings_court as kings_court_evaluation
from arbiter.agents.evaluations import shobu as shobu_evaluation
from arbiter.agents.evaluations import watch_your_back as watch_your_back_evaluation
from arbiter.games import amazons, get_game, kings_court, shobu, watch_your_back
from tests.games.lockstep import kernel_or_skip

GAMES_PER_CASE = 40
RANDOM_BOARDS = 2000

TWINS: dict[str, tuple[ModuleType, ModuleType, dict[str, str]]] = {
    "amazons": (
        amazons,
        amazons_evaluation,
        {"_territory": "territory", "_freedom": "freedom"},
    ),
    "kings-court": (kings_court, kings_court_evaluation, {"_jumpable": "jumpable"}),
    "watch-your-back": (
        watch_your_back,
        watch_your_back_evaluation,
        {"_reach": "reach", "_in_danger": "in_danger"},
    ),
    "shobu": (shobu, shobu_evaluation, {"_balance": "balance"}),
}
"""Per game: its rules module, its evaluation module, and each compiled name with its reference."""


def positions(name: str, seed: int) -> Iterator[Any]:
    """Every position of a seeded random game, the finished last one included."""
    rng = random.Random(seed)
    state = get_game(name).new_game(fresh_seed=lambda: rng.getrandbits(16))
    yield state
    while state.outcome() is None:
        state = state.play(state.random_move(rng))
        yield state


@pytest.mark.parametrize("name", sorted(TWINS))
def test_random_games_evaluate_alike_both_ways(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rules, evaluation, twins = TWINS[name]
    kernel_or_skip(rules)
    for compiled in twins:
        assert getattr(evaluation, compiled) is getattr(rules.KERNEL, twins[compiled])
    states = [state for seed in range(GAMES_PER_CASE) for state in positions(name, seed)]
    native = [evaluation.evaluate(state, seat) for state in states for seat in (0, 1)]
    for compiled, reference in twins.items():
        monkeypatch.setattr(evaluation, compiled, getattr(evaluation, reference))
    python = [evaluation.evaluate(state, seat) for state in states for seat in (0, 1)]
    drifts = [
        (state, seat, ours, theirs)
        for (state, seat), ours, theirs in zip(
            ((s, seat) for s in states for seat in (0, 1)), native, python, strict=True
        )
        if ours != theirs
    ]
    assert not drifts, f"{len(drifts)} of {len(native)} evaluations differ, first {drifts[0]}"


def random_boards(rng: random.Random, count: int, bits: int) -> list[int]:
    """`count` disjoint random bitboards over `bits` squares, each square in at most one."""
    owners = [rng.randrange(count + 2) for _ in range(bits)]
    return [sum(1 << square for square in range(bits) if owners[square] == i) for i in range(count)]


def agree(compiled: Callable[..., Any], reference: Callable[..., Any], arguments: Any) -> None:
    native, python = compiled(*arguments), reference(*arguments)
    assert native == python, f"{arguments}: compiled {native!r}, Python {python!r}"


def test_territory_and_freedom_of_random_boards_alike() -> None:
    kernel = kernel_or_skip(amazons)
    rng = random.Random(1)
    for _ in range(RANDOM_BOARDS):
        mine, theirs, arrows = random_boards(rng, 3, amazons.SIZE**2)
        empty = amazons.FULL & ~(mine | theirs | arrows)
        agree(kernel.territory, amazons_evaluation.territory, (mine, theirs, empty))
        worth = amazons_evaluation.FREEDOM
        agree(kernel.freedom, amazons_evaluation.freedom, (mine | theirs, empty, worth))


def test_jumpable_finds_random_threats_alike() -> None:
    kernel = kernel_or_skip(kings_court)
    rng = random.Random(2)
    for _ in range(RANDOM_BOARDS):
        victims, attackers = random_boards(rng, 2, 64)
        empty = kings_court.FULL & ~(victims | attackers)
        agree(kernel.jumpable, kings_court_evaluation.jumpable, (victims, attackers, empty))


def test_reach_and_danger_of_random_boards_alike() -> None:
    kernel = kernel_or_skip(watch_your_back)
    rng = random.Random(3)
    for _ in range(RANDOM_BOARDS):
        pieces, others, blocked = random_boards(rng, 3, 64)
        occupied, open_squares = pieces | others, ~(pieces | others | blocked) & (2**64 - 1)
        agree(kernel.reach, watch_your_back_evaluation.reach, (pieces, occupied, open_squares))
        agree(kernel.in_danger, watch_your_back_evaluation.in_danger, (pieces, others, blocked))


def test_balance_of_random_boards_alike() -> None:
    kernel = kernel_or_skip(shobu)
    rng = random.Random(4)
    for _ in range(RANDOM_BOARDS):
        mine, theirs = random_boards(rng, 2, 64)
        arguments = (mine, theirs, rng.random() < 0.5, shobu_evaluation.TEMPO)
        agree(kernel.balance, shobu_evaluation.balance, arguments)


@pytest.mark.parametrize(
    ("rules", "function", "arguments", "error"),
    [
        (amazons, "territory", (-1, 0, 0), "mine must not be negative"),
        (amazons, "territory", (0, 1 << 100, 0), "theirs has a square beyond the board's 100"),
        (amazons, "freedom", (1, 0, (0.0,) * 8), "worth must hold 9 numbers"),
        (amazons, "freedom", (1, 0, [0.0] * 9), "must be tuple, not list"),
        (kings_court, "jumpable", (0, 1 << 64, 0), "attackers must be a bitboard of 64 squares"),
        (watch_your_back, "reach", (0, 0, "x"), "open_squares must be an int bitboard"),
        (watch_your_back, "in_danger", (0, 0), r"in_danger\(\) takes 3 arguments \(2 given\)"),
        (shobu, "balance", (0, 0, True, "x"), "and a float tempo"),
        (shobu, "balance", (-1, 0, True, 0.1), "mine and theirs must be bitboards of 64 squares"),
    ],
)
def test_bad_arguments_are_refused_by_name(
    rules: ModuleType, function: str, arguments: tuple[Any, ...], error: str
) -> None:
    kernel = kernel_or_skip(rules)
    with pytest.raises((TypeError, ValueError), match=error):
        getattr(kernel, function)(*arguments)
