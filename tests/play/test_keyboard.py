"""The input line: keys edited as a terminal would, read without blocking the event loop."""

from __future__ import annotations

import os

import trio

from arbiter.client.play.keyboard import END_OF_INPUT, LineEditor, keys


def test_keys_make_a_line_and_enter_hands_it_over() -> None:
    editor = LineEditor()
    assert editor.feed("b4") == []
    assert editor.buffer == "b4"
    assert editor.feed("c4\r") == ["b4c4"]
    assert editor.buffer == ""
    assert editor.feed("?\nhelp\n") == ["?", "help"]


def test_backspace_and_the_kill_keys_erase() -> None:
    editor = LineEditor()
    editor.feed("b4c5\x7f4")
    assert editor.buffer == "b4c4"
    editor.feed("\x08\x08")
    assert editor.buffer == "b4"
    editor.feed("\x15")
    assert editor.buffer == ""
    editor.feed("? b4\x17")
    assert editor.buffer == "?"


def test_arrow_and_function_keys_are_skipped_whole() -> None:
    editor = LineEditor()
    editor.feed("b\x1b[A4\x1b[1;5C\x1bOPc\x1b[15~4")
    assert editor.buffer == "b4c4"
    editor.feed("\x1b")
    editor.feed("[")
    editor.feed("D!")
    assert editor.buffer == "b4c4!"


def test_ctrl_d_on_an_empty_line_ends_input_and_other_controls_are_ignored() -> None:
    editor = LineEditor()
    assert editor.feed("a\x04\x01\x07") == []
    assert editor.buffer == "a"
    assert editor.feed("\x15\x04") == [END_OF_INPUT]


async def test_reading_the_keyboard_never_blocks_the_event_loop() -> None:
    """While no key comes, other tasks (the clocks, the pings) keep running."""
    read_end, write_end = os.pipe()
    ticks = 0
    received: list[str] = []
    read_all = trio.Event()

    async def tick() -> None:
        nonlocal ticks
        while True:
            await trio.sleep(0.01)
            ticks += 1

    async def read() -> None:
        received.extend([text async for text in keys(read_end)])
        read_all.set()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            nursery.start_soon(read)
            await trio.sleep(0.2)
            assert ticks >= 5
            assert received == []
            os.write(write_end, b"b4c4\r")
            os.close(write_end)
            with trio.fail_after(5):
                await read_all.wait()
            nursery.cancel_scope.cancel()
    finally:
        os.close(read_end)
    assert received == ["b4c4\r", END_OF_INPUT]


async def test_a_file_as_input_is_read_to_its_end(tmp_path) -> None:
    script = tmp_path / "moves.txt"
    script.write_text("b4c4\nresign\n")
    with script.open() as file:
        received = [text async for text in keys(file.fileno())]
    assert "".join(received[:-1]) == "b4c4\nresign\n"
    assert received[-1] == END_OF_INPUT


async def test_dev_null_as_input_ends_at_once() -> None:
    """epoll refuses /dev/null (a cron job, `< /dev/null`): it is read on a thread instead."""
    async with await trio.open_file(os.devnull) as null:
        assert [text async for text in keys(null.fileno())] == [END_OF_INPUT]
