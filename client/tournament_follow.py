"""Following a tournament to its end: a progress bar with an ETA, and a line for each result.

A long tournament is watched for hours, often from a log file: so each finished game gets a line
of its own as it comes (who played whom, the score, how it ended, and how far along the whole is
with its ETA), and on a terminal a bar below them keeps the same count live. The ETA is this
run's pace (games finished since following began, over the time it took) applied to the games
left: a resumed tournament's earlier games say nothing about this machine today.
"""

from __future__ import annotations

import time
from typing import Any

import trio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.client.tables import result_text
from arbiter.client.verdict import verdict

FOLLOW_SECONDS = 1.0
"""How often a follower asks the server for news."""


async def request(connection: ClientConnection, message: protocol.Message) -> protocol.Tournament:
    """Send a tournament request and return the `tournament` answer (`ServerError` on refusal)."""
    await connection.send(message)
    while True:
        answer = await connection.receive()
        if isinstance(answer, protocol.Tournament):
            return answer


def finished(status: protocol.Tournament) -> int:
    return sum(1 for game in status.games if game["status"] == "finished")


def result_line(game: dict[str, Any]) -> str:
    """`local-greedy vs local-random: 1-0, local-greedy wins: no legal move for black`; the
    score carries a default's kind, as in `0-1 (time)`."""
    ending = verdict(game["result"], game["winner"], game["reason"])
    return f"{game['first']} vs {game['second']}: {result_text(game)}, {ending}"


def eta_text(seconds: float | None) -> str:
    """`eta 0:01:05`, or `eta ?` before there is a pace to go by."""
    if seconds is None:
        return "eta ?"
    whole = round(seconds)
    return f"eta {whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class Follower:
    """Asks for a tournament's status until it is finished, printing each newly finished game's
    line to `lines` and moving `bar` (if any). `done` and `total` stay readable after an
    interruption, to say what was played."""

    def __init__(self, lines: Console, bar: Progress | None = None) -> None:
        self.lines = lines
        self.bar = bar
        self.done = 0
        self.total = 0
        self._shown: set[int] | None = None
        self._started = 0.0
        self._done_at_start = 0
        self._task: TaskID | None = None

    def __enter__(self) -> Follower:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *error: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def eta(self) -> float | None:
        """Seconds left at this run's pace; None until a game has finished in this run."""
        played = self.done - self._done_at_start
        if played <= 0:
            return None
        return (time.monotonic() - self._started) / played * (self.total - self.done)

    async def follow(self, connection: ClientConnection, tournament: str) -> protocol.Tournament:
        """The finished tournament's last status."""
        while True:
            status = await request(connection, protocol.TournamentStatus(tournament=tournament))
            self.update(status)
            if status.status == "finished":
                return status
            await trio.sleep(FOLLOW_SECONDS)

    def update(self, status: protocol.Tournament) -> None:
        """Take in a status: lines for the games finished since the last one, then the bar.
        The games finished before the first status are counted, not shown."""
        ended = [game for game in status.games if game["status"] == "finished"]
        self.total = len(status.games)
        if self._shown is None:
            self._shown = {game["number"] for game in ended}
            self._started, self.done = time.monotonic(), len(ended)
            self._done_at_start = self.done
        for game in ended:
            if game["number"] not in self._shown:
                self._shown.add(game["number"])
                self.done += 1
                progress = f"[{self.done}/{self.total} {eta_text(self.eta())}]"
                self.lines.print(f"{progress} {result_line(game)}", soft_wrap=True)
        self._move_bar(status)

    def _move_bar(self, status: protocol.Tournament) -> None:
        if self.bar is None:
            return
        if self._task is None:
            self._task = self.bar.add_task(status.name, total=self.total, eta="")
        self.bar.update(
            self._task, completed=self.done, description=_playing(status), eta=eta_text(self.eta())
        )


def _playing(status: protocol.Tournament) -> str:
    live = [g for g in status.games if g["status"] == "playing"]
    if not live:
        return f"{status.name}: {status.status}"
    shown = ", ".join(f"{g['first']}-{g['second']}" for g in live[:3])
    return f"{status.name}: {shown}" + (" ..." if len(live) > 3 else "")


def follower() -> Follower:
    """A follower printing its lines to stdout, with a bar on the terminal: below the lines when
    stdout is one, else on stderr if that is one (so stdout, piped or logged, holds the lines
    alone); no bar when neither is a terminal."""
    lines = Console(highlight=False)
    bar_console = lines if lines.is_terminal else Console(stderr=True)
    if not bar_console.is_terminal:
        return Follower(lines)
    return Follower(lines, games_bar(bar_console, "games, {task.fields[eta]}"))


def games_bar(console: Console, after: str = "games") -> Progress:
    """A bar of the games played out of all on `console`, gone once done: its description,
    the bar, the count, then `after` (a rich text template). Drawn only on a terminal."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(after),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
