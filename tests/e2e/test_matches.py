"""Whole matches over real TCP on 127.0.0.1 with a real SQLite file."""

from __future__ import annotations

import json
import sqlite3

import pytest
import trio

from arbiter import protocol
from arbiter.agents import make_agent
from arbiter.client.runner import run_bot
from arbiter.games import IllegalMoveError, get_game
from tests.conftest import RunningServer
from tests.e2e.helpers import Dial, play_randomly, replay, seek, until


async def test_bots_play_full_games_and_the_stored_moves_replay_to_the_stored_result(
    server: RunningServer,
) -> None:
    games = 3
    async with trio.open_nursery() as nursery:
        for name, agent in (("alice", "greedy"), ("bob", "random")):
            nursery.start_soon(
                lambda name=name, agent=agent: run_bot(
                    server.host,
                    server.port,
                    "kings-court",
                    lambda game, n, agent=agent: make_agent(agent, game, n),
                    name=name,
                    games=games,
                )
            )
    with sqlite3.connect(server.db) as db:
        matches = db.execute(
            "SELECT id, game, options, status, result, winner, reason FROM matches"
        ).fetchall()
        assert len(matches) == games
        for match_id, game, options, status, result, winner, reason in matches:
            moves = [
                m
                for (m,) in db.execute(
                    "SELECT move FROM moves WHERE match_id = ? ORDER BY ply", (match_id,)
                )
            ]
            assert status == "finished"
            assert moves
            outcome = replay(game, json.loads(options), moves).outcome()
            assert outcome is not None
            assert (outcome.result.value, outcome.reason) == (result, reason)
            assert winner == (
                None if outcome.winner is None else ("white", "black")[outcome.winner]
            )
            scores = sorted(
                s
                for (s,) in db.execute("SELECT score FROM results WHERE match_id = ?", (match_id,))
            )
            assert scores in ([0.0, 1.0], [0.0, 0.0])


@pytest.mark.grace(0.3)
@pytest.mark.parametrize(
    ("misbehaviour", "reason"),
    [
        ("illegal", "illegal move A1A2: "),
        ("sleep", "ran out of time (1 s per move)"),
        ("disconnect", "disconnected"),
        ("out_of_turn", "move out of turn"),
    ],
)
async def test_a_defaulting_seat_loses_while_another_match_finishes_normally(
    server: RunningServer, dial: Dial, misbehaviour: str, reason: str
) -> None:
    results: dict[str, protocol.GameOver] = {}

    async def good_pair() -> None:
        async def player(name: str, seed: int) -> None:
            connection = await dial.client(name)
            await seek(connection, move_time=5.0)
            results[name] = await play_randomly(connection, seed)  # type: ignore[assignment]

        async with trio.open_nursery() as nursery:
            nursery.start_soon(player, "good-1", 1)
            nursery.start_soon(player, "good-2", 2)

    async def bad_pair() -> None:
        honest = await dial.client("honest")
        cheat = await dial.client("cheat")
        assert isinstance(await seek(honest, move_time=1.0), protocol.Seeking)
        started = await seek(cheat, move_time=1.0)
        assert isinstance(started, protocol.MatchStarted)
        async with trio.open_nursery() as nursery:

            async def honest_plays() -> None:
                results["honest"] = await play_randomly(honest, 3)  # type: ignore[assignment]

            nursery.start_soon(honest_plays)
            turn = await play_randomly(cheat, 4, stop_at_ply=4)
            assert isinstance(turn, protocol.YourTurn)
            if misbehaviour == "illegal":
                await cheat.send(protocol.Move(match=turn.match, move="A1A2"))
            elif misbehaviour == "sleep":
                await trio.sleep(turn.time_left + 0.5)
            elif misbehaviour == "disconnect":
                await cheat.aclose()
                return
            elif misbehaviour == "out_of_turn":
                # Both frames in one write: the second is queued before the opponent can answer.
                state = get_game("kings-court").state_from_data(turn.state)
                going_on = next(m for m in state.legal_moves() if not state.play(m).is_over())
                move = protocol.Move(
                    match=turn.match, move=get_game("kings-court").format_move(going_on)
                )
                await cheat.send(move, move)
            results["cheat"] = await until(cheat, protocol.GameOver)
        results["cheat-seat"] = started  # type: ignore[assignment]

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(good_pair)
            nursery.start_soon(bad_pair)

    over = results["honest"]
    assert over.result == "win"
    assert reason in over.reason
    if misbehaviour != "disconnect":
        cheat_seat = results["cheat-seat"].seat  # type: ignore[attr-defined]
        assert over.winner != cheat_seat
        assert results["cheat"].reason == over.reason
    defaults = ("illegal move", "ran out of time", "disconnected", "move out of turn")
    for name in ("good-1", "good-2"):
        assert not any(word in results[name].reason for word in defaults), results[name].reason
    with sqlite3.connect(server.db) as db:
        stored = [r for (r,) in db.execute("SELECT reason FROM matches ORDER BY id")]
    assert over.reason in stored
    assert len(stored) == 2


async def test_a_hinted_move_is_taken_however_written_and_an_unhinted_one_checked(
    dial: Dial,
) -> None:
    """The server takes a move it sent as a hint without checking it again; a move written
    another way, or not among the hints, goes through the rules and gets their answer."""
    game = get_game("kings-court")
    pair = [await dial.client(name) for name in ("first", "second")]
    for connection in pair:
        await connection.send(
            protocol.Seek(game=game.name, time={"move": 5.0}, hints=True, illegal="retry")
        )
    started = [await until(connection, protocol.MatchStarted) for connection in pair]
    mover, other = pair if started[0].seat == game.seats[0] else pair[::-1]
    with trio.fail_after(10):
        turn = await until(mover, protocol.YourTurn)
        state = game.state_from_data(turn.state)
        assert turn.legal == game.format_moves(state.legal_moves())
        await mover.send(protocol.Move(match=turn.match, move="A1A2"))
        refused = await until(mover, protocol.MoveRefused)
        with pytest.raises(IllegalMoveError) as rules_answer:
            game.apply_text(state, "A1A2")
        assert refused.reason == str(rules_answer.value)
        hinted = turn.legal[-1]
        await mover.send(protocol.Move(match=turn.match, move=f" {hinted.lower()} "))
        assert (await until(mover, protocol.MoveAccepted)).move == hinted
        assert (await until(other, protocol.OpponentMoved)).move == hinted
        answer = await until(other, protocol.YourTurn)
        assert answer.state == state.play(game.parse_move(hinted)).to_data()
