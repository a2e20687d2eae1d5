"""The group commit on a real SQLite file: what is stored, in what order callbacks run, what
one bad write costs the rest of its batch, what a killed commit process costs, and how match
numbers and the file's lock behave."""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from arbiter.games import Termination
from arbiter.server.database import APPLICATION_ID, SCHEMA, NotArbiterFile
from arbiter.server.sqlite_storage import DatabaseInUse, SQLiteStorage
from arbiter.server.storage import StorageError
from tests.processes import commit_writers


async def _new_match(storage: SQLiteStorage) -> int:
    return await storage.create_match(
        "kings-court", {}, {"move": 5.0}, "forfeit,forfeit", ["white", "black"], ["a", "b"]
    )


def _stored(db: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(db) as reader:
        return reader.execute(
            "SELECT match_id, ply, move FROM moves ORDER BY match_id, ply"
        ).fetchall()


@asynccontextmanager
async def _writing_to(db: Path) -> AsyncIterator[SQLiteStorage]:
    """A storage with its group-commit writer running, stopped and closed on the way out."""
    storage = SQLiteStorage.connect(db)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(storage.run_writer)
            yield storage
            nursery.cancel_scope.cancel()
    finally:
        storage.close()


async def _until_committed(storage: SQLiteStorage) -> None:
    done = trio.Event()
    storage.after_commit(done.set)
    with trio.fail_after(10):
        await done.wait()


async def test_a_large_batch_is_stored_whole_before_its_callbacks_run(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    seen_by_callbacks: list[int] = []
    async with _writing_to(db) as storage:
        matches = [await _new_match(storage) for _ in range(3)]
        expected = []
        for ply in range(1, 1401):  # 4,200 rows: more than one statement may bind
            for match_id in matches:
                storage.record_move(match_id, ply, "white", f"M{ply}", 0.25, 0.0, None)
                expected.append((match_id, ply, f"M{ply}"))
        storage.after_commit(lambda: seen_by_callbacks.append(len(_stored(db))))
        await _until_committed(storage)
    assert seen_by_callbacks == [4200]
    assert _stored(db) == sorted(expected)


async def test_one_bad_write_fails_alone_and_callbacks_keep_their_order(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    order: list[str] = []
    async with _writing_to(db) as storage:
        match_id = await _new_match(storage)
        first = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        storage.after_commit(lambda: order.append("after first"))
        again = storage.record_move(match_id, 1, "black", "G4F4", 0.1)  # same ply: refused
        second = storage.record_move(match_id, 2, "black", "G4F4", 0.1)
        storage.after_commit(lambda: order.append("after second"))
        await _until_committed(storage)
    assert first.error is None and second.error is None
    assert isinstance(again.error, sqlite3.IntegrityError)
    assert order == ["after first", "after second"]
    assert _stored(db) == [(match_id, 1, "B4C4"), (match_id, 2, "G4F4")]


async def test_a_killed_commit_process_loses_only_its_batch(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    async with _writing_to(db) as storage:
        match_id = await _new_match(storage)
        first = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        await _until_committed(storage)
        [writer] = commit_writers(db)
        os.kill(writer, signal.SIGKILL)
        await trio.sleep(0.3)
        lost = storage.record_move(match_id, 2, "black", "G4F4", 0.1)
        await _until_committed(storage)
        again = storage.record_move(match_id, 2, "black", "G4F4", 0.1)
        await _until_committed(storage)
        assert commit_writers(db) not in ([], [writer])  # a new one took over
    assert first.error is None and again.error is None
    assert isinstance(lost.error, StorageError)
    assert _stored(db) == [(match_id, 1, "B4C4"), (match_id, 2, "G4F4")]
    assert commit_writers(db) == []  # stopped with the writer


async def test_a_match_is_created_and_finished_in_one_piece_each(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    with sqlite3.connect(db) as setup:  # the schema, then a rule that refuses black's score
        setup.executescript(SCHEMA)
        setup.execute(
            "CREATE TRIGGER refuse_black BEFORE UPDATE OF score ON results"
            " WHEN NEW.seat_index = 1 BEGIN SELECT RAISE(ABORT, 'no score for black'); END"
        )
    async with _writing_to(db) as storage:
        match_id = await _new_match(storage)
        move = storage.record_move(match_id, 1, "white", "B4C4", 0.1)
        storage.note_default(match_id, 1, "time")
        with pytest.raises(StorageError, match="no score for black") as refused:
            await storage.finish_match(
                match_id, "win", "white", "time", Termination.TIME, [1.0, 0.0]
            )
        assert isinstance(refused.value.__cause__, sqlite3.IntegrityError)
        await _until_committed(storage)
    assert move.error is None
    with sqlite3.connect(db) as reader:
        assert reader.execute("SELECT status, result FROM matches").fetchall() == [
            ("playing", None)
        ]
        assert reader.execute(
            "SELECT r.seat, p.name, r.score FROM results r JOIN players p ON p.id = r.player_id"
            " ORDER BY r.seat_index"
        ).fetchall() == [("white", "a", None), ("black", "b", None)]
        assert reader.execute("SELECT count(*) FROM defaults").fetchone() == (0,)
    assert _stored(db) == [(match_id, 1, "B4C4")]


async def test_match_numbers_go_on_from_the_file_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    async with _writing_to(db) as storage:
        first = [await _new_match(storage) for _ in range(3)]
    async with _writing_to(db) as storage:
        later = await _new_match(storage)
    assert first == [1, 2, 3] and later == 4
    with sqlite3.connect(db) as reader:
        assert reader.execute("SELECT id FROM matches ORDER BY id").fetchall() == [
            (1,),
            (2,),
            (3,),
            (4,),
        ]
        assert reader.execute("SELECT count(*) FROM players").fetchone() == (2,)


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
