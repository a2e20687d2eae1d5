"""The group commit on a real store, a SQLite file and a PostgreSQL database alike: what is
stored, in what order callbacks run, what one bad write costs the rest of its batch, what a
killed commit process costs, how the database numbers matches, and what a record reads back.
Then the SQLite file's own: its lock, another program's file, and older files."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
import pytest
import trio

from arbiter.games import Termination
from arbiter.server.storage.engine import open_database, open_read_only
from arbiter.server.storage.errors import DatabaseInUse, NotArbiterFile, NotStored, Unreadable
from arbiter.server.storage.group_commit import NEW_ID, RETURNING_ID, commit_batch, last_batch
from arbiter.server.storage.interface import ScheduledGame, TournamentRow
from arbiter.server.storage.records import read_records
from arbiter.server.storage.sql_store import SQLStorage
from arbiter.server.storage.sqlite_database import APPLICATION_ID, SCHEMA
from arbiter.server.storage.sqlite_store import SQLiteStorage
from arbiter.server.storage.statuses import MatchStatus, TournamentStatus
from tests.conftest import BOTH_BACKENDS
from tests.processes import commit_writers
from tests.server.memory import FORFEITS, writing_to

INTEGRITY_ERRORS = (sqlite3.IntegrityError, psycopg.IntegrityError)
"""What each engine raises for a row that breaks a key."""
INTEGRITY_ERROR_NAMES = ("IntegrityError", "ForeignKeyViolation")
"""How the commit process names them."""


async def _new_match(storage: SQLStorage) -> int:
    return await storage.create_match(
        "kings-court", {}, {"move": 5.0}, FORFEITS, ["white", "black"], ["a", "b"]
    )


def _rows(db: Path | str, sql: str) -> list[tuple[Any, ...]]:
    """What `sql` reads from the store, on a connection of its own."""
    with closing(open_read_only(db)) as reader:
        return [tuple(row) for row in reader.execute(sql)]


def _stored(db: Path | str) -> list[tuple[Any, ...]]:
    return _rows(db, "SELECT match_id, ply, move FROM moves ORDER BY match_id, ply")


def _refusing(db: Path | str, backend: str, table: str, event: str, when: str, why: str) -> None:
    """Give the store our schema and a trigger that refuses `event` on `table`'s rows `when`
    (a condition on NEW), with `why`: a store that refuses one statement of a write."""
    connection = open_database(db)
    try:
        if backend == "sqlite":
            connection.execute(
                f"CREATE TRIGGER refuse BEFORE {event} ON {table} WHEN {when}"
                f" BEGIN SELECT RAISE(ABORT, '{why}'); END"
            )
        else:
            connection.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
                f" AS $$ BEGIN RAISE EXCEPTION '{why}'; END $$"
            )
            connection.execute(
                f"CREATE TRIGGER refuse BEFORE {event} ON {table} FOR EACH ROW WHEN ({when})"
                " EXECUTE FUNCTION refuse()"
            )
    finally:
        connection.close()


async def _until_committed(storage: SQLStorage) -> None:
    done = trio.Event()
    storage.after_commit(done.set)
    with trio.fail_after(10):
        await done.wait()


@BOTH_BACKENDS
async def test_a_large_batch_is_stored_whole_before_its_callbacks_run(db: Path | str) -> None:
    seen_by_callbacks: list[int] = []
    async with writing_to(db) as storage:
        matches = [await _new_match(storage) for _ in range(3)]
        expected = []
        for ply in range(1, 1401):  # 4,200 rows: more than one statement may bind in SQLite
            for match_id in matches:
                storage.record_move(match_id, ply, "white", f"M{ply}", 0.25, 0.0, None)
                expected.append((match_id, ply, f"M{ply}"))
        storage.after_commit(lambda: seen_by_callbacks.append(len(_stored(db))))
        await _until_committed(storage)
    assert seen_by_callbacks == [4200]
    assert _stored(db) == sorted(expected)


@BOTH_BACKENDS
async def test_a_write_queued_while_the_writer_waits_is_committed_before_its_task_yields(
    db: Path | str,
) -> None:
    """A match queues its move, then works out the rest of its step (the next turn's hints and
    frames) without yielding to the writer task: the commit process commits the move meanwhile,
    on its own core, rather than after the step."""
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        await _until_committed(storage)  # the writer waits for work; its process runs
        storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        stored = _stored_while_the_loop_is_blocked(db, 10)
        assert stored == [(match_id, 1, "B4C4")]
        await _until_committed(storage)


def _stored_while_the_loop_is_blocked(db: Path | str, seconds: float) -> list[tuple[Any, ...]]:
    """The moves stored once there are some, or after `seconds`, the event loop blocked all the
    while (as by a step's work): no task runs, the writer task neither."""
    give_up = time.monotonic() + seconds
    while not (stored := _stored(db)) and time.monotonic() < give_up:
        time.sleep(0.01)
    return stored


@BOTH_BACKENDS
async def test_one_bad_write_fails_alone_and_callbacks_keep_their_order(db: Path | str) -> None:
    order: list[str] = []
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        first = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        storage.after_commit(lambda: order.append("after first"))
        again = storage.record_move(match_id, 1, "black", "G4F4", 0.1)  # same ply: refused
        second = storage.record_move(match_id, 2, "black", "G4F4", 0.1)
        storage.after_commit(lambda: order.append("after second"))
        await _until_committed(storage)
    assert first.error is None
    assert second.error is None
    assert isinstance(again.error, INTEGRITY_ERRORS)
    assert order == ["after first", "after second"]
    assert _stored(db) == [(match_id, 1, "B4C4"), (match_id, 2, "G4F4")]


@BOTH_BACKENDS
async def test_a_commit_process_killed_between_batches_is_replaced(db: Path | str) -> None:
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        first = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        await _until_committed(storage)
        [writer] = commit_writers(db)
        os.kill(writer, signal.SIGKILL)
        await trio.sleep(0.3)
        second = storage.record_move(match_id, 2, "black", "G4F4", 0.1)
        await _until_committed(storage)
        assert commit_writers(db) not in ([], [writer])  # a new one took over
    assert first.error is None
    assert second.error is None
    assert _stored(db) == [(match_id, 1, "B4C4"), (match_id, 2, "G4F4")]
    assert commit_writers(db) == []  # stopped with the writer


@BOTH_BACKENDS
async def test_a_batch_whose_commit_process_is_killed_is_stored_once_by_the_next(
    db: Path | str,
) -> None:
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        [writer] = commit_writers(db)
        os.kill(writer, signal.SIGSTOP)  # the batch below is sent to it, and never answered
        move = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        creating = trio.Event()
        created: list[int] = []

        async def create() -> None:
            created.append(await _new_match(storage))
            creating.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(create)
            await trio.sleep(0.3)
            assert not creating.is_set()
            os.kill(writer, signal.SIGKILL)
            with trio.fail_after(10):
                await creating.wait()
        await _until_committed(storage)
    assert move.error is None
    assert created == [match_id + 1]
    assert _stored(db) == [(match_id, 1, "B4C4")]


@BOTH_BACKENDS
def test_a_batch_sent_again_after_its_commit_is_not_committed_twice(db: Path | str) -> None:
    """The answers a dead process gave no one are read back from the commit log by the next."""
    connection, another = open_database(db), open_database(db)
    try:
        batch = [_match_write("a"), _move(99, 1)]  # no match 99: refused
        answers = commit_batch(connection, 7, batch)
        assert isinstance(answers[0], int)
        assert isinstance(answers[1], list)
        assert commit_batch(another, 7, batch, resend=True) == answers
        [later] = commit_batch(another, 8, [_match_write("b")], resend=True)  # not a resend
        assert isinstance(later, int)
        assert later > answers[0]
        assert last_batch(another) == 8
        assert another.execute("SELECT game FROM matches ORDER BY id").fetchall() == [
            ("a",),
            ("b",),
        ]
    finally:
        connection.close()
        another.close()


@BOTH_BACKENDS
async def test_batch_numbers_go_on_from_the_commit_log_after_a_restart(db: Path | str) -> None:
    async with writing_to(db) as storage:
        await _new_match(storage)
        await _new_match(storage)
    with closing(open_database(db)) as connection:
        assert last_batch(connection) == 2
    async with writing_to(db) as storage:
        await _new_match(storage)
    assert _rows(db, "SELECT batch FROM commit_log") == [(3,)]


@BOTH_BACKENDS
async def test_a_match_is_created_and_finished_in_one_piece_each(
    db: Path | str, backend: str
) -> None:
    _refusing(db, backend, "results", "UPDATE OF score", "NEW.seat_index = 1", "no score for black")
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        move = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        storage.note_default(match_id, 1, "time")
        with pytest.raises(NotStored, match="no score for black") as refused:
            await storage.finish_match(
                match_id, "win", "white", "time", Termination.TIME, [1.0, 0.0]
            )
        assert isinstance(refused.value.__cause__, (sqlite3.IntegrityError, psycopg.Error))
        await _until_committed(storage)
    assert move.error is None
    assert _rows(db, "SELECT status, result FROM matches") == [("playing", None)]
    assert _rows(
        db,
        "SELECT r.seat, p.name, r.score FROM results r JOIN players p ON p.id = r.player_id"
        " ORDER BY r.seat_index",
    ) == [("white", "a", None), ("black", "b", None)]
    assert _rows(db, "SELECT count(*) FROM defaults") == [(0,)]
    assert _stored(db) == [(match_id, 1, "B4C4")]


@BOTH_BACKENDS
async def test_match_numbers_go_on_from_the_store_after_a_restart(db: Path | str) -> None:
    async with writing_to(db) as storage:
        first = [await _new_match(storage) for _ in range(3)]
    async with writing_to(db) as storage:
        later = await _new_match(storage)
    assert first == [1, 2, 3]
    assert later == 4
    assert _rows(db, "SELECT id FROM matches ORDER BY id") == [(1,), (2,), (3,), (4,)]
    assert _rows(db, "SELECT count(*) FROM players") == [(2,)]


def test_one_file_is_one_servers_until_it_closes(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    holder = SQLiteStorage.connect(db)
    try:
        with pytest.raises(DatabaseInUse, match="another Arbiter server is using"):
            SQLiteStorage.connect(db)
    finally:
        holder.close()
    SQLiteStorage.connect(db).close()


def test_another_programs_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
        other.execute("INSERT INTO notes VALUES ('keep me')")
    before = db.read_bytes()
    with pytest.raises(NotArbiterFile, match=r"it holds other tables \(notes\)"):
        SQLiteStorage.connect(db)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]  # no lock, no WAL


def test_a_file_from_before_the_stamp_is_taken_and_stamped(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as old:  # what an earlier version wrote: our tables, no stamp
        old.executescript(SCHEMA)
    SQLiteStorage.connect(db).close()
    with sqlite3.connect(db) as reader:
        assert reader.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    SQLiteStorage.connect(db).close()  # and taken again as ours


# -- the database numbers matches ----------------------------------------------------------


def _match_write(name: str) -> list[tuple[str, list[object]]]:
    """A keyed write: a match row, then a statement that names it by `NEW_ID`."""
    return [
        (
            "INSERT INTO matches (game, options, time_control, illegal, status, started_at)"
            " VALUES (?, '{}', '{}', 'forfeit,forfeit', 'playing', 0)" + RETURNING_ID,
            [name],
        ),
        ("INSERT INTO moves VALUES (?, 1, 'white', ?, 0, 0, NULL, 0, NULL)", [NEW_ID, name]),
    ]


def _move(match_id: int, ply: int) -> list[tuple[str, list[object]]]:
    return [
        (
            "INSERT INTO moves (match_id, ply, seat, move, elapsed, compensation, clock,"
            " stored_at) VALUES (?, ?, 'white', 'B4C4', 0, 0, NULL, 0)",
            [match_id, ply],
        )
    ]


@BOTH_BACKENDS
def test_keyed_writes_get_their_own_ids_among_merged_moves(db: Path | str) -> None:
    connection = open_database(db)
    try:
        assert commit_batch(connection, 1, [_match_write("a")]) == [1]
        batch = [_move(1, 2), _match_write("b"), _move(1, 3), _move(1, 4), _match_write("c")]
        assert commit_batch(connection, 2, batch) == [None, 2, None, None, 3]
        assert connection.execute(
            "SELECT m.id, m.game, count(*) FROM matches m JOIN moves v ON v.match_id = m.id"
            " GROUP BY m.id ORDER BY m.id"
        ).fetchall() == [(1, "a", 4), (2, "b", 1), (3, "c", 1)]
        assert connection.execute(
            "SELECT match_id, move FROM moves WHERE ply = 1 ORDER BY match_id"
        ).fetchall() == [(1, "a"), (2, "b"), (3, "c")]
    finally:
        connection.close()


@BOTH_BACKENDS
def test_a_refused_write_beside_keyed_ones_leaves_them_their_ids(
    db: Path | str, backend: str
) -> None:
    connection = open_database(db)
    try:
        answers = commit_batch(connection, 1, [_match_write("a"), _move(99, 1), _match_write("b")])
        assert isinstance(answers[1], list)
        assert answers[1][0] in INTEGRITY_ERROR_NAMES
        # The batch failed whole, then went one write at a time: PostgreSQL's sequence does not
        # give back the number the failed attempt drew for "a" (SQLite: the largest id plus one).
        first, second = (1, 2) if backend == "sqlite" else (2, 3)
        assert answers[0] == first
        assert answers[2] == second
        assert connection.execute("SELECT id, game FROM matches ORDER BY id").fetchall() == [
            (first, "a"),
            (second, "b"),
        ]
    finally:
        connection.close()


@BOTH_BACKENDS
async def test_matches_created_together_have_their_own_rows(db: Path | str, backend: str) -> None:
    """Several new matches in one batch, one of them a tournament game: each gets the id
    the database gave it, its own seats, and the tournament game the right link."""
    aggregate = "group_concat(p.name, ',')" if backend == "sqlite" else "string_agg(p.name, ',')"
    async with writing_to(db) as storage:
        tournament = await storage.create_tournament(
            TournamentRow("cup", "kings-court", {}, {"move": 5.0}, 1, 1, 10.0, ["c", "d"], {},
                          TournamentStatus.RUNNING, "director"),
            [ScheduledGame(1, 1, "c", "d")],
        )  # fmt: skip
        ids: list[int] = []

        async def create(players: list[str], link: tuple[int, int] | None) -> None:
            ids.append(
                await storage.create_match(
                    "kings-court", {}, {}, FORFEITS, ["white", "black"], players, link
                )
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(create, ["a", "b"], None)
            nursery.start_soon(create, ["c", "d"], (tournament, 1))
            nursery.start_soon(create, ["b", "e"], None)
        [stored] = await storage.load_tournaments()
    assert sorted(ids) == [1, 2, 3]
    seats = dict(
        _rows(
            db,
            f"SELECT r.match_id, {aggregate} FROM results r"
            " JOIN players p ON p.id = r.player_id GROUP BY r.match_id",
        )
    )
    assert sorted(seats.values()) == ["a,b", "b,e", "c,d"]
    assert stored.games[0].match == next(i for i in ids if seats[i] == "c,d")
    assert stored.games[0].status == "playing"


@BOTH_BACKENDS
async def test_a_match_refused_by_the_store_leaves_nothing(db: Path | str, backend: str) -> None:
    _refusing(db, backend, "players", "INSERT", "NEW.name = 'x'", "no x")
    async with writing_to(db) as storage:
        with pytest.raises(NotStored, match="no x"):
            await storage.create_match(
                "kings-court", {}, {}, FORFEITS, ["white", "black"], ["a", "x"]
            )
        # SQLite numbers a match the largest id plus one, so the refused one took no number;
        # PostgreSQL's sequence does not give back the two it drew (its batch, then alone).
        assert await _new_match(storage) == (1 if backend == "sqlite" else 3)
    assert _rows(db, "SELECT count(*) FROM matches") == [(1,)]
    assert _rows(db, "SELECT count(*) FROM results") == [(2,)]


# -- one record, with how the game ended -------------------------------------------------


@BOTH_BACKENDS
async def test_a_finished_match_reads_back_whole_with_its_termination(db: Path | str) -> None:
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        storage.record_move(match_id, 1, "white", "B4C4", 0.5, 0.01, None)
        storage.note_default(match_id, 1, "illegal")
        await storage.finish_match(
            match_id, "win", "white", "illegal move", Termination.ILLEGAL_MOVE, [1.0, 0.0]
        )
        record = await storage.load_match(match_id)
        assert await storage.load_match(match_id + 1) is None
    assert record is not None
    assert (record.id, record.status, record.result, record.winner) == (
        match_id,
        "finished",
        "win",
        "white",
    )
    assert record.termination == "illegal-move"
    assert (record.seats, record.players) == (["white", "black"], ["a", "b"])
    assert (record.scores, record.defaults) == ([1.0, 0.0], [None, "illegal"])
    assert record.notation == ["B4C4"]
    assert record.moves[0].compensation == 0.01
    with closing(open_read_only(db)) as reader:
        assert list(read_records(reader)) == [record]


@BOTH_BACKENDS
async def test_a_players_finished_games_newest_first(db: Path | str) -> None:
    """What the player page lists: finished matches only, the latest first, at most `limit`."""
    async with writing_to(db) as storage:
        first, second, _in_play = [await _new_match(storage) for _ in range(3)]
        for match_id in (first, second):
            await storage.finish_match(
                match_id, "draw", None, "agreed", Termination.RULE, [0.5] * 2
            )
        assert [game.id for game in await storage.finished_games("a", 10)] == [second, first]
        assert [game.id for game in await storage.finished_games("b", 1)] == [second]
        assert await storage.finished_games("nobody", 10) == []
        (shown,) = await storage.finished_games("a", 1)
    assert (shown.status, shown.termination) == (MatchStatus.FINISHED, Termination.RULE)


@BOTH_BACKENDS
async def test_a_read_the_store_fails_is_unreadable_whichever_engine(db: Path | str) -> None:
    """One error type for a failed read, with the engine's sentence: here a table another
    program dropped under the server."""
    async with writing_to(db) as storage:
        match_id = await _new_match(storage)
        await storage.finish_match(match_id, "draw", None, "agreed", Termination.RULE, [0.5] * 2)
        with closing(open_database(db)) as other:
            other.execute("DROP TABLE moves")
        with pytest.raises(Unreadable, match=r"(SQLite|PostgreSQL) failed: .*moves") as failed:
            await storage.load_moves(match_id)
        assert isinstance(failed.value.__cause__, sqlite3.Error | psycopg.Error)
        with pytest.raises(Unreadable, match="moves"):
            await storage.finished_games("a", 10)


OLD_MATCHES = """
CREATE TABLE matches (
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
    time_control TEXT NOT NULL, illegal TEXT NOT NULL, status TEXT NOT NULL,
    started_at REAL NOT NULL, ended_at REAL, result TEXT, winner TEXT, reason TEXT
);
INSERT INTO matches VALUES
    (7, 'kings-court', '{}', '{}', 'forfeit,forfeit', 'finished', 0, 1, 'draw', NULL, 'agreed');
"""
"""The matches table as Arbiter wrote it before terminations, with one finished game."""


def test_a_file_from_before_terminations_is_read_as_it_is_and_upgraded_on_open(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as old:
        old.executescript(OLD_MATCHES)
        old.executescript(SCHEMA)  # every other table, as that version had them
        old.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    with closing(
        open_read_only(db)
    ) as reader:  # the reading commands cannot upgrade it, nor need to
        [record] = read_records(reader)
    assert (record.id, record.reason, record.termination) == (7, "agreed", None)
    SQLiteStorage.connect(db).close()
    with sqlite3.connect(db) as reader:
        columns = [row[1] for row in reader.execute("PRAGMA table_info(matches)")]
        assert columns[-1] == "termination"
        assert reader.execute("SELECT id, reason, termination FROM matches").fetchall() == [
            (7, "agreed", None)
        ]
    SQLiteStorage.connect(db).close()  # once is enough: opened again as it is
