"""The two displays: the full screen of a terminal, redrawn live, and plain scrolling output.

The full screen (both standard streams on a terminal) uses the terminal's alternate screen, as
full-screen programs do, so the shell's scrollback is left as it was; when the session ends the
final position and the result are printed on the normal screen, where they stay. Colour comes
from Rich, which leaves it out under `NO_COLOR`; the drawings never depend on it (the last move
is bracketed, pieces are letters). Without a terminal (a pipe, a file, `TERM=dumb`) the screen is
printed whenever the position changes, and the messages and prompts as lines.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from arbiter.client.play.keyboard import cbreak
from arbiter.client.play.screen import View, message_lines, prompt_line, report_lines, screen_lines
from arbiter.client.play.table import Table


def can_redraw() -> bool:
    """Whether this process has a terminal it may take over: keyboard and screen, not dumb."""
    return sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def open_display() -> FullScreen | Scrolling:
    return FullScreen(Console()) if can_redraw() else Scrolling(Console())


class FullScreen:
    scrolling = False

    def __init__(self, console: Console) -> None:
        self.console = console
        self._stack = ExitStack()
        self._live: Live | None = None
        self._shown: list[tuple[str, Any]] = []

    def __enter__(self) -> FullScreen:
        self._stack.enter_context(cbreak(sys.stdin.fileno()))
        self._live = Live(
            console=self.console,
            screen=True,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._stack.enter_context(self._live)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._live = None
        self._stack.close()

    def show(self, table: Table, view: View, now: float) -> None:
        """Redraw, unless nothing visible changed (most clock ticks change nothing)."""
        width, height = self.console.size
        lines = screen_lines(table, view, width, height, now)
        shown = [(line.plain, line.spans) for line in lines]
        if shown != self._shown and self._live is not None:
            self._shown = shown
            self._live.update(Group(*lines), refresh=True)

    def typed(self, table: Table, line: str) -> None:
        """Typed lines are part of the screen already (the input line)."""

    def farewell(self, table: Table, view: View, now: float) -> None:
        """The final screen's picture stays in the terminal; messages only if the game did
        not end (they say why not)."""
        for line in report_lines(table, self.console.width, now):
            self.console.print(line, crop=True)
        if table.phase != "over":
            for line in message_lines(view.messages, self.console.width):
                self.console.print(line)


class Scrolling:
    """Prints a new picture when the position changes, each message once, and a prompt when a
    local seat is to move; clocks show the time at the moment of printing."""

    scrolling = True

    def __init__(self, console: Console) -> None:
        self.console = console
        self._position: tuple[Any, ...] | None = None
        self._said = 0
        self._prompted: tuple[Any, ...] | None = None
        self._prompt_open = False

    def __enter__(self) -> Scrolling:
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def show(self, table: Table, view: View, now: float) -> None:
        position = (table.phase, table.match, table.state, table.result)
        if position != self._position:
            self._position = position
            self._print(report_lines(table, self.console.width, now))
        for message in view.said[self._said :]:
            self._print(message_lines(message, self.console.width))
        self._said = len(view.said)
        prompt = (position, self._said)
        if table.to_move and prompt != self._prompted:
            self._prompted = prompt
            self._prompt(table)

    def typed(self, table: Table, line: str) -> None:
        """Piped input is not echoed by a terminal: each line taken is shown at its prompt."""
        if not self._prompt_open:
            self._prompt(table)
        self.console.print(line, markup=False, highlight=False)
        self._prompt_open = False

    def farewell(self, table: Table, view: View, now: float) -> None:
        self.console.print()

    def _prompt(self, table: Table) -> None:
        self.console.print(prompt_line(table, View(), self.console.width)[:-1], end="")
        self.console.file.flush()
        self._prompt_open = True

    def _print(self, lines: list[Text]) -> None:
        self.console.print()
        self._prompt_open = False
        for line in lines:
            self.console.print(line, crop=False, overflow="ignore")
