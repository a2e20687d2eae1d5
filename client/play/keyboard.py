"""Reading the keyboard without blocking the trio event loop.

On a terminal the client edits the input line itself (cbreak mode: no echo, keys one at a time),
so the screen can redraw the clocks while a move is half typed. Keys are read when trio says
the descriptor is readable (`wait_readable`), never by a blocking read on the event loop's
thread, so the clocks keep counting and pings keep being answered. Piped input (not a terminal)
arrives a line at a time through the same editor.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import sys
import termios
import tty
from collections.abc import AsyncIterator, Iterator

import trio

READ_SIZE = 4096
END_OF_INPUT = "\x04"
"""Ctrl-D; also what the reader yields at the end of piped input."""
ERASE = ("\x7f", "\x08")
KILL_LINE = "\x15"  # Ctrl-U
KILL_WORD = "\x17"  # Ctrl-W
ESCAPE = "\x1b"


class LineEditor:
    """The line being typed: printable keys append, Backspace, Ctrl-U and Ctrl-W erase, Enter
    hands the line over. Escape sequences (arrow keys, function keys) are skipped whole."""

    def __init__(self) -> None:
        self.buffer = ""
        self._escape = ""

    def feed(self, keys: str) -> list[str]:
        """Take typed keys; return the lines finished by them (Ctrl-D on an empty line: EOF)."""
        lines = []
        for key in keys:
            if self._escape or key == ESCAPE:
                self._skip_escape(key)
            elif key in "\r\n":
                lines.append(self.buffer)
                self.buffer = ""
            elif key in ERASE:
                self.buffer = self.buffer[:-1]
            elif key == KILL_LINE:
                self.buffer = ""
            elif key == KILL_WORD:
                self.buffer = self.buffer.rstrip().rpartition(" ")[0]
            elif key == END_OF_INPUT and not self.buffer:
                lines.append(END_OF_INPUT)
            elif key.isprintable():
                self.buffer += key
        return lines

    def _skip_escape(self, key: str) -> None:
        """ESC, then `[` or `O`, then parameters up to a final letter (or `~`)."""
        self._escape += key
        sequence = self._escape
        if len(sequence) == 2 and key not in "[O":
            self._escape = ""  # Alt+key: dropped along with its ESC
        elif len(sequence) > 2 and (key.isalpha() or key == "~"):
            self._escape = ""


@contextlib.contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """Keys one at a time, not echoed; Ctrl-C still interrupts. The terminal is restored after,
    however the program leaves."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


async def keys(fd: int | None = None) -> AsyncIterator[str]:
    """Text typed or piped in, as it arrives; `END_OF_INPUT` once, at its end."""
    fd = sys.stdin.fileno() if fd is None else fd
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pollable = not stat.S_ISREG(os.fstat(fd).st_mode)
    while True:
        if pollable:
            try:
                await trio.lowlevel.wait_readable(fd)
            except OSError:  # epoll refuses some devices (/dev/null) as it refuses files
                pollable = False
        if pollable:
            data = os.read(fd, READ_SIZE)
        else:  # a file or such a device: its read never waits for a person
            data = await trio.to_thread.run_sync(os.read, fd, READ_SIZE)
        if not data:
            yield END_OF_INPUT
            return
        yield decoder.decode(data)
