"""Shobu's compiled rules against its Python rules, game by game, in lockstep.

    python bench/shobu_lockstep.py [--games 10000] [--seed 1] [--perft 3]

games/shobu.py states the rules; games/native/shobu.c computes the same answers faster. This
plays random games on both at once and stops at the first disagreement, naming the seed, the
position and what differed: at every position the legal turns (and their order), `has_turn`,
`cleared_board`, `outcome`, `why_illegal` of legal and illegal turns, the turn `random_move`
draws from the same generator, and the position after the turn; then C playouts replayed turn
by turn through the Python rules, and perft counts from the start.
tests/games/test_native_shobu.py runs a few of these in the suite; this script runs them by the
ten thousand. Exits non-zero on a disagreement or when the kernel is not built.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from arbiter.games import shobu
from arbiter.games.shobu import GAME, KERNEL, Move, ShobuState

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, run as a script
from tests.games.lockstep import both, perft, python_rules, replay

NEAR_MISSES = 4
"""Illegal turns checked at each position, each a legal turn with one part changed: they reach
the checks a random tuple rarely does (a push into a stone, a passive move that passes one)."""


def random_options(rng: random.Random) -> dict[str, int]:
    """Mostly the default limit; sometimes a short one, so that draws by the limit are common."""
    return {"no_capture_limit": rng.choice([100, 100, rng.randint(1, 30)])}


def random_position(rng: random.Random) -> ShobuState:
    """Stones on any squares (one to four a colour a board, now and then none), any counters:
    positions no game reaches as well as those it does, cleared boards among them."""
    black = white = 0
    for board in range(4):
        squares = rng.sample(range(16 * board, 16 * board + 16), 8)
        black_count, white_count = (rng.randint(0 if rng.random() < 0.1 else 1, 4) for _ in "bw")
        for square in squares[:black_count]:
            black |= 1 << square
        for square in squares[4 : 4 + white_count]:
            white |= 1 << square
    limit = rng.randint(1, 40)
    return ShobuState(black, white, rng.randint(0, 300), rng.randint(0, limit), limit)


def illegal_candidates(rng: random.Random, moves: list[Move]) -> Iterator[Move]:
    """Turns to ask `why_illegal` about: legal turns with one part changed, and random ones."""
    for _ in range(NEAR_MISSES if moves else 0):
        turn = list(rng.choice(moves))
        part = rng.randrange(4)
        turn[part] = rng.randint(1, 2) if part == 3 else rng.randrange(8 if part == 2 else 64)
        yield turn[0], turn[1], turn[2], turn[3]
    yield rng.randrange(64), rng.randrange(64), rng.randrange(8), rng.randint(1, 2)


def check_position(state: ShobuState, rng: random.Random) -> Move | None:
    """Asks both rules every question about `state`; the turn `random_move` drew, None once the
    game is over. Raises AssertionError (`Drift`) naming what differed."""
    moves = both(shobu, state.legal_moves, "legal turns", state)
    both(shobu, state.has_turn, "has_turn", state)
    both(shobu, state.cleared_board, "cleared_board", state)
    outcome = both(shobu, state.outcome, "outcome", state)
    for turn in [*moves[:: max(1, len(moves) // 4)], *illegal_candidates(rng, moves)]:
        both(shobu, partial(state.why_illegal, turn), f"why_illegal{turn}", state)
    if outcome is not None or not moves:
        return None
    seed = rng.getrandbits(32)
    turn: Move = both(shobu, lambda: state.random_move(random.Random(seed)), "random_move", state)
    both(shobu, partial(state.play, turn), f"play{turn}", state)
    return turn


def check_game(seed: int) -> int:
    """One random game from the start, every position checked; its length in plies."""
    rng = random.Random(seed)
    state = GAME.new_game(**random_options(rng))
    while (turn := check_position(state, rng)) is not None:
        state = state.play(turn)
    return state.ply


def check_playout(seed: int) -> int:
    """One C playout (cut short now and then) replayed through the Python rules: every turn
    legal there, the same end. Its length in plies."""
    rng = random.Random(seed)
    start = GAME.new_game(**random_options(rng))
    max_plies = rng.choice([10**6, rng.randint(0, 60)])
    turns: list[Move] = []
    assert KERNEL is not None
    end = KERNEL.playout(start, rng.getrandbits(64), max_plies, turns)
    state = replay(shobu, start, turns, max_plies)
    assert state == end, f"playout {seed} ends elsewhere than its replay"
    with python_rules(shobu):
        assert state.outcome() == end.outcome(), f"playout {seed}'s outcome differs"
    return len(turns)


def perfts(state: ShobuState, depth: int) -> tuple[int, int]:
    """Perft to `depth` on the Python rules and on the kernel."""
    with python_rules(shobu):
        python = perft(state, depth)
    return python, perft(state, depth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games and playouts each")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--perft", type=int, default=3, help="perft depth from the start")
    args = parser.parse_args()
    if KERNEL is None:
        sys.exit("no Shobu kernel is built (or ARBITER_PURE_PYTHON is set): nothing to compare")
    started, plies = time.perf_counter(), 0
    for seed in range(args.seed, args.seed + args.games):
        try:
            plies += check_game(seed) + check_playout(seed)
            check_position(random_position(random.Random(seed)), random.Random(seed))
        except AssertionError as disagreement:
            sys.exit(f"seed {seed}: {disagreement}")
        if (seed - args.seed + 1) % 500 == 0:
            print(
                f"{seed - args.seed + 1} games agree ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    start = GAME.new_game()
    counts = perfts(start, args.perft)
    if counts[0] != counts[1]:
        sys.exit(f"perft {args.perft} differs: {counts[0]} on the Python rules, {counts[1]} in C")
    print(
        f"{args.games} games, {args.games} playouts and {args.games} random positions agree "
        f"({plies} plies); perft {args.perft} = {counts[0]} on both "
        f"({time.perf_counter() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
